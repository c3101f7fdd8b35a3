import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

/// The runner's side of the emulated iOS (`DeviceOS`): it shows the OS what the apps' frameworks
/// wrote under `system/` (`OSFileScan`), the clock, the user's actions and the processes' ends,
/// and carries out what the OS answers — history lines, extension launches, the host's
/// suspension, resumption, termination and launch. Every decision is the OS's; this only reads
/// files and moves processes. Also the OS events the scenario scripts at device offsets.
struct EmulatedOS {
    var os: DeviceOS
    /// When the OS next wants to see the clock (`DeviceOS.nextDeadline`).
    var deadline: Double?
    /// Events that arose while the OS's effects were carried out, shown to it after them.
    var queue: [OSEvent] = []
    var draining = false
    /// What the driver last showed the OS of the device's files.
    var files = OSFileScan()
    /// `os.reboots`, `os.revokeAt`, `os.timeZoneChanges` not yet carried out (device offsets).
    var rebootsLeft: [Int]
    var revocationsLeft: [Int]
    var timeZoneChangesLeft: [Scenario.TimeZoneChange]
    /// The device's time zone now (`os.timeZoneChanges` move it).
    var timeZone: String
    /// `os.lockedAfterReboot`: the device time of the first unlock after the last reboot, while
    /// the device is locked before it (nil: unlocked).
    var unlockAt: Double?
    /// Calls iOS made to an extension while another call of that extension was running, by role,
    /// in the order they were made: an extension is one process that takes its calls one at a
    /// time (EMULATED-IOS.md §10.1), so each waits for the one before it to return.
    var waitingCalls: [String: [WaitingCall]] = [:]

    struct WaitingCall {
        var call: ExtensionCall
        var delivery: Int
        var label: [String: String]
        var killedByOS: Bool
    }

    init(_ setup: RunSetup, start: Double) {
        let o = setup.options, s = o.scenario.os
        var configuration = DeviceOS.Configuration(
            timeZone: o.scenario.clock.timeZone, extensionPoints: Self.extensionPoints(of: setup.pack.descriptor),
            backgroundGraceSeconds: Double(s.backgroundGraceSeconds), hostLifecycle: s.hostLifecycle, appCategories: s.appCategories,
            faults: s.faults, seed: o.seed, familyControls: s.authorization, notifications: s.notifications)
        configuration.hostNotices = setup.pack.descriptor.roles.first { $0.lifetime == .app }?.notices ?? .none
        configuration.rules = s.rules
        os = DeviceOS(configuration: configuration, now: start)
        deadline = os.nextDeadline()
        rebootsLeft = s.reboots
        revocationsLeft = s.revokeAt
        timeZoneChangesLeft = s.timeZoneChanges
        timeZone = o.scenario.clock.timeZone
    }

    static func extensionPoints(of descriptor: SystemDescriptor) -> Set<ExtensionPoint> {
        Set(descriptor.roles.compactMap { if case .extension(let p) = $0.lifetime { p } else { nil } })
    }
}

extension LiveRun {
    /// Shows the OS `event` at the device time now (the clock first, if it moved) and carries out
    /// what it answers.
    /// Events that arise while the OS's effects are carried out (a call ended at launch, the host
    /// spawned) queue behind them: the OS sees one event at a time, in order.
    func osApply(_ event: OSEvent) {
        emulated.queue.append(event)
        guard !emulated.draining else { return }
        emulated.draining = true
        defer { emulated.draining = false }
        while !emulated.queue.isEmpty {
            let next = emulated.queue.removeFirst()
            let t = now
            if t > emulated.os.now { perform(emulated.os.apply(.clock(now: t))) }
            perform(emulated.os.apply(next))
        }
    }

