import Foundation
import HarnessKit
import History
import ScreenTimeModel
import SystemKit
import Until

/// Until (seed 003) plugged into the harness: its two processes, its scenario keys, what the user
/// does (the guide's "Testing" steps, then days of opening monitored apps), and the guide's promise.
public struct UntilPack: SystemPack {
    public static let id = "until"
    static let executable = "sth-until"
    static let hostRole = "host-app"
    static let monitorRole = "monitor-extension"

    public init() {}

    public struct Configuration: Sendable, Equatable {
        /// The apps picked in FamilyActivityPicker (bundle ids).
        public var apps: [String]
        /// Monitored-app openings per device day.
        public var opensPerDay: ClosedRange<Int>
        /// How long each opening keeps the app frontmost (device seconds).
        public var useSeconds: ClosedRange<Int>
        /// Times per day the user opens the host, and how long each visit lasts.
        public var hostVisitsPerDay: ClosedRange<Int>
        public var visitSeconds: ClosedRange<Int>
        /// Chance that a visit ends by swiping the host away instead of going home.
        public var forceQuitProbability: Double
        /// Chance that an opening comes straight from the host (the user checks Until, then opens
        /// the app): the host is then in iOS's background grace, still running, when iOS reports.
        public var fromHostProbability: Double
    }

