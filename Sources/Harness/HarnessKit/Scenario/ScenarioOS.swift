// The `os:` section of a scenario: how the emulated iOS behaves (EMULATED-IOS.md §10, DeviceOS).
//
//   os:
//     hostLifecycle: true            = true; the host runs only in the foreground and is suspended
//                                     (SIGSTOP) backgroundGraceSeconds after the user leaves it
//     backgroundGraceSeconds: 10     = 10; 0...3600
//     appCategories: { com.example.video: entertainment }   = none; category of each app the
//                                     user may open (category shields and events)
//     reboots: [2h, 5h30m]           = none; device offsets from clock.start: every process killed,
//                                     ManagedSettings, containers and registrations persist
//     authorization: approved        = not modelled (no status file until the app asks; prompts are
//                                     approved); approved | denied: the status is notDetermined
//                                     from the start and the user answers every prompt so
//     revokeAt: [3h]                 = none; device offsets: the user revokes FamilyControls
//                                     (shields cleared, monitoring stopped, EMULATED-IOS.md §10.3)
//     notifications: authorized      = authorized; the user's answer to the notification prompt:
//                                     authorized | denied | provisional
//     timeZoneChanges:               = none; the device moves (schedules re-evaluated in the new zone)
//       - { at: 3h, to: America/New_York }
//     rules:                         = Apple's documented rules; alternatives seen on real devices
//       startAtRegistration: missed  runs | missed: an interval starting the moment it is registered
//                                     is not run (no intervalDidStart / intervalDidEnd for it)
//       thresholds: atFirstUse       byUse | atFirstUse: every event reaches its threshold at the
//                                     first use of the device in its interval
//       pastActivity: always         asRequested | always: use in the interval before the
//                                     registration counts toward thresholds whatever the event says
//     appGroupUnavailable: [monitor]  = none; roles whose app code finds no App Group (a misconfigured
//                                     entitlement): UserDefaults(suiteName: "group.…") is nil, the
//                                     container URL nil; the app's fallback path runs (EMULATED-IOS.md §7.11)
//     faults:                        = none; iOS misbehaving, each rule seeded:
//       - kind: drop                 drop | delay | duplicate | batch | reorder | kill_mid_call |
//                                     stale_defaults | torn_write
//         callbacks: [intervalDidEnd]   = every callback; names as in the history
//         activity: "session-*"      = any; `*` is a wildcard
//         window: [1h, 3h]           = the whole run; device offsets from clock.start
//         probability: 0.5           = 1
//         maxCount: 2                = unbounded
//         after: 3                   = 0; the first 3 calls it selects pass untouched (a budget)
//         per: day                   = run; maxCount and after count per local day of the device
//         when: [beforeFirstUnlock]  = always; device states of which one must hold: beforeFirstUnlock,
//                                     unlocked, hostNotRunning, hostForeground, hostBackground, hostSuspended
//         following: { event: reboot, within: 10m }   = whatever came before; only within this long
//                                     after the latest event: reboot, firstUnlock, timeZoneChange,
//                                     revocation, hostLaunch, hostExit, or a callback's name
//         delay: [1m, 10m]           delay only (required): how late, drawn per call
//         until: "00:05"             batch only (required): held until this local time
//         stale: 10m                 stale_defaults only (required): how long a reader keeps its cache
//         roles: [host]              stale_defaults, torn_write: whose processes; = every device role
//       (stale_defaults and torn_write act inside the processes, on the App Group: callbacks and
//        activity do not apply; torn_write's maxCount defaults to 1)
import AppGroup
import Foundation
import SystemKit
import Yams

extension Scenario {
    /// What the emulated iOS does beyond Apple's documented rules: the host's lifecycle, the apps'
    /// categories, reboots and field faults.
    public struct OSSettings: Sendable, Equatable {
        public var hostLifecycle = true
        public var backgroundGraceSeconds = 10
        public var appCategories: [String: String] = [:]
        /// Device seconds after `clock.start`.
        public var reboots: [Int] = []
        /// Device seconds each reboot leaves the device locked before its first unlock (data
        /// protection: no process can read the App Group or its own store); nil = unlocked at once.
        public var lockedAfterReboot: Int?
        public var faults: [FieldFault] = []
        /// Roles whose app code finds no App Group (`appGroupUnavailable`).
        public var appGroupUnavailable: [String] = []
        /// The user's answer to FamilyControls prompts; nil = not modelled from the start.
        public var authorization: String?
        /// Device seconds after `clock.start` at which the user revokes FamilyControls.
        public var revokeAt: [Int] = []
        /// The user's answer to the notification prompt.
        public var notifications = "authorized"
        /// Device seconds after `clock.start`, and the IANA zone the device moves to.
        public var timeZoneChanges: [TimeZoneChange] = []
        /// Documented alternatives to the OS's rules (`os.rules`, EMULATED-IOS.md §10.6).
        public var rules = OSRules()

