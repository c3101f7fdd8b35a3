import Foundation
import HarnessKit
import History
import ScreenTimeModel
import SystemKit

/// A second system, defined entirely in the test target: two processes that return balls through
/// shared defaults and Darwin notifications (`sth-test-helper pingpong ping|pong`), one invariant.
/// It plugs into the harness without any change to the core — which is what the tests show.
struct PingPongPack: SystemPack {
    static let id = "pingpong"

    struct Configuration: Sendable, Equatable {
        var serves: Int
        var everySeconds: Int
    }

    /// One `serve` tap: the user serves ball `ball` (1, 2, 3, ...).
    struct Action: Codable, Sendable, Equatable {
        var kind = "serve"
        var ball: Int
    }

    struct Summary: Encodable, Sendable, Equatable {
        var balls: Int
    }

    static let everyServeReturned = InvariantDescriptor(
        name: "every-serve-returned", promise: "Every ball the user serves is returned to ping.", source: "the test's own spec")

    /// Who plays pong: the Swift helper, or — for the cross-language test — the Python
    /// participant of Tests/Conformance (`participant.py pong`), under another executable name.
    var pongRole = ProcessRole(name: "pong", lifetime: .app, executable: "sth-test-helper", arguments: ["pingpong", "pong"], summary: "returns")

    var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "Ping-pong (test system)", seed: "test", variants: ["as-written", "hardened"],
            appGroups: ["group.test.pingpong"],
            roles: [
                ProcessRole(name: "ping", lifetime: .app, executable: "sth-test-helper", arguments: ["pingpong", "ping"], summary: "serves"),
                pongRole,
            ],
            invariants: [Self.everyServeReturned, CoreRules.runSettles],
            scenarioKeys: ["rally"], defaultSettleSeconds: 45 * 60)
    }

    func configuration(from sections: ScenarioSections) throws(ScenarioError) -> Configuration {
        let rally = try sections.required("rally").section(allowed: ["serves", "everySeconds"])
        return Configuration(
            serves: try rally.required("serves").int(in: 1...1000),
            everySeconds: try rally["everySeconds"]?.int(in: 1...3600) ?? 60)
    }

    func plan(_ c: Configuration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> WorkloadPlan<Action, Summary> {
        let actions = (1...c.serves).map { PlannedAction(atDeviceOffsetSeconds: Double($0 * c.everySeconds), action: Action(ball: $0)) }
            .filter { $0.atDeviceOffsetSeconds * 1000 <= Double(deviceMillis) }
        return WorkloadPlan(actions: actions, summary: Summary(balls: actions.count))
    }

    func move(_ action: Action, seeing screen: any UserScreen) -> UserMove {
        UserMove("serve", ["ball": String(action.ball)], steps: [.tap(role: "ping", AppMessage(action: "serve", fields: ["ball": String(action.ball)]))])
    }

    func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: "PingPong", reason: "no run_finished")
        }
        var outcome = RuleOutcome(Self.everyServeReturned.name, subjectKind: "ball")
        let returnedUpTo = history.filter { $0.isLine(of: "ping", "returned") }.compactMap { $0["upTo"].flatMap { Int($0) } }.max() ?? 0
        for serve in history where serve.isUserAction("serve") {
            outcome.checkedCount += 1
            guard let ball = serve["ball"].flatMap({ Int($0) }), ball > returnedUpTo else { continue }
            outcome.fail(String(ball), "ball \(ball) was served and never returned (returned up to \(returnedUpTo))", [serve])
        }
        let outcomes = [outcome, CoreRules.runSettles(history)]
        return CheckReport(
            checker: "PingPong", decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations),
            latencies: [])
    }
}
