import HarnessKit
import History
import Testing

/// Every "is it dead?" decision judged against the writer's real state, on hand-made histories:
/// one test per classification (true alarm, false alarm, missed death), and the ground truth of
/// an app and of an on-demand extension.
@Suite(.timeLimit(.minutes(1))) struct HeartbeatJudgeTests {
    /// A history written line by line; `mono` follows the order of the lines.
    struct History {
        var events: [HistoryEvent] = []
        var mono: Int64 = 0

        mutating func line(_ t: Double, _ process: String, _ event: String, _ fields: [String: String] = [:]) {
            mono += 1_000
            events.append(HistoryEvent(mono: mono, t: t, process: process, pid: process == "harness" ? 1 : 5, event: event, fields: fields))
        }

        mutating func harness(_ t: Double, _ event: String, _ fields: [String: String] = [:]) { line(t, "harness", event, fields) }

        mutating func beats(_ times: StrideTo<Double>) { for t in times { line(t, "app", "beat") } }

        /// Started at t=0 with the app spawned as pid 5.
        static func started() -> History {
            var h = History()
            h.harness(0, "run_started", ["variant": "v1"])
            h.harness(0, "spawn", ["target": "app", "childPid": "5"])
            return h
        }

        func finished(at t: Double) -> [HistoryEvent] {
            events + [HistoryEvent(mono: mono + 1_000, t: t, process: "harness", pid: 1, event: "run_finished", fields: [:])]
        }
    }

    static let writer = HeartbeatWriterModel(
        name: "app-beat", key: "file", role: "app", beat: HistoryLinePattern(process: "app", event: "beat"), intervalSeconds: 5)
    static let monitor = HeartbeatMonitorModel(
        name: "watchdog", writer: "app-beat", role: "mon", rule: "now - beat > 30", thresholdSeconds: 30,
        decision: HistoryLinePattern(process: "mon", event: "declared_dead"), toleranceSeconds: 2, mustNotMisfire: "no-misfire")

    static func judge(_ events: [HistoryEvent]) -> HeartbeatJudge.Judged {
        HeartbeatJudge.judge(monitor, writer: writer, lifetime: .app, events)
    }

    @Test func aDecisionWhileTheWriterIsKilledIsATrueAlarmWithItsLatency() throws {
        var h = History.started()
        h.beats(stride(from: 0, to: 51, by: 5))
        h.harness(52, "signal", ["target": "app", "childPid": "5", "signal": "KILL", "by": "nemesis"])
        h.harness(52, "exit", ["target": "app", "childPid": "5", "status": "signal 9"])
        h.line(85, "mon", "declared_dead")
        let j = Self.judge(h.finished(at: 200))
        #expect((j.verdict.decisions, j.verdict.trueAlarms, j.verdict.falseAlarms) == (1, 1, 0))
        #expect((j.verdict.deaths, j.verdict.detected, j.verdict.missed) == (1, 1, 0))
        #expect(j.verdict.detectionLatencyP99Seconds == 33)
        let f = try #require(j.verdict.findings.first)
        #expect(f.kind == .trueAlarm && f.writerState == "killed" && f.detail.contains("SIGKILL by the nemesis"))
        #expect(j.outcome("no-misfire").violations.isEmpty)
        #expect(j.detectionSamplesNanos == [33_000_000_000])
    }

    @Test func aDecisionWhileTheWriterIsSuspendedOrStoppedIsAFalseAlarmNamingTheState() throws {
        var h = History.started()
        h.beats(stride(from: 0, to: 21, by: 5))
        h.harness(22, "signal", ["target": "app", "childPid": "5", "signal": "STOP", "by": "ios"])
        h.line(55, "mon", "declared_dead")
        h.harness(60, "signal", ["target": "app", "childPid": "5", "signal": "CONT", "by": "ios"])
        h.beats(stride(from: 60, to: 71, by: 5))
        h.harness(72, "signal", ["target": "app", "childPid": "5", "signal": "STOP", "by": "nemesis"])
        // The monitor itself is stopped for a while in the second silence.
        h.harness(75, "signal", ["target": "mon", "childPid": "6", "signal": "STOP", "by": "nemesis"])
        h.harness(80, "signal", ["target": "mon", "childPid": "6", "signal": "CONT", "by": "nemesis"])
        h.line(110, "mon", "declared_dead")
        var events = h.finished(at: 120)
        events.insert(HistoryEvent(mono: 1, t: 0, process: "harness", pid: 1, event: "spawn", fields: ["target": "mon", "childPid": "6"]), at: 1)
        let j = Self.judge(events)
        #expect((j.verdict.decisions, j.verdict.trueAlarms, j.verdict.falseAlarms) == (2, 0, 2))
        #expect(j.verdict.falseAlarmStates == ["suspended-by-ios": 1, "stopped-by-nemesis": 1])
        // Beats the app writes to a store wait for the monitor: its being stopped loses nothing.
        #expect(j.verdict.falseAlarmsMonitorDown == 0)
        // Beats the monitor receives itself (a server's lines) are lost while it is stopped.
        var received = Self.writer
        received.beat = HistoryLinePattern(process: "mon", event: "beat")
        let relabelled = events.map { e in
            e.process == "app" && e.event == "beat" ? HistoryEvent(mono: e.mono, t: e.t, process: "mon", pid: 6, event: "beat") : e
        }
        let viaServer = HeartbeatJudge.judge(Self.monitor, writer: received, lifetime: .app, relabelled)
        #expect(viaServer.verdict.falseAlarms == 2 && viaServer.verdict.falseAlarmsMonitorDown == 1)
        #expect(j.verdict.deaths == 0)
        // The pack promised no misfire: each false alarm is a violation citing the decision and
        // the line that put the writer in its state.
        let o = j.outcome("no-misfire")
        #expect(o.checkedCount == 2)
        #expect(o.violations.map(\.subject?.id) == ["1@t=55", "2@t=110"])
        let first = try #require(o.violations.first)
        #expect(first.explanation.contains("suspended-by-ios"))
        #expect(first.relevantEvents.map(\.event) == ["signal", "declared_dead"])
    }

    @Test func aDeathPastTheRulesBoundWithNoDecisionIsMissedAndOneThatCameBackInTimeIsNot() throws {
        var h = History.started()
        h.beats(stride(from: 0, to: 21, by: 5))
        // Crashed (no one sent the signal); relaunched at 40, before 20 + 30 + 2.
        h.harness(21, "exit", ["target": "app", "childPid": "5", "status": "signal 11"])
        h.harness(40, "spawn", ["target": "app", "childPid": "6"])
        // A decision after it came back detects nothing: a false alarm.
        h.line(45, "mon", "declared_dead")
        h.beats(stride(from: 40, to: 61, by: 5))
        // Exits on its own at 62 and never comes back: the bound 60 + 30 + 2 passes.
        h.harness(62, "exit", ["target": "app", "childPid": "6", "status": "exit 0"])
        let j = Self.judge(h.finished(at: 200))
        #expect((j.verdict.decisions, j.verdict.falseAlarms) == (1, 1))
        #expect((j.verdict.deaths, j.verdict.detected, j.verdict.missed) == (2, 0, 1))
        let f = try #require(j.verdict.findings.first { $0.kind == .missedDeath })
        #expect(f.kind == .missedDeath && f.writerState == "exited" && f.t == 92)
        #expect(f.detail.contains("never came back"))
        // The first death was a crash.
        let timeline = WriterTimeline(role: "app", lifetime: .app, events: h.events)
        #expect(timeline.deaths.map(\.start.state) == [.crashed, .exited])
    }

    @Test func anOnDemandExtensionIsIdleBetweenCallsAndDeadAfterACallThatDied() {
        var h = History.started()
        h.harness(10, "callback_delivered", ["callback": "intervalDidStart", "childPid": "7", "delivery": "1"])
        h.harness(10, "callback_completed", ["callback": "intervalDidStart", "childPid": "7", "delivery": "1", "status": "exit 0"])
        h.harness(20, "callback_delivered", ["callback": "shieldAction", "childPid": "8", "delivery": "2"])  // another extension
        h.harness(30, "callback_delivered", ["callback": "intervalDidEnd", "childPid": "-", "delivery": "3"])
        h.harness(30, "callback_failed", ["callback": "intervalDidEnd", "delivery": "3", "status": "killed at launch"])
        h.harness(40, "callback_delivered", ["callback": "intervalDidStart", "deferredUntil": "50", "delivery": "4"])
        h.harness(50, "callback_started", ["callback": "intervalDidStart", "childPid": "9", "delivery": "4"])
        let t = WriterTimeline(role: "monitor-extension", lifetime: .extension(.deviceActivityMonitor), events: h.events)
        #expect(t.state(atT: 5).state == .notLaunched)
        #expect(t.state(atT: 10).state == .notLaunched)
        #expect(t.state(atT: 25).state == .notLaunched)
        #expect(t.state(atT: 35).state == .killed)
        #expect(t.state(atT: 45).state == .stoppedByNemesis)
        #expect(t.state(atT: 55).state == .running)
        #expect(t.deaths.count == 1 && t.deaths[0].endT == 40)
    }

    @Test func watchesOpenAtTheirLineAndCloseAtTheirSettlement() {
        let writer = HeartbeatWriterModel(
            name: "hb", key: "route", role: "app", beat: HistoryLinePattern(process: "srv", event: "heartbeat"), subjectField: "sid", intervalSeconds: 5)
        let monitor = HeartbeatMonitorModel(
            name: "job", writer: "hb", role: "srv", rule: "stale", thresholdFact: "staleAfterSeconds",
            decision: HistoryLinePattern(process: "srv", event: "settled", equal: ["origin": "job"]),
            opens: HistoryLinePattern(process: "srv", event: "created", timeFieldMillis: "at"), closes: [HistoryLinePattern(process: "srv", event: "settled")])
        var h = History()
        h.harness(0, "run_started", ["staleAfterSeconds": "60"])
        h.line(0, "srv", "created", ["sid": "a", "at": "100000"])
        h.line(110, "srv", "heartbeat", ["sid": "a"])
        h.line(200, "srv", "settled", ["sid": "a", "origin": "client"])
        h.line(210, "srv", "heartbeat", ["sid": "a"])  // after the settlement: not watched
        let w = HeartbeatJudge.watches(monitor, writer: writer, h.finished(at: 300))
        #expect(w.map(\.subject) == ["a"])
        #expect(w.first.map { ($0.openT, $0.closeT, $0.beats) } ?? (0, nil, []) == (100, 200, [100, 110]))
        #expect(monitor.threshold(in: h.events) == 60)
    }
}
