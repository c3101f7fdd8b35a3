import Foundation
import HarnessKit
import History
import ScreenTimeModel
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// A system that probes the emulated iOS (EMULATED-IOS.md §10) through real processes written against
/// the Apple-named frameworks (`sth-test-helper osprobe host|monitor|shield|config`). It has no
/// protocol of its own: the scenario's `probe.steps` say what the host app asks the frameworks for
/// and what the user does, and the tests read the history for what iOS did.
///
///     probe:
///       shieldResponse: close            close | defer | none: what the shield-action extension answers
///       steps:
///         - { at: 1m, do: monitor, activity: a, start: "10:00", end: "10:30", repeats: "true" }
///         - { at: "09:50", every: day, do: read }     local times of day (LocalTimeSchedule)
struct OSProbePack: SystemPack {
    static let id = "osprobe"
    /// Steps tapped into the host's inbox (framework calls); the others are the user's.
    static let hostActions: Set<String> = [
        "authorize", "monitor", "monitor_many", "stop", "shield", "restrict", "unshield", "notify_auth", "notify", "write_pair", "read",
    ]
    static let userActions: Set<String> = [
        "useApp", "press", "openHost", "leaveHost", "forceQuitHost", "tapNotification", "inspectHost", "inspectNotifications",
        "deleteApp", "installApp", "visitWebsite",
    ]
    static let argumentKeys = [
        "activity", "start", "end", "startDay", "endDay", "repeats", "warningMinutes", "event", "eventApp", "thresholdMinutes", "apps", "app",
        "seconds", "button", "identifier", "action", "afterSeconds", "n", "count", "denyAppRemoval", "denyAppInstallation", "webFilter",
        "webShield", "domain", "adult",
    ]

    struct Step: Sendable, Equatable {
        var offsets: [Double]?
        var schedule: LocalTimeSchedule?
        var kind: String
        var args: [String: String]
    }

    struct Configuration: Sendable, Equatable {
        var shieldResponse: String
        var steps: [Step]
    }

    struct Action: Codable, Sendable, Equatable {
        var kind: String
        var args: [String: String]
    }

    struct Summary: Encodable, Sendable, Equatable {
        var steps: Int
    }