        public init() {}
    }

    public struct TimeZoneChange: Sendable, Equatable {
        public var atSeconds: Int
        public var timeZone: String
        public init(atSeconds: Int, timeZone: String) {
            self.atSeconds = atSeconds
            self.timeZone = timeZone
        }
    }
}

extension NodeReader {
    static let osKeys = [
        "hostLifecycle", "backgroundGraceSeconds", "appCategories", "reboots", "lockedAfterReboot", "authorization", "revokeAt",
        "notifications", "timeZoneChanges", "rules", "faults", "appGroupUnavailable",
    ]
    static let faultKeys = [
        "kind", "callbacks", "activity", "window", "probability", "maxCount", "after", "per", "when", "following", "delay", "until", "stale", "roles",
    ]
    static let faultKinds = ["drop", "delay", "duplicate", "batch", "reorder", "kill_mid_call", "stale_defaults", "torn_write"]

    /// `roles`: the system's device roles (what `roles:` of a defaults fault may name).
    /// What a fault rule must be checked against so that a rule that cannot fire is an error, not
    /// a run that passes while the user believes the fault was tested: the run's
    /// workload length (faults act only during the workload; the settle time is fault-free) and
    /// the extension points the system has.
    struct FaultContext {
        var durationSeconds: Int?
        var extensionPoints: Set<ExtensionPoint>?
        /// The device events the scenario has (filled from `os:` itself): a rule that follows or
        /// waits for one the scenario never makes cannot fire.
        var deviceEvents: Set<String> = Set(FieldFault.relationEvents)
    }

