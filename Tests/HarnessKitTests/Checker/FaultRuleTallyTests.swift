import AppGroup
import Foundation
import HarnessKit
import History
import Testing

@Suite(.timeLimit(.minutes(1))) struct FaultRuleTallyTests {
    func e(_ process: String, _ event: String, t: Double = 100, _ fields: [String: String] = [:]) -> HistoryEvent {
        HistoryEvent(mono: 1, t: t, process: process, pid: 1, event: event, fields: fields)
    }

    /// A failpoint counts its `failpoint` lines (`<label>#<pass>`), only the armed pass when it
    /// names one; a label that never passed is an idle rule, said on the summary, not a silent PASS.
    @Test func aFailpointWhoseLabelNeverPassedIsIdle() throws {
        let armed = try ["player:defaults:g/ball=kill", "player:defaults:g/ball#2=kill", "player:defaults=kill"]
            .map { try Failpoint.parse($0, processes: ["player"]) }
        let tally = FaultRuleTally.tally(armed, fired: ["player:defaults:g/ball#1", "player:defaults:g/ball#3"])
        #expect(tally.map(\.fired) == [2, 0, 0])
        #expect(tally.map(\.rule) == ["failpoint player:defaults:g/ball=kill", "failpoint player:defaults:g/ball#2=kill", "failpoint player:defaults=kill"])
        var report = CheckReport(checker: "x", decided: true, results: [], violations: [], latencies: [])
        report.faultRules = tally
        #expect(report.humanSummary().contains("never fired (this run did not test them): failpoint player:defaults:g/ball#2=kill, failpoint player:defaults=kill"))
    }

    /// Each rule's count comes from the lines that name it; App Group faults count for the rules
    /// of their kind that select the process's role and whose window holds the line's time.
    @Test func everyRuleIsCountedAndTheIdleOnesAreNamed() {
        var stale = FieldFault(kind: .staleDefaults(seconds: 60))
        stale.roles = ["host-app"]
        let torn = FieldFault(kind: .tornWrite, window: 0...50, maxCount: 1)
        let rules = [FieldFault(kind: .drop, callbacks: ["intervalDidEnd"]), FieldFault(kind: .duplicate), stale, torn,
                     FieldFault(kind: .reorderAtBoundary)]
        let events = [
            e("harness", "callback_dropped", ["fault": "drop", "rule": "os.faults[0]"]),
            e("harness", "callback_dropped", ["fault": "drop", "rule": "os.faults[0]"]),
            e("harness", "callbacks_reordered", ["fault": "reorder", "rule": "os.faults[4]"]),
            e("host-app", "defaults_fault", ["kind": "stale_read"]),
            e("monitor-extension", "defaults_fault", ["kind": "stale_read"]),  // not a role of rule 2
            e("host-app", "defaults_fault", t: 80, ["kind": "torn_write"]),  // outside rule 3's window
            e("host-app", "session_started", ["rule": "os.faults[1]"]),  // only the harness's lines name rules
        ]
        let tally = FaultRuleTally.tally(rules, deviceRoles: ["host-app", "monitor-extension"], events: events)
        #expect(tally.map(\.fired) == [2, 0, 1, 0, 1])
        #expect(tally.map(\.kind) == ["drop", "duplicate", "stale_defaults", "torn_write", "reorder"])
        var report = CheckReport(checker: "x", decided: true, results: [], violations: [], latencies: [])
        report.faultRules = tally
        #expect(report.faultRulesNeverFired.map(\.rule) == ["os.faults[1]", "os.faults[3]"])
        #expect(report.humanSummary().contains("fault rules armed, never fired (this run did not test them): os.faults[1] duplicate, os.faults[3] torn_write"))
    }

    /// An `os.rules` alternative is counted like a fault rule: each interval it
    /// missed and each call it made, once by delivery; one that never acted is named.
    @Test func osRulesAlternativesAreCountedOncePerCallAndNamedWhenIdle() {
        let rules = OSRules(startAtRegistration: .missed, thresholds: .atFirstUse)
        let events = [
            e("harness", "interval_missed", ["activity": "a", "rule": "os.rules.startAtRegistration"]),
            e("harness", "callback_queued", ["delivery": "7", "rule": "os.rules.thresholds", "behind": "6"]),
            e("harness", "callback_delivered", ["delivery": "7", "rule": "os.rules.thresholds"]),
            e("harness", "callback_delivered", ["delivery": "9", "rule": "os.rules.thresholds"]),
            e("monitor-extension", "callback_started", ["delivery": "9", "rule": "os.rules.thresholds"]),  // not the harness's
        ]
        let tally = FaultRuleTally.tally([], osRules: rules, deviceRoles: [], events: events)
        #expect(tally == [
            FaultRuleOutcome(rule: "os.rules.startAtRegistration", kind: "startAtRegistration=missed", fired: 1),
            FaultRuleOutcome(rule: "os.rules.thresholds", kind: "thresholds=atFirstUse", fired: 2),
        ])
        let idle = FaultRuleTally.tally([], osRules: OSRules(thresholds: .atFirstUse), deviceRoles: [], events: [])
        #expect(idle == [FaultRuleOutcome(rule: "os.rules.thresholds", kind: "thresholds=atFirstUse", fired: 0)])
        #expect(FaultRuleTally.tally([], osRules: OSRules(), deviceRoles: [], events: events).isEmpty, "the defaults are not faults")
    }
}
