import HarnessKit
import History
import ScreenTimeModel
import SystemKit

/// __Name__ as the harness sees it: its processes, what a scenario configures, what the user
/// does, and what the app promises.
struct __Name__System: SystemPack {
    static let host = "host"
    static let returner = "returner"
    static let shield = "shield"

    struct Configuration: Sendable, Equatable {
        /// Balls served over the run.
        var serves: Int
        /// Device seconds from one serve to the next.
        var everySeconds: Int
    }

    /// One thing the user does, as `schedule.json` records it.
    struct Action: Codable, Sendable, Equatable {
        enum Kind: String, Codable, Sendable { case serve, openApp, pressShield }
        var kind: Kind
        var ball: Int
    }

    struct Summary: Encodable, Sendable, Equatable { var balls: Int }

    var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: "__name__", title: "__Name__", seed: "app", variants: ["main"], appGroups: ["group.com.example.__name__"],
            roles: [
                // Executables of this package, found beside this harness executable.
                ProcessRole(
                    name: Self.host, lifetime: .app, executable: "__name__-host",
                    summary: "serves a ball (stores it, shields every app); wins it when it comes back", tracesDefaultsWrites: true),
                ProcessRole(
                    name: Self.returner, lifetime: .extension(.shieldAction), executable: "__name__-returner",
                    summary: "the shield's button returns the ball and posts __name__.returned", tracesDefaultsWrites: true),
                ProcessRole(
                    name: Self.shield, lifetime: .extension(.shieldConfiguration), executable: "__name__-shield",
                    summary: "what the shield shows: the ball in play"),
            ],
            // What every app promises; the app's own promises are declared in the scenario file.
            invariants: [CoreRules.noStoreCorrupt, CoreRules.runSettles],
            scenarioKeys: ["rally"], defaultSettleSeconds: 5 * 60)
    }

    /// `rally: { serves: 5, everySeconds: 120 }`.
    func configuration(from sections: ScenarioSections) throws(ScenarioError) -> Configuration {
        let rally = try sections.required("rally").section(allowed: ["serves", "everySeconds"])
        return Configuration(
            serves: try rally.required("serves").int(in: 1...10_000), everySeconds: try rally["everySeconds"]?.int(in: 60...86_400) ?? 120)
    }

    /// Ball by ball: serve; 20–40 device seconds later open an app (the shield shows) and press
    /// the shield's button five seconds after.
    func plan(_ c: Configuration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> WorkloadPlan<Action, Summary> {
        var actions: [PlannedAction<Action>] = []
        for ball in 1...c.serves {
            let t = Double(ball * c.everySeconds)
            let open = t + Double(generator.int(in: 20...40))
            guard (open + 5) * 1000 <= Double(deviceMillis) else { break }
            actions.append(PlannedAction(atDeviceOffsetSeconds: t, action: Action(kind: .serve, ball: ball)))
            actions.append(PlannedAction(atDeviceOffsetSeconds: open, action: Action(kind: .openApp, ball: ball)))
            actions.append(PlannedAction(atDeviceOffsetSeconds: open + 5, action: Action(kind: .pressShield, ball: ball)))
        }
        return WorkloadPlan(actions: actions, summary: Summary(balls: actions.count / 3))
    }

    /// The user's hands, as a move the harness records (`user_action`) and then performs: a tap in
    /// the host (opened first), then home; another app opened through iOS (its shield shows); the
    /// shield's button pressed. `screen` is what the user sees now (the time, the notifications).
    func move(_ action: Action, seeing screen: any UserScreen) -> UserMove {
        let ball = ["ball": String(action.ball)]
        switch action.kind {
        case .serve:
            return UserMove("serve", ball, steps: [.openHost, .tap(role: Self.host, AppMessage(action: "serve", fields: ball)), .leaveHost])
        case .openApp:
            return UserMove("open_app", ball, steps: [.useApp("com.example.game", seconds: 10, label: ball)])
        case .pressShield:
            return UserMove("press_shield", ball, steps: [.pressShield(.primaryButtonPressed, label: ball)])
        }
    }

    /// The core's rules; the scenario's `invariants:` are judged beside them. A promise no declared
    /// rule can express gets a rule here: a `RuleOutcome` over the history (the harness's
    /// docs/ADDING-A-SYSTEM.md, step 5).
    func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: "__Name__", reason: "the history has no run_finished line")
        }
        let outcomes = [CoreRules.noStoreCorrupt(history), CoreRules.runSettles(history)]
        return CheckReport(checker: "__Name__", decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations), latencies: [])
    }
}