    func os(_ node: Node?, start: Date, roles: [String] = [], faultContext: FaultContext = .init()) throws(ScenarioError) -> Scenario.OSSettings {
        var settings = Scenario.OSSettings()
        guard let node else { return settings }
        let section = try fields(node, path: "os", allowed: Self.osKeys)
        if let v = section["appGroupUnavailable"] {
            let names = try stringList(v, "os.appGroupUnavailable", nonEmpty: true)
            for n in names where !roles.isEmpty && !roles.contains(n) {
                throw error(v, "os.appGroupUnavailable: unknown role '\(Excerpt.inner(n))'; this system's device roles: \(roles.joined(separator: ", "))")
            }
            settings.appGroupUnavailable = names
        }
        if let v = section["hostLifecycle"] { settings.hostLifecycle = try bool(v, "os.hostLifecycle") }
        if let v = section["backgroundGraceSeconds"] { settings.backgroundGraceSeconds = try int(v, "os.backgroundGraceSeconds", in: 0...3600) }
        if let v = section["appCategories"] {
            let apps = try fields(v, path: "os.appCategories", allowed: nil)
            for (app, categoryNode) in apps.values { settings.appCategories[app] = try string(categoryNode, "os.appCategories.\(app)") }
        }
        if let v = section["reboots"] {
            for item in try list(v, "os.reboots", expected: "a list of durations after clock.start") {
                settings.reboots.append(try duration(item, "os.reboots"))
            }
            settings.reboots.sort()
        }
        if let v = section["lockedAfterReboot"] {
            guard !settings.reboots.isEmpty else {
                throw error(v, "os.lockedAfterReboot: there is no reboot to lock the device after; add os.reboots or remove this key")
            }
            settings.lockedAfterReboot = try duration(v, "os.lockedAfterReboot")
        }
        if let v = section["authorization"] {
            let answer = try string(v, "os.authorization")
            guard ["approved", "denied"].contains(answer) else {
                throw error(v, "os.authorization: expected approved or denied, got '\(Excerpt.inner(answer))'")
            }
            settings.authorization = answer
        }
        if let v = section["revokeAt"] {
            for item in try list(v, "os.revokeAt", expected: "a list of durations after clock.start") {
                settings.revokeAt.append(try duration(item, "os.revokeAt"))
            }
            settings.revokeAt.sort()
        }
        if let v = section["notifications"] {
            let answer = try string(v, "os.notifications")
            guard ["authorized", "denied", "provisional"].contains(answer) else {
                throw error(v, "os.notifications: expected authorized, denied or provisional, got '\(Excerpt.inner(answer))'")
            }
            settings.notifications = answer
        }
        if let v = section["timeZoneChanges"] {
            for (i, item) in try list(v, "os.timeZoneChanges", expected: "a list of { at: <duration>, to: <IANA zone> }").enumerated() {
                let path = "os.timeZoneChanges[\(i)]"
                let f = try fields(item, path: path, allowed: ["at", "to"])
                let at = try duration(try f.required("at"), "\(path).at")
                let toNode = try f.required("to")
                let zone = try string(toNode, "\(path).to")
                guard TimeZone(identifier: zone) != nil else {
                    throw error(toNode, "\(path).to: unknown time zone '\(Excerpt.inner(zone))'; use an IANA identifier such as America/New_York")
                }
                settings.timeZoneChanges.append(Scenario.TimeZoneChange(atSeconds: at, timeZone: zone))
            }
            settings.timeZoneChanges.sort { $0.atSeconds < $1.atSeconds }
        }
        if let v = section["rules"] { settings.rules = try rules(v, context: faultContext) }
        if let v = section["faults"] {
            var context = faultContext
            // Which device events this scenario makes (the host launches and exits in every run).
            context.deviceEvents = ["hostLaunch", "hostExit"]
            if !settings.reboots.isEmpty { context.deviceEvents.insert("reboot") }
            if settings.lockedAfterReboot != nil { context.deviceEvents.insert("firstUnlock") }
            if !settings.timeZoneChanges.isEmpty { context.deviceEvents.insert("timeZoneChange") }
            if !settings.revokeAt.isEmpty { context.deviceEvents.insert("revocation") }
            for (i, item) in try list(v, "os.faults", expected: "a list of fault rules").enumerated() {
                settings.faults.append(try fault(item, path: "os.faults[\(i)]", start: start, roles: roles, context: context))
            }
        }
        return settings
    }

    /// `os.rules`: each key picks one of its documented alternatives (`OSRules.keys`).
    func rules(_ node: Node, context: FaultContext) throws(ScenarioError) -> OSRules {
        let f = try fields(node, path: "os.rules", allowed: OSRules.keys.map(\.key))
        var rules = OSRules()
        for (key, values) in OSRules.keys {
            guard let v = f[key] else { continue }
            let text = try string(v, "os.rules.\(key)")
            guard values.contains(text) else {
                throw error(v, "os.rules.\(key): expected \(values.joined(separator: " or ")), got '\(Excerpt.inner(text))'")
            }
            // Every rule changes only what DeviceActivity calls the monitor extension with.
            if let points = context.extensionPoints, !points.contains(.deviceActivityMonitor), text != values[0] {
                throw error(v, "os.rules.\(key): this system has no DeviceActivity monitor extension, so this rule can never act; remove it")
            }
            switch key {
            case "startAtRegistration": rules.startAtRegistration = OSRules.StartAtRegistration(rawValue: text)!
            case "pastActivity": rules.pastActivity = OSRules.PastActivity(rawValue: text)!
            default: rules.thresholds = OSRules.Thresholds(rawValue: text)!
            }
        }
        return rules
    }

