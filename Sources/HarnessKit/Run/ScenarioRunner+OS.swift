import AppGroup
import Foundation
import ScreenTimeModel
import ScreenTimeOS
import ScreenTimeShims
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
        var configuration = DeviceOS.Configuration(
            timeZone: o.scenario.clock.timeZone, extensionPoints: Self.extensionPoints(of: pack.descriptor),
            backgroundGraceSeconds: Double(s.backgroundGraceSeconds), hostLifecycle: s.hostLifecycle, appCategories: s.appCategories,
            faults: s.faults, seed: o.seed, familyControls: s.authorization, notifications: s.notifications)
        configuration.hostNotices = pack.descriptor.roles.first { $0.lifetime == .app }?.notices ?? .none
        return DeviceOS(configuration: configuration, now: start)
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
        osScanRefusals()
        osScanNotifications()
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

    /// Refused `startMonitoring` calls the framework filed: shown to the OS once, then deleted.
    func osScanRefusals() {
        guard let area = try? device.area(SystemPaths.deviceActivityRefusals) else { return }
        let (records, errors) = area.readAll(MonitoringRefusalRecord.self)
        for e in errors { rec.record("system_file_error", ["error": e.description]) }
        for (name, r) in records.sorted(by: { $0.name < $1.name }) {
            area.directory.remove(name)
            osApply(.monitoringRefused(activity: r.activity, error: r.error, detail: r.detail))
        }
    }

    /// Pending notification requests and the app's removals of delivered ones.
    func osScanNotifications() {
        let pending = NotificationAuthority.pending(on: device)
        if pending.records != lastPendingNotifications {
            lastPendingNotifications = pending.records
            osApply(.notificationRequests(pending.records))
        }
        if let removed = try? NotificationAuthority.applyRemovals(on: device), !removed.isEmpty {
            osApply(.notificationsRemoved(removed))
        }
    }

    /// Open authorization prompts (FamilyControls, notifications) go to the OS, which answers as
    /// the scenario's user would. Cheap enough to look at while waiting for quiet: an app blocked
    /// in a prompt is not idle until it is answered.
    @discardableResult
    func answerPrompts() -> Bool {
        let gens = [SystemPaths.authorizationChanged, SystemPaths.notificationsChanged].map { (try? center.generation($0)) ?? 0 }
        guard gens != promptGenerations else { return false }
        promptGenerations = gens
        var answered = false
        if let r = try? FamilyControlsAuthority.openRequest(on: device), !answeredPrompts.contains(r.id) {
            answeredPrompts.insert(r.id)
            osApply(.authorizationRequested(.familyControls, requestId: r.id))
            answered = true
        }
        if let r = try? NotificationAuthority.openAuthorizationRequest(on: device), !answeredPrompts.contains(r.id) {
            answeredPrompts.insert(r.id)
            osApply(.authorizationRequested(.notifications, requestId: r.id))
            answered = true
        }
        return answered
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
            case .setAuthorization(let kind, let status, let request):
                do {
                    switch kind {
                    case .familyControls: try FamilyControlsAuthority.setStatus(status, answering: request, on: device)
                    case .notifications:
                        try NotificationAuthority.setAuthorization(
                            status, options: status == "denied" ? [] : ["alert", "badge", "sound"], answering: request, on: device)
                    }
                } catch {
                    rec.record("system_file_error", ["error": "\(error)"])
                }
            case .clearManagedSettings:
                clearArea(SystemPaths.managedSettings, post: SystemPaths.managedSettingsChanged)
            case .clearRegistrations:
                clearArea(SystemPaths.deviceActivity, post: SystemPaths.deviceActivityChanged)
            case .deliverNotification(let request):
                do { try NotificationAuthority.deliver(request, at: Date(timeIntervalSince1970: now), on: device) } catch {
                    rec.record("system_file_error", ["error": "\(error)"])
                }
            case .discardNotification(let identifier):
                if let f = SystemFileName.encode(identifier), let area = try? device.area(SystemPaths.pendingNotifications) {
                    area.directory.remove(f)
                }
            case .notificationResponse(let identifier, let action):
                respond(toNotification: identifier, action: action)
            case .tellHost(let action, let fields):
                // iOS's own message: written to the inbox however the host runs (read at launch).
                if let host = hostRole { sendToInbox(host, AppMessage(action: action, fields: fields)) }
            }
        }
        osDeadline = os.nextDeadline()
    }

    func clearArea(_ path: String, post: String) {
        guard let area = try? device.area(path) else { return }
        for name in (try? area.recordNames()) ?? [] { area.directory.remove(name) }
        try? area.post(post)
    }

    /// The user tapped a delivered notification: it leaves Notification Center and its response
    /// goes to the host's inbox (`notification_response`, PROTOCOL.md §7.5), which the host reads
    /// when it runs.
    func respond(toNotification identifier: String, action: String) {
        guard let host = hostRole else { return }
        do {
            guard let fields = try NotificationAuthority.tap(identifier, actionIdentifier: action, on: device) else {
                rec.record("notification_tap_unavailable", ["identifier": identifier, "why": "not in delivered.json"])
                return
            }
            // The OS already launched or continued the host as the action asks (foreground or
            // background): not a user tap inside the app, which would foreground it.
            sendToInbox(host, AppMessage(action: NotificationResponseMessage.action, fields: fields))
        } catch {
            rec.record("system_file_error", ["error": "\(error)"])
        }
    }

    /// Whether tapping `action` of notification `identifier` opens the app: the notification itself
    /// does, dismissing does not, an action does when its category gives it `.foreground`.
    func notificationActionForegrounds(_ identifier: String, action: String) -> Bool {
        if action == NotificationResponseMessage.defaultActionIdentifier { return true }
        if action == NotificationResponseMessage.dismissActionIdentifier { return false }
        let delivered = (try? NotificationAuthority.delivered(on: device)) ?? []
        guard let category = delivered.last(where: { $0.request.identifier == identifier })?.request.content.categoryIdentifier,
            let c = ((try? NotificationAuthority.categories(on: device)) ?? []).first(where: { $0.identifier == category }),
            let a = c.actions.first(where: { $0.identifier == action })
        else { return false }
        return a.options.contains("foreground")
    }

    /// Scripted OS events at device offsets (`os.revokeAt`, `os.timeZoneChanges`); true if any ran.
    func osScheduleIfDue() -> Bool {
        let start = o.scenario.clock.start.timeIntervalSince1970
        var any = false
        while let next = revocationsLeft.first, start + Double(next) <= now {
            revocationsLeft.removeFirst()
            osApply(.revokeAuthorization)
            any = true
        }
        while let next = timeZoneChangesLeft.first, start + Double(next.atSeconds) <= now {
            timeZoneChangesLeft.removeFirst()
            deviceTimeZone = next.timeZone
            do {
                if stepped {
                    try clock.write(.stepped(at: steppedNow, timeZone: deviceTimeZone), to: root)
                } else if var cfg = clock.current {
                    cfg.timeZone = deviceTimeZone
                    try clock.write(cfg, to: root)
                }
            } catch {
                rec.record("clock_error", ["error": "\(error)"])
            }
            osApply(.timeZone(next.timeZone))
            any = true
        }
        return any
    }

    var nextScheduledOSEvent: Double? {
        let start = o.scenario.clock.start.timeIntervalSince1970
        return ([revocationsLeft.first] + [timeZoneChangesLeft.first?.atSeconds]).compactMap { $0 }.map { start + Double($0) }.min()
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

extension ScenarioRunner {
    /// `os.faults` that act on the App Group (stale_defaults, torn_write), as the
    /// `SCREENTIME_DEFAULTS_FAULTS` value of each device role they select (PROTOCOL.md §3, §10.5).
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
