import AppGroup
import Foundation
import ScreenTimeModel
import ScreenTimeOS
import SystemFiles
import SystemKit

/// The runner's side of the emulated iOS (`DeviceOS`): it shows the OS what the apps' frameworks
/// wrote under `system/`, the clock, the user's actions and the processes' ends, and carries out
/// what the OS answers — history lines, extension launches, the host's suspension, resumption,
/// termination and launch. Every decision is the OS's; this only reads files and moves processes.
extension ScenarioRunner {
    static func extensionPoints(of descriptor: SystemDescriptor) -> Set<ExtensionPoint> {
        Set(descriptor.roles.compactMap { if case .extension(let p) = $0.lifetime { p } else { nil } })
    }

    func makeOS(start: Double) -> DeviceOS {
        let s = o.scenario.os
        return DeviceOS(
            configuration: .init(
                timeZone: o.scenario.clock.timeZone, extensionPoints: Self.extensionPoints(of: pack.descriptor),
                backgroundGraceSeconds: Double(s.backgroundGraceSeconds), hostLifecycle: s.hostLifecycle, appCategories: s.appCategories,
                faults: s.faults, seed: o.seed),
            now: start)
    }

    /// The host app: the system's first app role (iOS's lifecycle applies to it).
    var hostRole: String? { pack.descriptor.roles.first { $0.lifetime == .app }?.name }

    /// Shows the OS `event` at the device time now (the clock first, if it moved) and carries out
    /// what it answers.
    /// Events that arise while the OS's effects are carried out (a call ended at launch, the host
    /// spawned) queue behind them: the OS sees one event at a time, in order.
    func osApply(_ event: OSEvent) {
        osQueue.append(event)
        guard !osDraining else { return }
        osDraining = true
        defer { osDraining = false }
        while !osQueue.isEmpty {
            let next = osQueue.removeFirst()
            let t = now
            if t > os.now { perform(os.apply(.clock(now: t))) }
            perform(os.apply(next))
        }
    }

    /// The clock alone, when one of the OS's deadlines has come.
    func osTick() {
        let t = now
        guard let d = osDeadline, d <= t, t > os.now, !osDraining else { return }
        perform(os.apply(.clock(now: t)))
    }

    /// Reads `system/deviceactivity/` and `system/managedsettings/` and shows the OS what changed.
    func osScan() {
        let registrations = DeviceActivityReader.registrations(on: device)
        let shields = ManagedSettingsReader.shieldUnion(on: device)
        let errors = registrations.errors + shields.errors
        if errors != lastSystemFileErrors {
            lastSystemFileErrors = errors
            for e in errors { rec.record("system_file_error", ["error": e]) }
        }
        if registrations.records != lastRegistrations {
            lastRegistrations = registrations.records
            osApply(.registrations(registrations.records))
        }
        if shields.union != lastShieldUnion {
            lastShieldUnion = shields.union
            osApply(.shields(shields.union))
        }
    }

    func perform(_ effects: [OSEffect]) {
        let killed = Set(effects.compactMap { if case .killCall(let d) = $0 { d } else { nil } })
        for effect in effects {
            switch effect {
            case .record(let event, let fields):
                rec.record(event, fields)
            case .call(let call, let delivery, let label):
                launchCall(call, delivery: delivery, label: label, killedByOS: killed.contains(delivery))
            case .killCall:
                break  // done at launch (above)
            case .launchHost:
                if let host = hostRole { execute(table.osLaunch(role: host)) }
            case .suspendHost:
                if let host = hostRole { execute(table.osSuspend(role: host)) }
            case .resumeHost:
                if let host = hostRole { execute(table.osResume(role: host)) }
            case .terminateHost:
                if let host = hostRole { execute(table.osTerminate(role: host)) }
            }
        }
        osDeadline = os.nextDeadline()
    }

    /// An extension process ended: tells the OS how (a shield action's answer is in its trace).
    func extensionEnded(delivery: Int, role: String, clean: Bool) {
        let response = clean ? shieldActionResponse(role: role, delivery: delivery) : nil
        osApply(.callEnded(delivery: delivery, completed: clean, response: response))
    }

    /// The `responded` line of `delivery` in the role's trace (read on from where it was left).
    func shieldActionResponse(role: String, delivery: Int) -> ShieldActionResponse? {
        guard pack.descriptor.role(role)?.lifetime == .extension(.shieldAction) else { return nil }
        let path = paths.trace(role)
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let offset = traceOffsets[path] ?? 0
        try? handle.seek(toOffset: offset)
        guard let data = try? handle.readToEnd(), !data.isEmpty else { return nil }
        // Only whole lines; a torn last line is read again next time.
        guard let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) else { return nil }
        traceOffsets[path] = offset + UInt64(lastNewline - data.startIndex + 1)
        for line in data[..<lastNewline].split(separator: UInt8(ascii: "\n")) {
            guard let obj = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any], obj["event"] as? String == "responded",
                let d = obj["delivery"] as? String, let raw = obj["response"] as? String,
                let r = ShieldActionResponse(rawValue: raw)
            else { continue }
            shieldResponses[Int(d) ?? -1] = r
        }
        return shieldResponses.removeValue(forKey: delivery)
    }

    /// A reboot is due: iOS forgets what it held, every device process dies; the apps come back
    /// when the user opens them (`openHost`, or at the latest when the run settles).
    func rebootIfDue() -> Bool {
        guard let next = rebootsLeft.first, o.scenario.clock.start.timeIntervalSince1970 + Double(next) <= now else { return false }
        rebootsLeft.removeFirst()
        osApply(.reboot)
        let deviceRoles = Set(pack.descriptor.roles.filter { $0.lifetime == .app }.map(\.name))
        execute(table.reboot(deviceRoles: deviceRoles))
        deferredCalls.removeAll()
        return true
    }

    /// The workload is over: a host that iOS terminated (force quit, reboot) and the user has not
    /// opened since is opened once, so that the system can finish what is pending while it settles
    /// (recorded as the user's `open_host_to_settle`). A suspended host stays suspended.
    func reopenHostForSettling() {
        guard let host = hostRole, let entry = table.entry(host), entry.heldDownByOS else { return }
        record("open_host_to_settle", [:])
        openHost()
    }

    var nextReboot: Double? { rebootsLeft.first.map { o.scenario.clock.start.timeIntervalSince1970 + Double($0) } }
}