    /// The clock alone, when one of the OS's deadlines has come.
    func osTick() {
        let t = now
        guard let d = emulated.deadline, d <= t, t > emulated.os.now, !emulated.draining else { return }
        perform(emulated.os.apply(.clock(now: t)))
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
                if let host = hostRole { execute(processes.table.osLaunch(role: host)) }
            case .suspendHost:
                if let host = hostRole { execute(processes.table.osSuspend(role: host)) }
            case .resumeHost:
                if let host = hostRole { execute(processes.table.osResume(role: host)) }
            case .terminateHost:
                if let host = hostRole { execute(processes.table.osTerminate(role: host)) }
            case .setAuthorization(let kind, let status, let request):
                do {
                    switch kind {
                    case .familyControls: try FamilyControlsAuthority.setStatus(status, answering: request, on: device)
                    case .notifications:
                        try NotificationAuthority.setAuthorization(
                            status, options: status == "denied" ? [] : ["alert", "badge", "sound"], answering: request, on: device)
                    }
                } catch {
                    rec.record(.systemFileError, ["error": "\(error)"])
                }
            case .clearManagedSettings:
                clearArea(OSPaths.managedSettings, post: OSPaths.managedSettingsChanged)
            case .clearRegistrations:
                clearArea(OSPaths.deviceActivity, post: OSPaths.deviceActivityChanged)
            case .deliverNotification(let request):
                do { try NotificationAuthority.deliver(request, at: Date(timeIntervalSince1970: now), on: device) } catch {
                    rec.record(.systemFileError, ["error": "\(error)"])
                }
            case .discardNotification(let identifier):
                if let f = OSFileName.encode(identifier), let area = try? device.area(OSPaths.pendingNotifications) {
                    area.directory.remove(f)
                }
            case .notificationResponse(let identifier, let action):
                respond(toNotification: identifier, action: action)
            case .tellHost(let action, let fields):
                // iOS's own message: written to the inbox however the host runs (read at launch).
                if let host = hostRole { sendToInbox(host, AppMessage(action: action, fields: fields)) }
            }
        }
        emulated.deadline = emulated.os.nextDeadline()
    }

    func clearArea(_ path: String, post: String) {
        guard let area = try? device.area(path) else { return }
        for name in (try? area.recordNames()) ?? [] { area.directory.remove(name) }
        try? area.post(post)
    }

    /// iOS launches an extension process for one call the OS made (`delivery` is its id) — once
    /// the extension has returned from the calls made before it (`waitingCalls`).
    /// `killedByOS`: a field fault kills it before it returns — at launch, so that the outcome
    /// does not depend on how far it got in wall time (EMULATED-IOS.md §10).
    func launchCall(_ call: ExtensionCall, delivery: Int, label: [String: String], killedByOS: Bool) {
        var f = label
        f["callback"] = call.callbackName
        f["delivery"] = String(delivery)
        guard let role = pack.descriptor.role(for: call.point) else {
            f["why"] = "\(pack.id) has no \(call.point.rawValue) extension"
            rec.record(.callbackNotDelivered, f)
            return
        }
        if let busy = extensionBusy(role.name) ?? emulated.waitingCalls[role.name]?.last?.delivery {
            f["behind"] = String(busy)
            rec.record(.callbackQueued, f)
            emulated.waitingCalls[role.name, default: []].append(.init(call: call, delivery: delivery, label: label, killedByOS: killedByOS))
            return
        }
        startCall(call, role: role, delivery: delivery, fields: f, killedByOS: killedByOS)
    }

    /// The delivery of the call `role` is running or a stop holds back (nil: the extension is free).
    func extensionBusy(_ role: String) -> Int? {
        processes.table.extensions.first { $0.role == role }?.delivery
            ?? nemesis.deferredCalls.first { $0.role.name == role }?.delivery
    }

    /// Starts the calls waiting for `role` while it is free (a call that ends at once — killed at
    /// launch, not deliverable — lets the next one start).
    func launchWaitingCalls(of role: String) {
        while extensionBusy(role) == nil, var queue = emulated.waitingCalls[role], !queue.isEmpty {
            let next = queue.removeFirst()
            emulated.waitingCalls[role] = queue.isEmpty ? nil : queue
            guard let r = pack.descriptor.role(role) else { continue }
            var f = next.label
            f["callback"] = next.call.callbackName
            f["delivery"] = String(next.delivery)
            startCall(next.call, role: r, delivery: next.delivery, fields: f, killedByOS: next.killedByOS)
        }
    }

    /// At a reboot: the calls still waiting are never made (iOS forgets them with the process).
    func dropWaitingCalls() {
        for role in emulated.waitingCalls.keys.sorted() {
            for w in emulated.waitingCalls[role] ?? [] {
                var f = w.label
                f["callback"] = w.call.callbackName
                f["delivery"] = String(w.delivery)
                f["why"] = "the device rebooted while it waited"
                rec.record(.callbackNotDelivered, f)
            }
        }
        emulated.waitingCalls = [:]
    }

    private func startCall(_ call: ExtensionCall, role: ProcessRole, delivery: Int, fields f: [String: String], killedByOS: Bool) {
        var f = f
        guard !processes.table.extensionCallsFull else {
            f["why"] = "too many extension calls running"
            rec.record(.callbackNotDelivered, f)
            osApply(.callEnded(delivery: delivery, completed: false, response: nil))
            return
        }
        if killedByOS {
            f["childPid"] = "-"
            rec.record(.callbackDelivered, f)
            rec.record(.signal, ["target": role.name, "signal": "KILL", "by": "ios", "delivery": String(delivery), "at": "launch"])
            rec.record(.callbackFailed, ["callback": call.callbackName, "delivery": String(delivery), "status": "killed by iOS at launch"])
            osApply(.callEnded(delivery: delivery, completed: false, response: nil))
            return
        }
        if armedFaultTakes(call, role: role, delivery: delivery, fields: f) { return }
        launch(role, call, delivery: delivery, fields: f)
    }

    /// An extension process ended: tells the OS how (a shield action's answer is in its trace).
    func extensionEnded(delivery: Int, role: String, clean: Bool) {
        let response = clean ? shieldActionResponse(role: role, delivery: delivery) : nil
        osApply(.callEnded(delivery: delivery, completed: clean, response: response))
        launchWaitingCalls(of: role)
    }

    /// Scripted OS events at device offsets (`os.revokeAt`, `os.timeZoneChanges`); true if any ran.
    func osScheduleIfDue() -> Bool {
        let start = setup.deviceStart
        var any = false
        if let u = emulated.unlockAt, u <= now {
            unlockDevice(by: "time")
            any = true
        }
        while let next = emulated.revocationsLeft.first, start + Double(next) <= now {
            emulated.revocationsLeft.removeFirst()
            osApply(.revokeAuthorization)
            any = true
        }
        while let next = emulated.timeZoneChangesLeft.first, start + Double(next.atSeconds) <= now {
            emulated.timeZoneChangesLeft.removeFirst()
            emulated.timeZone = next.timeZone
            do {
                if stepped {
                    try clock.write(.stepped(at: virtualTime.now, timeZone: emulated.timeZone), to: root)
                } else if var cfg = clock.current {
                    cfg.timeZone = emulated.timeZone
                    try clock.write(cfg, to: root)
                }
            } catch {
                rec.record(.clockError, ["error": "\(error)"])
            }
            osApply(.timeZone(next.timeZone))
            any = true
        }
        return any
    }

    var nextScheduledOSEvent: Double? {
        let start = setup.deviceStart
        return (([emulated.revocationsLeft.first] + [emulated.timeZoneChangesLeft.first?.atSeconds]).compactMap { $0 }.map { start + Double($0) }
            + [emulated.unlockAt].compactMap { $0 }).min()
    }

    /// A reboot is due: iOS forgets what it held, every device process dies; the apps come back
    /// when the user opens them (`openHost`, or at the latest when the run settles).
    func rebootIfDue() -> Bool {
        guard let next = emulated.rebootsLeft.first, setup.deviceStart + Double(next) <= now else { return false }
        emulated.rebootsLeft.removeFirst()
        osApply(.reboot)
        let deviceRoles = Set(pack.descriptor.roles.filter { $0.lifetime == .app }.map(\.name))
        dropWaitingCalls()
        execute(processes.table.reboot(deviceRoles: deviceRoles))
        nemesis.deferredCalls.removeAll()
        if let locked = o.scenario.os.lockedAfterReboot {
            // Data protection (PROTOCOL.md §3): until the first unlock no process reads the stores.
            let marker = setup.deviceRootPath + "/" + SharedDefaults.lockedMarker
            if FileManager.default.createFile(atPath: marker, contents: Data()) {
                emulated.unlockAt = now + Double(locked)
                rec.record(.deviceLocked, ["until": String(now + Double(locked)), "why": "reboot"])
                osApply(.deviceLocked)
            } else {
                rec.record(.deviceLockError, ["file": SharedDefaults.lockedMarker])
            }
        }
        return true
    }

    /// The first unlock after a reboot: when `os.lockedAfterReboot` is over, or earlier when the
    /// user does something on the device (they unlock it first).
    func unlockDevice(by who: String) {
        guard emulated.unlockAt != nil else { return }
        emulated.unlockAt = nil
        unlink(setup.deviceRootPath + "/" + SharedDefaults.lockedMarker)
        rec.record(.firstUnlock, ["by": who])
        osApply(.firstUnlock)
    }

    var nextReboot: Double? { emulated.rebootsLeft.first.map { setup.deviceStart + Double($0) } }

    /// The workload is over: a host that iOS terminated (force quit, reboot) and the user has not
    /// opened since is opened once, so that the system can finish what is pending while it settles
    /// (recorded as the user's `open_host_to_settle`). A suspended host stays suspended.
    func reopenHostForSettling() {
        guard let host = hostRole, let entry = processes.table.entry(host), entry.heldDownByOS else { return }
        record("open_host_to_settle", [:])
        unlockDevice(by: "user")
        openHost()
    }

    /// `os.faults` that act on the App Group (stale_defaults, torn_write), as the
    /// `SCREENTIME_DEFAULTS_FAULTS` value of each device role they select (PROTOCOL.md §3, EMULATED-IOS.md §10.5).
    static func defaultsFaultEnvironment(_ faults: [FieldFault], roles: [ProcessRole]) -> [String: String] {
        var perRole: [String: DefaultsFaults] = [:]
        let deviceRoles = roles.filter { $0.lifetime != .server }.map(\.name)
        for (i, rule) in faults.enumerated() {
            let targets = rule.roles.isEmpty ? deviceRoles : deviceRoles.filter { rule.roles.contains($0) }
            for role in targets {
                switch rule.kind {
                case .staleDefaults(let seconds):
                    perRole[role, default: DefaultsFaults()].stale.append(
                        .init(seconds: seconds, from: rule.window?.lowerBound, to: rule.window?.upperBound))
                case .tornWrite:
                    perRole[role, default: DefaultsFaults()].torn.append(
                        .init(from: rule.window?.lowerBound, to: rule.window?.upperBound, token: "f\(i)", maxCount: rule.maxCount ?? 1))
                default:
                    break
                }
            }
        }
        return perRole.mapValues { $0.encoded() }
    }
}
