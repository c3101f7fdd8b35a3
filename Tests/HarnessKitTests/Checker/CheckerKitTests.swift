import HarnessKit
import History
import Testing

/// The core checker rules and the pieces every pack's rules judge with, on hand-made histories.
@Suite(.timeLimit(.minutes(1))) struct CheckerKitTests {
    static func harness(_ mono: Int64, _ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        HistoryEvent(mono: mono, t: 1_771_315_200 + Double(mono) / 1000, process: HistoryEvent.harnessProcessName, pid: 1, event: event, fields: fields)
    }

    static let pack = AnySystemPack(PingPongPack())

    /// A run of the ping-pong system: one serve, returned.
    static func run(finished: Bool = true, extra: [HistoryEvent] = []) -> [HistoryEvent] {
        var h = [
            harness(1, "run_started"),
            harness(2, "user_action", ["action": "serve", "ball": "1"]),
            HistoryEvent(mono: 3, t: 1_771_315_200, process: "ping", pid: 7, event: "returned", fields: ["upTo": "1"]),
        ] + extra
        if finished { h.append(harness(100, "run_finished")) }
        return h
    }

    // MARK: Core rules

    @Test func aQuarantineLineBreaksNoStoreCorrupt() {
        #expect(CoreRules.noStoreCorrupt(Self.run()).violations.isEmpty)
        let line = Self.harness(50, "quarantine", ["file": "containers/g/Library/Preferences/g.plist", "movedTo": "g.plist.corrupt-1", "reason": "garbage"])
        let outcome = CoreRules.noStoreCorrupt(Self.run(extra: [line]))
        #expect(outcome.checkedCount == 1)
        #expect(outcome.violations.count == 1)
        #expect(outcome.violations.first?.explanation.contains("g.plist.corrupt-1") == true)
        #expect(outcome.violations.first?.relevantEvents == [line])
        #expect(!outcome.result.passed)
    }

    @Test func anOverrunBreaksRunSettles() {
        #expect(CoreRules.runSettles(Self.run()).result.passed)
        let line = Self.harness(90, "run_overran", ["why": "an extension call never ended"])
        let outcome = CoreRules.runSettles(Self.run(extra: [line]))
        #expect(outcome.violations.map(\.explanation) == ["the system did not settle: an extension call never ended"])
        #expect(!outcome.result.passed)
    }

    // MARK: Run judgement

    @Test func aCompleteRunIsJudgedByItsPack() {
        let report = RunJudgement.judge(Self.pack, Self.run())
        #expect(report.decided && report.passed)
        #expect(report.interruption == nil && report.tampered == nil)
    }

    /// The harness killed mid-run: undecided, never a pass; what could be checked is kept.
    @Test func aHistoryThatNeverFinishedIsUndecidedWithWhatCouldBeChecked() {
        let report = RunJudgement.judge(Self.pack, Self.run(finished: false))
        #expect(!report.decided && !report.passed)
        #expect(report.interruption == "killed")
        #expect(report.results.map(\.name).sorted() == [CoreRules.runSettles.name, PingPongPack.everyServeReturned.name].sorted())
        #expect(report.result(PingPongPack.everyServeReturned.name)?.checkedCount == 1)
    }

    @Test func anInterruptedRunNamesTheSignal() {
        let report = RunJudgement.judge(Self.pack, Self.run(finished: false, extra: [Self.harness(50, RunJudgement.interruptedEvent, ["signal": "SIGINT"])]))
        #expect(!report.decided && !report.passed)
        #expect(report.interruption == "SIGINT")
        #expect(report.undecidedReason?.contains("SIGINT") == true)
    }

    @Test func aTamperedRunIsUndecidedEvenWhenItFinished() {
        let report = RunJudgement.judge(Self.pack, Self.run(extra: [Self.harness(50, RunJudgement.tamperEvent, ["what": "system/clock replaced"])]))
        #expect(!report.decided && !report.passed)
        #expect(report.tampered == "system/clock replaced")
    }

    @Test func anUndecidedReportNeverPasses() {
        let report = CheckReport.undecided(checker: "x", reason: "no history")
        #expect(report.violations.isEmpty)
        #expect(!report.passed)
    }

    // MARK: Process lifetimes

    /// pid 5 runs twice (the kernel reused it): STOP/CONT in the first life, a STOP in the second.
    static let lives: [HistoryEvent] = [
        harness(10, "spawn", ["target": "app", "childPid": "5"]),
        harness(20, "signal", ["target": "app", "childPid": "5", "signal": "STOP"]),
        harness(30, "signal", ["target": "app", "childPid": "5", "signal": "CONT"]),
        harness(40, "exit", ["target": "app", "childPid": "5", "status": "signalled(9)"]),
        harness(50, "spawn", ["target": "app", "childPid": "5"]),
        harness(60, "signal", ["target": "app", "childPid": "5", "signal": "STOP"]),
        harness(70, "exit", ["target": "app", "childPid": "5", "status": "signalled(9)"]),
    ]

    @Test func aReusedPidStartsASecondLifetime() {
        let lives = ProcessLifetime.lifetimes(of: "app", in: Self.lives)
        #expect(lives.map(\.spawn.mono) == [10, 50])
        #expect(lives.map { $0.exit?.mono } == [40, 70])
        #expect(lives.map { $0.signals.map(\.mono) } == [[20, 30], [60]])
    }

    @Test func aProcessIsAliveFromItsSpawnUpToItsExit() {
        let first = ProcessLifetime.lifetimes(of: "app", in: Self.lives)[0]
        #expect(!first.isAlive(atMono: 9))
        #expect(first.isAlive(atMono: 10) && first.isAlive(atMono: 39))
        #expect(!first.isAlive(atMono: 40), "gone at its exit")
    }

    @Test func aLatencyIsSuspendedWhenTheProcessWasStoppedAtItsStartOrStoppedDuringIt() {
        let first = ProcessLifetime.lifetimes(of: "app", in: Self.lives)[0]
        #expect(first.wasSuspended(from: 15, to: 25), "a STOP inside the window")
        #expect(first.wasSuspended(from: 25, to: 26), "stopped at the start")
        #expect(!first.wasSuspended(from: 35, to: 39), "continued before the window")
        #expect(!first.wasSuspended(from: 11, to: 19))
    }

    // MARK: Shields, callbacks, relevant lines

    @Test func theShieldStateBeforeAnInstantIsTheLastChangeStrictlyBeforeIt() {
        let timeline = ShieldTimeline([
            Self.harness(10, "shields", ["apps": "com.video"]),
            Self.harness(20, "shields", ["apps": ""]),
        ])
        #expect(!timeline.isShielded(before: 10), "nothing was set before the first change")
        #expect(timeline.isShielded(before: 11))
        #expect(timeline.isShielded(before: 20), "the lift at 20 is not before 20")
        #expect(!timeline.isShielded(before: 21), "an empty apps list shields nothing")
    }

    @Test func eachDeliveryEndsAsItsExtensionDid() {
        let events = [
            Self.harness(1, "callback_delivered", ["delivery": "1", "callback": "intervalDidStart", "activity": "a", "childPid": "11"]),
            Self.harness(2, "callback_delivered", ["delivery": "2", "callback": "intervalDidEnd", "activity": "a", "childPid": "12"]),
            Self.harness(3, "callback_delivered", ["delivery": "3", "callback": "intervalDidEnd", "activity": "b", "childPid": "13"]),
            Self.harness(4, "callback_failed", ["delivery": "2", "status": "signalled(9)"]),
            Self.harness(5, "callback_completed", ["delivery": "1", "status": "exited(0)"]),
        ]
        let deliveries = CallbackDelivery.deliveries(in: events)
        #expect(deliveries.map(\.id) == ["1", "2", "3"])
        #expect(deliveries.map(\.isCompleted) == [true, false, false])
        #expect(deliveries.map { $0.outcomeEvent?.mono } == [5, 4, nil])
        #expect(deliveries.map(\.extensionPid) == [11, 12, 13])
    }

    @Test func overTheBoundAViolationKeepsBothEndsOfItsLines() {
        let many = (1...Int64(CheckReport.maxRelevantEvents + 5)).map { Self.harness($0, "line") }
        let picked = RelevantEvents.pick(many.reversed())
        #expect(picked.count == CheckReport.maxRelevantEvents)
        #expect(picked.first == many.first, "how it began")
        #expect(picked.last == many.last, "and the last line (settlements are written last)")
        #expect(picked.map(\.mono) == picked.map(\.mono).sorted())
    }

    /// Two processes' lines at one device instant are merged by wall clock, in either order from
    /// run to run; a violation lists them in one order: device time, then process.
    @Test func aViolationsLinesAtOneInstantAreListedInOneOrderWhicheverWasMergedFirst() {
        let at = 1_771_315_200.0
        let host = HistoryEvent(mono: 10, t: at, process: "host-app", pid: 7, event: "reminder")
        let os = HistoryEvent(mono: 20, t: at, process: HistoryEvent.harnessProcessName, pid: 1, event: "callback_delivered")
        let hostLater = HistoryEvent(mono: 10, t: at, process: "host-app", pid: 7, event: "reminder")
        let osEarlier = HistoryEvent(mono: 5, t: at, process: HistoryEvent.harnessProcessName, pid: 1, event: "callback_delivered")
        let before = HistoryEvent(mono: 30, t: at - 1, process: "host-app", pid: 7, event: "launched")
        #expect(RelevantEvents.pick([host, os, before]).map(\.event) == ["launched", "callback_delivered", "reminder"])
        #expect(RelevantEvents.pick([hostLater, osEarlier, before]).map(\.event) == ["launched", "callback_delivered", "reminder"])
    }
}
