import Foundation
@testable import HarnessKit
import History
import Testing

@Suite(.timeLimit(.minutes(1))) struct SuiteRunnerResultLineTests {
    func outcome(lost: Int) -> ScenarioRunner.Outcome {
        var report = CheckReport(
            checker: "demo", decided: true,
            results: [InvariantResult(name: "every-return-won", passed: true, checkedCount: 3)], violations: [], latencies: [])
        let v = InvariantViolation(invariant: "violation-delivered", subject: .init(kind: "session", id: "s-1"),
                                   explanation: "iOS dropped the call", relevantEvents: [])
        report.lostByOS = lost == 0 ? nil : Array(repeating: v, count: lost)
        return ScenarioRunner.Outcome(
            runDirectory: "/runs/r1", rerunCommand: "harness run x.yaml --seed 1", report: report, setupError: nil,
            faultCounts: ["kill": 2, "stop": 1], wallSeconds: 1.25, historyEvents: 40)
    }

    /// A PASS with work iOS lost says so on its own line, not only in report.json.
    @Test func aPassSaysHowManyUserActionsIOSLost() {
        #expect(SuiteRunner.resultLine(outcome(lost: 2)) == "PASS: 3 kills/stops, 2 user actions lost by iOS (report.json lostByOS), 40 history events, 1.2 s -> /runs/r1")
        #expect(SuiteRunner.resultLine(outcome(lost: 1)).contains(", 1 user action lost by iOS"))
        #expect(SuiteRunner.resultLine(outcome(lost: 0)) == "PASS: 3 kills/stops, 40 history events, 1.2 s -> /runs/r1")
        var idle = outcome(lost: 0)
        idle.report?.faultRules = [FaultRuleOutcome(rule: "os.faults[0]", kind: "drop", fired: 3), FaultRuleOutcome(rule: "os.faults[1]", kind: "torn_write", fired: 0)]
        #expect(SuiteRunner.resultLine(idle) == "PASS: 3 kills/stops, fault rule armed, never fired: os.faults[1], 40 history events, 1.2 s -> /runs/r1")
    }
}
