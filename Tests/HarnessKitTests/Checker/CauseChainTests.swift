import HarnessKit
import History
import Testing

/// A violation names the disturbances that came before its lines, each with its
/// line in history.jsonl, in at most ~12 lines.
@Suite(.timeLimit(.minutes(1))) struct CauseChainTests {
    struct H {
        var events: [HistoryEvent] = []
        mutating func add(_ process: String, _ event: String, _ fields: [String: String] = [:], pid: Int32 = 7) -> HistoryEvent {
            let e = HistoryEvent(mono: Int64(events.count + 1) * 1_000, t: Double(100 + events.count), process: process, pid: pid, event: event, fields: fields)
            events.append(e)
            return e
        }
    }

    @Test func theChainNamesTheInvolvedProcessesDisturbancesWithTheirHistoryLines() throws {
        var h = H()
        _ = h.add("harness", "defaults_fault_armed", ["target": "host", "spec": "stale 600 - -"], pid: 1)  // setup, not a cause
        let failpoint = h.add("host", "failpoint", ["action": "kill", "label": "host:defaults:g/k#1"])
        _ = h.add("harness", "exit", ["target": "host", "childPid": "7", "status": "signal 9"], pid: 1)  // line 3: a kill with no signal line
        for _ in 0..<20 { _ = h.add("harness", "signal", ["target": "host", "by": "ios", "signal": "STOP", "childPid": "8"], pid: 1) }  // lifecycle
        _ = h.add("harness", "signal", ["target": "monitor", "by": "nemesis", "signal": "KILL", "childPid": "9"], pid: 1)  // another process
        _ = h.add("harness", "signal", ["target": "host", "by": "nemesis", "signal": "KILL", "childPid": "8"], pid: 1)
        _ = h.add("harness", "exit", ["target": "host", "childPid": "8", "status": "signal 9"], pid: 1)  // said by the signal already
        _ = h.add("harness", "signal", ["target": "host", "by": "nemesis", "signal": "CONT", "childPid": "10"], pid: 1)
        let step1 = h.add("host", "store_error", ["op": "write"], pid: 10)
        let step2 = h.add("harness", "host_state", ["state": "foreground"], pid: 1)
        var report = CheckReport(checker: "x", decided: true, results: [], violations: [
            InvariantViolation(invariant: "i", subject: nil, explanation: "e", relevantEvents: [step2, step1]),
        ], latencies: [])
        CauseChain.attach(to: &report, events: h.events, hostRole: "host")
        let chain = try #require(report.violations.first?.chain)
        // The failpoint however long ago, the unexplained exit, the nemesis's kill (not its exit, not
        // iOS suspending the app, not the continuation, not another process's kill), then the steps.
        #expect(chain.map(\.line) == [2, 3, 25, 28, 29])
        #expect(chain.map(\.role) == [.cause, .cause, .cause, .step, .step])
        #expect(chain[0].text == CauseChain.short(failpoint) && chain[0].text.contains("label=host:defaults:g/k#1"))
        #expect(zip(chain, chain.map { h.events[$0.line - 1] }).allSatisfy { $0.text == CauseChain.short($1) }, "each number is its line")
        // In the summary: the chain instead of the JSON lines.
        let summary = report.humanSummary()
        #expect(summary.contains("before #2  t=101.000 host[7] failpoint"))
        #expect(summary.contains("      #29  t=128.000 harness host_state state=foreground"))
    }

    /// Two processes' lines at one device instant stand in either order in history.jsonl (merged
    /// by wall clock, which differs from run to run); the chain is the same either way: the
    /// normalized history's order, and the same disturbances within the cut.
    @Test func theChainIsTheSameWhicheverOrderLinesOfOneInstantWereMerged() throws {
        func chain(hostFirst: Bool) throws -> [String] {
            var events: [HistoryEvent] = []
            func add(_ t: Double, _ process: String, _ event: String, _ fields: [String: String] = [:]) {
                events.append(HistoryEvent(
                    mono: Int64(events.count + 1) * 1_000, t: t, process: process, pid: process == "harness" ? 1 : 7, event: event, fields: fields))
            }
            for i in 0..<14 { add(Double(10 + i), "harness", "signal", ["target": "host", "by": "nemesis", "signal": "KILL", "childPid": "\(i)"]) }
            let atOnce: [(String, String, [String: String])] = [
                ("harness", "signal", ["target": "host", "by": "nemesis", "signal": "STOP", "childPid": "20"]), ("host", "store_error", ["op": "write"]),
            ]
            for (process, event, fields) in hostFirst ? atOnce.reversed() : atOnce { add(50, process, event, fields) }
            add(60, "host", "reminder")
            var report = CheckReport(checker: "x", decided: true, results: [], violations: [
                InvariantViolation(invariant: "i", subject: nil, explanation: "e", relevantEvents: [events.last!]),
            ], latencies: [])
            CauseChain.attach(to: &report, events: events, hostRole: "host")
            return try #require(report.violations.first?.chain).map { "\($0.role) \($0.text)" }
        }
        let one = try chain(hostFirst: false), other = try chain(hostFirst: true)
        #expect(one.count == CauseChain.maxLines)
        #expect(one == other, "\(one)\n\(other)")
        #expect(one.suffix(3).map { $0.split(separator: " ")[3] } == ["signal", "store_error", "reminder"], "device time, then process: \(one)")
    }

    @Test func atMostTwelveLinesAndNoChainForLinesNotInTheHistory() throws {
        var h = H()
        _ = h.add("host", "failpoint", ["action": "kill", "label": "host:x#1"])
        for i in 0..<30 { _ = h.add("harness", "signal", ["target": "host", "by": "nemesis", "signal": "KILL", "childPid": "\(i)"], pid: 1) }
        let steps = (0..<3).map { _ in h.add("host", "x") }
        var report = CheckReport(checker: "x", decided: true, results: [], violations: [
            InvariantViolation(invariant: "i", subject: nil, explanation: "e", relevantEvents: steps),
            InvariantViolation(invariant: "j", subject: nil, explanation: "e",
                               relevantEvents: [HistoryEvent(mono: 1, t: 0, process: "ghost", pid: 1, event: "x")]),
        ], latencies: [])
        CauseChain.attach(to: &report, events: h.events, hostRole: nil)
        let chain = try #require(report.violations[0].chain)
        #expect(chain.count == CauseChain.maxLines)
        #expect(chain.filter { $0.role == .cause }.map(\.line) == [1] + Array(24...31), "the failpoint, then the most recent causes")
        #expect(report.violations[1].chain == nil)
    }

    /// A rule that names the run's end ("… to the run's end") still had its promise broken at its
    /// last own line: disturbances between that line and the end caused nothing and are not named.
    @Test func theRunsEndIsNotWhereCausesAreLookedFor() throws {
        var h = H()
        let early = h.add("harness", "signal", ["target": "host", "by": "nemesis", "signal": "KILL", "childPid": "7"], pid: 1)
        let step = h.add("host", "grant_created", ["grant": "g"])
        for i in 0..<5 { _ = h.add("harness", "signal", ["target": "host", "by": "nemesis", "signal": "KILL", "childPid": "\(20 + i)"], pid: 1) }
        let end = h.add("harness", "run_finished", [:], pid: 1)
        var report = CheckReport(checker: "x", decided: true, results: [], violations: [
            InvariantViolation(invariant: "i", subject: nil, explanation: "e", relevantEvents: [step, end]),
        ], latencies: [])
        CauseChain.attach(to: &report, events: h.events, hostRole: "host")
        let chain = try #require(report.violations.first?.chain)
        #expect(chain.filter { $0.role == .cause }.map(\.text) == [CauseChain.short(early)])
        #expect(chain.filter { $0.role == .step }.map(\.line) == [2, 8], "the run's end is still shown as a step")
    }

    /// What an `os.rules` alternative did — an interval it missed, a call it made
    /// — is a cause like a field fault; an ordinary delivery is not.
    @Test func anOSRulesAlternativeIsACause() throws {
        var h = H()
        let missed = h.add("harness", "interval_missed", ["activity": "a", "rule": "os.rules.startAtRegistration"], pid: 1)
        _ = h.add("harness", "callback_delivered", ["callback": "intervalDidStart", "delivery": "1"], pid: 1)
        let early = h.add("harness", "callback_delivered", ["callback": "eventDidReachThreshold", "delivery": "2", "rule": "os.rules.thresholds"], pid: 1)
        let step = h.add("monitor", "failure_written", [:])
        var report = CheckReport(checker: "x", decided: true, results: [], violations: [
            InvariantViolation(invariant: "i", subject: nil, explanation: "e", relevantEvents: [step]),
        ], latencies: [])
        CauseChain.attach(to: &report, events: h.events, hostRole: "host")
        let chain = try #require(report.violations.first?.chain)
        #expect(chain.filter { $0.role == .cause }.map(\.text) == [CauseChain.short(missed), CauseChain.short(early)])
    }
}