    /// One thing the user does, flat in `schedule.json`.
    public struct Action: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            case createReminder, selectApps, saveReminder, openApp, openHost, leaveHost, forceQuitHost
        }
        public var kind: Kind
        public var app: String?
        public var apps: [String]?
        public var seconds: Int?

        public init(kind: Kind, app: String? = nil, apps: [String]? = nil, seconds: Int? = nil) {
            self.kind = kind
            self.app = app
            self.apps = apps
            self.seconds = seconds
        }
    }

    public struct Summary: Encodable, Sendable, Equatable {
        public var appOpenings: Int
        public var hostVisits: Int
    }

    public var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "Until", seed: "003", variants: UntilVariant.allCases.map(\.rawValue), appGroups: [UntilKeys.appGroup],
            roles: [
                ProcessRole(
                    name: Self.hostRole, lifetime: .app, executable: Self.executable, arguments: [Self.hostRole],
                    summary: "React Native app + ScreenTimeModule: starts monitoring, reads app-opened events, fires reminders",
                    notices: AppNotices(lifecycle: true), tracesDefaultsWrites: true),
                ProcessRole(
                    name: Self.monitorRole, lifetime: .extension(.deviceActivityMonitor), executable: Self.executable,
                    arguments: [Self.monitorRole],
                    summary: "UntilDeviceActivityMonitor: on the 1 s threshold stores the event and posts com.ibnuj.until.appOpened",
                    tracesDefaultsWrites: true),
            ],
            invariants: UntilChecker.invariants,
            scenarioKeys: ["until"],
            // A report is reminded of at once or at the host's next foreground: minutes are plenty.
            defaultSettleSeconds: 10 * 60,
            latencySeries: [UntilChecker.reportToReminder])
    }

    /// `until: { apps: [...], opensPerDay: [1, 4], useSeconds: [2, 120], hostVisitsPerDay: [0, 2],
    /// visitSeconds: [20, 300], forceQuitProbability: 0.3, fromHostProbability: 0.5 }`.
    public func configuration(from sections: ScenarioSections) throws(ScenarioError) -> Configuration {
        let s = try sections.required("until").section(allowed: [
            "apps", "opensPerDay", "useSeconds", "hostVisitsPerDay", "visitSeconds", "forceQuitProbability", "fromHostProbability",
        ])
        return Configuration(
            apps: try s.required("apps").stringList(nonEmpty: true),
            opensPerDay: try s["opensPerDay"]?.intRange(in: 0...100) ?? 1...4,
            useSeconds: try s["useSeconds"]?.intRange(in: 1...3_600) ?? 2...120,
            hostVisitsPerDay: try s["hostVisitsPerDay"]?.intRange(in: 0...50) ?? 0...2,
            visitSeconds: try s["visitSeconds"]?.intRange(in: 1...3_600) ?? 20...300,
            forceQuitProbability: try s["forceQuitProbability"]?.probability() ?? 0.3,
            fromHostProbability: try s["fromHostProbability"]?.probability() ?? 0.5)
    }

    /// Set-up first (the guide's Testing steps: trigger, permission, picker, save), then day by day
    /// openings of the picked apps and visits to the host at seeded times, and at the end the user
    /// opens the host and leaves it open ("Reminder should fire"): every report gets its chance.
    public func plan(_ c: Configuration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> WorkloadPlan<Action, Summary> {
        let end = deviceMillis / 1000
        let setUp = 60, finalOpen = end - Self.finalVisitSeconds
        guard finalOpen > setUp + 60 else { return WorkloadPlan(actions: [], summary: Summary(appOpenings: 0, hostVisits: 0)) }
        var actions: [PlannedAction<Action>] = [
            PlannedAction(atDeviceOffsetSeconds: Double(setUp), action: Action(kind: .createReminder)),
            PlannedAction(atDeviceOffsetSeconds: Double(setUp + 10), action: Action(kind: .selectApps, apps: c.apps)),
            PlannedAction(atDeviceOffsetSeconds: Double(setUp + 20), action: Action(kind: .saveReminder)),
            PlannedAction(atDeviceOffsetSeconds: Double(setUp + 30), action: Action(kind: .leaveHost)),
        ]
        var openings = 0, visits = 0
        let from = setUp + 60
        var dayStart = 0
        while dayStart < finalOpen {
            let lo = max(from, dayStart), hi = min(dayStart + 86_400, finalOpen) - 1
            if hi > lo {
                for _ in 0..<generator.int(in: c.opensPerDay) {
                    let at = generator.int(in: lo...hi)
                    let app = c.apps[generator.int(in: 0...(c.apps.count - 1))]
                    let seconds = generator.int(in: c.useSeconds)
                    if generator.chance(c.fromHostProbability) {
                        // The visit ends with the opening: iOS sends the host to the background.
                        let open = max(lo, at - generator.int(in: c.visitSeconds))
                        if open < at {
                            actions.append(PlannedAction(atDeviceOffsetSeconds: Double(open), action: Action(kind: .openHost)))
                            visits += 1
                        }
                    }
                    actions.append(PlannedAction(atDeviceOffsetSeconds: Double(at), action: Action(kind: .openApp, app: app, seconds: seconds)))
                    openings += 1
                }
                for _ in 0..<generator.int(in: c.hostVisitsPerDay) {
                    let at = generator.int(in: lo...hi)
                    let leave = min(at + generator.int(in: c.visitSeconds), finalOpen - 1)
                    let quit = generator.chance(c.forceQuitProbability)
                    actions.append(PlannedAction(atDeviceOffsetSeconds: Double(at), action: Action(kind: .openHost)))
                    actions.append(PlannedAction(atDeviceOffsetSeconds: Double(leave), action: Action(kind: quit ? .forceQuitHost : .leaveHost)))
                    visits += 1
                }
            }
            dayStart += 86_400
        }
        actions.append(PlannedAction(atDeviceOffsetSeconds: Double(finalOpen), action: Action(kind: .openHost)))
        visits += 1
        // Stable: ties keep their planned order (a visit's open before its leave).
        let sorted = actions.enumerated().sorted { ($0.element.atDeviceOffsetSeconds, $0.offset) < ($1.element.atDeviceOffsetSeconds, $1.offset) }.map(\.element)
        return WorkloadPlan(actions: sorted, summary: Summary(appOpenings: openings, hostVisits: visits))
    }

    /// The last visit: the user opens the host this long before the workload ends and stays.
    static let finalVisitSeconds = 20 * 60

    /// A tap the host died in (EMULATED-IOS.md §7.7): the guide's module keeps the picked apps in
    /// memory ("Selected app tokens are stored in the native module"), so a user whose save
    /// vanished with the app is back at its first screen and goes through the reminder again —
    /// the trigger, the picker, save — as they did before (README A-retry). Any other tap: again.
    public func repeatTaps(of interrupted: AppMessage, in role: String, earlier: [AppMessage]) -> [AppMessage] {
        guard interrupted.action == UntilActions.saveReminder else { return [interrupted] }
        let trigger = earlier.last { $0.action == UntilActions.appTrigger }
        let picked = earlier.last { $0.action == UntilActions.selectApps }
        return [trigger, picked, interrupted].compactMap { $0 }.map { AppMessage(action: $0.action, fields: $0.fields, list: $0.list) }
    }

    /// The user, as iOS sees them: taps in the host (opened first), monitored apps opened through
    /// iOS (which counts their use toward the event), the host opened, left, or swiped away.
    public func move(_ action: Action, seeing screen: any UserScreen) -> UserMove {
        switch action.kind {
        case .createReminder:
            return .inHost("create_reminder", role: Self.hostRole, tap: AppMessage(action: UntilActions.appTrigger))
        case .selectApps:
            let apps = action.apps ?? []
            return .inHost("select_apps", ["apps": apps.joined(separator: ",")], role: Self.hostRole, tap: AppMessage(action: UntilActions.selectApps, list: apps))
        case .saveReminder:
            return .inHost("save_reminder", role: Self.hostRole, tap: AppMessage(action: UntilActions.saveReminder))
        case .openApp:
            let app = action.app ?? "", seconds = action.seconds ?? 1
            return UserMove("open_app", ["app": app, "seconds": String(seconds)], steps: [.useApp(app, seconds: Double(seconds))])
        case .openHost:
            return UserMove("open_host", steps: [.openHost])
        case .leaveHost:
            return UserMove("leave_host", steps: [.leaveHost])
        case .forceQuitHost:
            return UserMove("force_quit_host", steps: [.forceQuitHost])
        }
    }

    public func check(_ history: [HistoryEvent]) -> CheckReport { UntilChecker.check(history) }
}