    func fault(_ node: Node, path: String, start: Date, roles: [String] = [], context: FaultContext = .init()) throws(ScenarioError) -> FieldFault {
        let f = try fields(node, path: path, allowed: Self.faultKeys)
        let kindNode = try f.required("kind")
        let name = try string(kindNode, "\(path).kind")
        let kind: FieldFault.Kind
        switch name {
        case "drop": kind = .drop
        case "torn_write": kind = .tornWrite
        case "stale_defaults":
            kind = .staleDefaults(seconds: Double(try duration(try f.required("stale"), "\(path).stale")))
        case "duplicate": kind = .duplicate
        case "reorder": kind = .reorderAtBoundary
        case "kill_mid_call": kind = .killMidCall
        case "delay":
            let range = try f.required("delay")
            let items = try list(range, "\(path).delay", expected: "a [min, max] list of two durations")
            guard items.count == 2 else { throw error(range, "\(path).delay: expected [min, max], got a list of \(items.count)") }
            let lo = try duration(items[0], "\(path).delay min"), hi = try duration(items[1], "\(path).delay max")
            guard lo <= hi else { throw error(range, "\(path).delay: min \(lo)s is greater than max \(hi)s") }
            kind = .delay(Double(lo)...Double(hi))
        case "batch":
            let untilNode = try f.required("until")
            let text = try string(untilNode, "\(path).until")
            let parts = text.split(separator: ":").map { Int($0) }
            guard parts.count == 2, let h = parts[0], let m = parts[1], (0..<24).contains(h), (0..<60).contains(m) else {
                throw error(untilNode, "\(path).until: expected a local time \"HH:MM\", got '\(Excerpt.inner(text))'")
            }
            kind = .batchUntil(hour: h, minute: m)
        default:
            throw error(kindNode, "\(path).kind: unknown fault '\(Excerpt.inner(name))'; known: \(Self.faultKinds.joined(separator: ", "))")
        }
        let onlyFor = ["delay": "delay", "until": "batch", "stale": "stale_defaults"]
        for (key, owner) in onlyFor.sorted(by: { $0.key < $1.key }) where f[key] != nil && name != owner {
            throw error(f[key], "\(path).\(key): only for kind \(owner)")
        }
        let defaultsFault = kind.isDefaultsFault
        for key in ["callbacks", "activity"] where defaultsFault && f[key] != nil {
            throw error(f[key], "\(path).\(key): \(name) acts on the App Group, not on callbacks; use roles and window")
        }
        if !defaultsFault, let v = f["roles"] { throw error(v, "\(path).roles: only for stale_defaults and torn_write") }
        var rule = FieldFault(kind: kind)
        if let v = f["callbacks"] {
            let names = try stringList(v, "\(path).callbacks", nonEmpty: true)
            let known = Set(ExtensionCall.callbackNames)
            for n in names where !known.contains(n) {
                throw error(v, "\(path).callbacks: unknown callback '\(Excerpt.inner(n))'; known: \(ExtensionCall.callbackNames.joined(separator: ", "))")
            }
            rule.callbacks = Set(names)
        }
        let monitorNames = Set(MonitorCallback.allCases.map(\.rawValue))
        if let v = f["activity"] {
            rule.activityPattern = try string(v, "\(path).activity")
            // Only DeviceActivity callbacks carry an activity: a selector on others matches nothing.
            if !rule.callbacks.isEmpty && rule.callbacks.isDisjoint(with: monitorNames) {
                throw error(v, "\(path).activity: \(rule.callbacks.sorted().joined(separator: ", ")) carry no activity, so this rule can never fire; drop activity or add a DeviceActivity callback (\(MonitorCallback.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
        }
        if case .batchUntil = kind {
            // iOS batches DeviceActivity callbacks (field reports: the night's callbacks at once);
            // a shield call is made while the user looks at the shield, never hours later.
            let shieldOnly = rule.callbacks.subtracting(monitorNames)
            if !shieldOnly.isEmpty {
                throw error(f["callbacks"], "\(path).callbacks: batch holds DeviceActivity callbacks only; \(shieldOnly.sorted().joined(separator: ", ")) cannot be batched (use delay or drop)")
            }
            if rule.callbacks.isEmpty { rule.callbacks = monitorNames }
        }
        if let points = context.extensionPoints, !kind.isDefaultsFault {
            let names = rule.callbacks.isEmpty ? Set(ExtensionCall.callbackNames) : rule.callbacks
            let reachable = names.filter { points.contains(ExtensionCall.point(ofCallback: $0)) }
            if reachable.isEmpty {
                throw error(f["callbacks"] ?? kindNode, "\(path): this system has no extension that receives \(names.sorted().joined(separator: ", ")), so this rule can never fire")
            }
        }
        if let v = f["window"] {
            let items = try list(v, "\(path).window", expected: "a [from, to] list of two durations after clock.start")
            guard items.count == 2 else { throw error(v, "\(path).window: expected [from, to], got a list of \(items.count)") }
            let from = try duration(items[0], "\(path).window from"), to = try duration(items[1], "\(path).window to")
            guard from <= to else { throw error(v, "\(path).window: from \(from)s is after to \(to)s") }
            if let d = context.durationSeconds, from >= d {
                throw error(v, "\(path).window: starts \(from)s after clock.start, when the \(d)s workload is over (faults do not act while the run settles); move it inside [0, \(d)s)")
            }
            let s = start.timeIntervalSince1970
            rule.window = (s + Double(from))...(s + Double(to))
        }
        if let v = f["probability"] { rule.probability = try probability(v, "\(path).probability") }
        if let v = f["maxCount"] { rule.maxCount = try int(v, "\(path).maxCount", in: 1...1_000_000) }
        if let v = f["after"] {
            if kind.isDefaultsFault { throw error(v, "\(path).after: only for faults on callbacks (\(name) acts inside the processes)") }
            rule.after = try int(v, "\(path).after", in: 0...1_000_000)
        }
        if let v = f["per"] {
            if kind.isDefaultsFault { throw error(v, "\(path).per: only for faults on callbacks (\(name) acts inside the processes)") }
            let text = try string(v, "\(path).per")
            guard let per = FieldFault.Budget(rawValue: text) else {
                throw error(v, "\(path).per: expected run or day, got '\(Excerpt.inner(text))'")
            }
            guard rule.maxCount != nil || rule.after > 0 else {
                throw error(v, "\(path).per: counts maxCount or after; give one of them")
            }
            rule.per = per
        }
        if let v = f["when"] {
            if kind.isDefaultsFault { throw error(v, "\(path).when: only for faults on callbacks (\(name) acts inside the processes)") }
            let known = FieldFault.DeviceCondition.allCases.map(\.rawValue)
            for n in try stringList(v, "\(path).when", nonEmpty: true) {
                guard let c = FieldFault.DeviceCondition(rawValue: n) else {
                    throw error(v, "\(path).when: unknown device state '\(Excerpt.inner(n))'; known: \(known.joined(separator: ", "))")
                }
                rule.when.insert(c)
            }
            if rule.when == [.beforeFirstUnlock], !context.deviceEvents.contains("firstUnlock") {
                throw error(v, "\(path).when: the device is never locked before a first unlock in this scenario (no os.lockedAfterReboot), so this rule can never fire")
            }
        }
        if let v = f["following"] {
            if kind.isDefaultsFault { throw error(v, "\(path).following: only for faults on callbacks (\(name) acts inside the processes)") }
            let g = try fields(v, path: "\(path).following", allowed: ["event", "within"])
            let eventNode = try g.required("event")
            let event = try string(eventNode, "\(path).following.event")
            let callbacks = Set(ExtensionCall.callbackNames)
            if FieldFault.relationEvents.contains(event) {
                guard context.deviceEvents.contains(event) else {
                    let key = ["reboot": "os.reboots", "firstUnlock": "os.lockedAfterReboot", "timeZoneChange": "os.timeZoneChanges", "revocation": "os.revokeAt"][event] ?? event
                    throw error(eventNode, "\(path).following.event: this scenario has no \(event) (no \(key)), so this rule can never fire")
                }
            } else if callbacks.contains(event) {
                if let points = context.extensionPoints, !points.contains(ExtensionCall.point(ofCallback: event)) {
                    throw error(eventNode, "\(path).following.event: this system has no extension that receives \(event), so this rule can never fire")
                }
            } else {
                throw error(eventNode, "\(path).following.event: unknown event '\(Excerpt.inner(event))'; known: \((FieldFault.relationEvents + ExtensionCall.callbackNames).joined(separator: ", "))")
            }
            let within = try duration(try g.required("within"), "\(path).following.within")  // > 0: duration() refuses 0
            rule.following = FieldFault.Relation(event: event, withinSeconds: Double(within))
        }
        if case .tornWrite = kind {
            if rule.maxCount == nil { rule.maxCount = 1 }
            if rule.maxCount! > 1000 { throw error(f["maxCount"], "\(path).maxCount: torn_write allows at most 1000") }
        }
        if let v = f["roles"] {
            let names = try stringList(v, "\(path).roles", nonEmpty: true)
            for n in names where !roles.isEmpty && !roles.contains(n) {
                throw error(v, "\(path).roles: unknown role '\(Excerpt.inner(n))'; this system's device roles: \(roles.joined(separator: ", "))")
            }
            rule.roles = Set(names)
        }
        return rule
    }
}