    var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "OS probe (test system)", seed: "test", variants: ["as-written", "hardened"], appGroups: ["group.test.osprobe"],
            roles: [
                ProcessRole(name: "host", lifetime: .app, executable: "sth-test-helper", arguments: ["osprobe", "host"], summary: "the app"),
                ProcessRole(
                    name: "monitor", lifetime: .extension(.deviceActivityMonitor), executable: "sth-test-helper", arguments: ["osprobe", "monitor"],
                    summary: "DeviceActivityMonitor"),
                ProcessRole(
                    name: "shield", lifetime: .extension(.shieldAction), executable: "sth-test-helper", arguments: ["osprobe", "shield"],
                    summary: "ShieldActionDelegate"),
                ProcessRole(
                    name: "config", lifetime: .extension(.shieldConfiguration), executable: "sth-test-helper", arguments: ["osprobe", "config"],
                    summary: "ShieldConfigurationDataSource"),
            ],
            invariants: [CoreRules.runSettles], scenarioKeys: ["probe"], defaultSettleSeconds: 45 * 60)
    }

    func configuration(from sections: ScenarioSections) throws(ScenarioError) -> Configuration {
        let probe = try sections.required("probe").section(allowed: ["shieldResponse", "steps"])
        var response = "none"
        if let v = probe["shieldResponse"] {
            response = try v.string()
            guard ["close", "defer", "none"].contains(response) else { throw v.error("\(v.path): expected close, defer or none, got '\(response)'") }
        }
        var steps: [Step] = []
        for item in try probe.required("steps").list(expected: "a list of steps") {
            let s = try item.section(allowed: ["at", "every", "do"] + Self.argumentKeys)
            let kindValue = try s.required("do")
            let kind = try kindValue.string()
            guard Self.hostActions.contains(kind) || Self.userActions.contains(kind) else {
                throw kindValue.error("\(kindValue.path): unknown step '\(kind)'; known: \((Self.hostActions.union(Self.userActions)).sorted().joined(separator: ", "))")
            }
            var args: [String: String] = [:]
            for key in Self.argumentKeys {
                guard let v = s[key] else { continue }
                if let text = try? v.string() { args[key] = text } else { args[key] = String(try v.int(in: 0...1_000_000)) }
            }
            let at = try s.required("at")
            if let text = try? at.string(), text.contains(":") {
                steps.append(Step(offsets: nil, schedule: try s.localTimeSchedule(), kind: kind, args: args))
            } else {
                steps.append(Step(offsets: [Double(try at.duration())], schedule: nil, kind: kind, args: args))
            }
        }
        return Configuration(shieldResponse: response, steps: steps)
    }

    func plan(_ c: Configuration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> WorkloadPlan<Action, Summary> {
        var actions: [PlannedAction<Action>] = []
        for step in c.steps {
            let offsets = step.offsets ?? step.schedule!.offsets(within: Double(deviceMillis) / 1000)
            for t in offsets where t * 1000 <= Double(deviceMillis) {
                actions.append(PlannedAction(atDeviceOffsetSeconds: t, action: Action(kind: step.kind, args: step.args)))
            }
        }
        // Stable: steps at one instant keep the scenario's order.
        let sorted = actions.enumerated().sorted { ($0.element.atDeviceOffsetSeconds, $0.offset) < ($1.element.atDeviceOffsetSeconds, $1.offset) }
        return WorkloadPlan(actions: sorted.map(\.element), summary: Summary(steps: sorted.count))
    }

    func launchArguments(for role: ProcessRole, configuration: Configuration, run: RunPaths) -> [String] {
        role.name == "host" ? ["--shield-response", configuration.shieldResponse] : []
    }

    func move(_ action: Action, seeing screen: any UserScreen) -> UserMove {
        var fields = action.args
        fields["step"] = action.kind
        let a = action.args
        func probe(_ steps: [UserStep]) -> UserMove { UserMove("probe", fields, steps: steps) }
        switch action.kind {
        case "monitor_many":
            return probe((1...(Int(a["count"] ?? "1") ?? 1)).map { i in
                var f = a
                f["activity"] = "\(a["activity"] ?? "many")-\(i)"
                return .tap(role: "host", AppMessage(action: "monitor", fields: f))
            })
        case _ where Self.hostActions.contains(action.kind):
            return probe([.tap(role: "host", AppMessage(action: action.kind, fields: a))])
        case "useApp":
            return probe([.useApp(a["app"] ?? "com.video", seconds: Double(a["seconds"] ?? "60") ?? 60)])
        case "press":
            return probe([.pressShield(a["button"] == "secondary" ? .secondaryButtonPressed : .primaryButtonPressed)])
        case "deleteApp": return probe([.deleteApp(a["app"] ?? "com.video")])
        case "installApp": return probe([.installApp(a["app"] ?? "com.video")])
        case "visitWebsite": return probe([.visitWebsite(a["domain"] ?? "example.com", adult: a["adult"] == "true")])
        case "openHost": return probe([.openHost])
        case "leaveHost": return probe([.leaveHost])
        case "forceQuitHost": return probe([.forceQuitHost])
        case "tapNotification":
            let action = a["action"] ?? "default"
            return probe([.tapNotification(
                identifier: a["identifier"] ?? "n1",
                action: action == "default" ? "com.apple.UNNotificationDefaultActionIdentifier" : action == "dismiss" ? "com.apple.UNNotificationDismissActionIdentifier" : action)])
        case "inspectNotifications":
            return probe([.note("notification_center", ["identifiers": screen.deliveredNotifications.joined(separator: ",")])])
        case "inspectHost":
            let (pid, state) = Self.hostProcessState()
            return probe([.note("inspect", ["hostPid": pid.map(String.init) ?? "-", "state": state])])
        default:
            return probe([])
        }
    }

    /// The real state of the running host process (`/proc/<pid>/stat`'s third field: `T` stopped,
    /// `S` sleeping, `R` running): the children of this test process running `osprobe host`.
    static func hostProcessState() -> (Int32?, String) {
        let me = getpid()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let rest = stat[stat.index(after: close)...].split(separator: " ")
            guard rest.count > 2, Int32(rest[1]) == me, rest[0] != "Z",
                let cmd = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                String(decoding: cmd, as: UTF8.self).contains("osprobe\u{0}host")
            else { continue }
            return (pid, String(rest[0]))
        }
        return (nil, "none")
    }

    func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: "OSProbe", reason: "no run_finished")
        }
        let outcome = CoreRules.runSettles(history)
        return CheckReport(
            checker: "OSProbe", decided: true, results: [outcome.result], violations: outcome.violations,
            latencies: [])
    }
}
