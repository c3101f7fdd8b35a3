@testable import FocusPledgePack
import HarnessKit
import History
import Testing

@Suite("FocusPledgeChecker: each invariant fires", .timeLimit(.minutes(1)))
struct InvariantRuleTests {
    typealias I = FocusPledgeInvariant

    // MARK: no-double-settlement

    @Test func doubleSettlementFires() throws {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, host in
            b.hostSettles("s1", "SUCCESS", host: host)
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
        })
        let violation = try #require(report.violations(of: I.noDoubleSettlement.rawValue).first)
        #expect(violation.subject == .init(kind: "session", id: "s1"))
        #expect(violation.explanation.contains("2 times"))
        #expect(violation.explanation.contains("previousStatus=SUCCESS"))
        #expect(violation.relevantEvents.filter { $0.event == "ledger" }.count == 2)
        #expect(report.failedInvariants == [I.noDoubleSettlement.rawValue])
    }

    // MARK: clean-session-settles-success

    @Test func cleanSessionSettledFailureAppOpenedFires() throws {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, host in
            b.hostSettles("s1", "FAILURE", host: host, reason: "app_opened")
        })
        #expect(report.failedInvariants == [I.cleanSessionSettlesSuccess.rawValue])
        #expect(report.violations.first?.explanation.contains("FAILURE reason=app_opened") == true)
    }

    /// The user taps Start again on the pledge that is running: the host rightly ignores it, and
    /// the first start's shields and registration enforce it — not a `start-enforced` violation.
    /// A second Start after the pledge's monitoring was removed is judged as any start.
    @Test func aSecondStartOfTheRunningPledgeIsEnforcedByTheFirst() throws {
        func run(removedBetween: Bool) -> CheckReport {
            var b = HistoryBuilder()
            let host = b.spawnHost()
            b.startSession("s1", host: host, minutes: 30)
            b.wait(deviceMinutes: 1)
            if removedBetween { b.harness("monitoring_removed", ["activity": "focuspledge_s1"]) }
            b.harness("user_action", ["action": "start_session", "sid": "s1", "durationMinutes": "30"])
            b.line("host-app", pid: host, "start_ignored", ["sessionId": "s1", "reason": "already_running"])
            b.wait(deviceMinutes: 30)
            b.hostSettles("s1", "SUCCESS", host: host)
            b.wait(deviceMinutes: 2)
            return FocusPledgeChecker.check(b.finish())
        }
        let again = run(removedBetween: false)
        #expect(!again.failedInvariants.contains(I.startEnforced.rawValue), "\(again.violations.map(\.explanation))")
        #expect(again.checked(.startEnforced) == 2)
        let removed = run(removedBetween: true)
        #expect(removed.violations(of: I.startEnforced.rawValue).first?.explanation.contains("focuspledge_s1 not monitored") == true)
    }

    /// iOS held session s1's shield call and delivered it inside s2 (the history tags it `sid=s1`):
    /// the call carries no time of the user's act, so the app cannot tell it from an open in s2 —
    /// s2's FAILURE is not blamed, and the pledge the user lost is listed in `lostByOS`. The same
    /// call tagged with s2 itself is s2's own violation (nothing listed); and without any call, the
    /// FAILURE of the kept pledge is a violation (`cleanSessionSettledFailureAppOpenedFires`).
    @Test func anEarlierSessionsCallDeliveredLateIsListedNotBlamed() throws {
        func run(tag: String) -> CheckReport {
            var b = HistoryBuilder()
            let host = b.spawnHost()
            b.startSession("s1", host: host, minutes: 30)
            b.wait(deviceMinutes: 10)
            if tag == "s1" {
                _ = b.harness("callback_held", ["callback": "shieldConfiguration", "app": "com.example.game", "sid": "s1", "fault": "delay", "rule": "os.faults[0]"])
            }
            b.wait(deviceMinutes: 21)
            b.hostSettles("s1", "SUCCESS", host: host)
            b.wait(deviceMinutes: 2)
            b.startSession("s2", host: host, minutes: 30)
            b.wait(deviceMinutes: 5)
            b.violation(tag, callback: "shieldConfiguration", write: .record)
            b.hostSettles("s2", "FAILURE", host: host, reason: "app_opened")
            b.wait(deviceMinutes: 2)
            return FocusPledgeChecker.check(b.finish())
        }
        let late = run(tag: "s1")
        #expect(late.passed, "\(late.humanSummary())")
        let listed = try #require(late.lostByOS?.first { $0.invariant == "violation-delivered-late-by-ios" })
        #expect(listed.subject == .init(kind: "session", id: "s2"))
        #expect(listed.explanation.contains("of session s1 inside it"))
        #expect(listed.explanation.contains("28 min before it was delivered"))
        #expect(listed.relevantEvents.contains { $0.event == "callback_held" })
        let own = run(tag: "s2")
        #expect(own.passed, "\(own.humanSummary())")
        #expect(own.lostByOS?.contains { $0.invariant == "violation-delivered-late-by-ios" } != true)
    }

    @Test func staleJobFailureOnCleanSessionIsAccepted() {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, _ in
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
            b.shields("")
        })
        #expect(report.passed, "\(report.humanSummary())")
        #expect(report.checked(.cleanSessionSettlesSuccess) == 1)
    }

    /// The user kept the pledge (no violation) and the host ran with the server up, yet the stale
    /// job settled FAILURE: the user lost the pledge although a process could have kept the session
    /// alive or settled it — a violation. The seed's own case (Resilience 4, "user never reopens
    /// app": the host down through the stale window) and a job that decides as the server comes back
    /// (no minute of both up before it) stay accepted.
    @Test func staleJobFailureOnACleanSessionTheHostCouldHaveSavedFires() throws {
        func run(_ between: (inout HistoryBuilder, Int32, Int32) -> Void) -> CheckReport {
            var b = HistoryBuilder()
            let server = b.spawnServer()
            let host = b.spawnHost()
            b.startSession("s1", host: host, minutes: 30)
            b.wait(deviceMinutes: 30.5)
            between(&b, host, server)
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
            b.shields("")
            b.wait(deviceMinutes: 1)
            return FocusPledgeChecker.check(b.finish())
        }
        let alive = run { b, _, _ in b.wait(deviceMinutes: 16) }
        let v = try #require(alive.violations(of: I.cleanSessionSettlesSuccess.rawValue).first)
        #expect(v.explanation.contains("FAILURE reason=no_heartbeat origin=staleJob") && v.explanation.contains("the host ran with the server up"), "\(v.explanation)")
        let hostGone = run { b, host, _ in
            b.killHost(host)
            b.wait(deviceMinutes: 16)
        }
        #expect(!hostGone.failedInvariants.contains(I.cleanSessionSettlesSuccess.rawValue), "\(hostGone.violations.map(\.explanation))")
        let serverBack = run { b, _, server in
            b.killServer(server)
            b.wait(deviceMinutes: 16)
            _ = b.spawnServer()
        }
        #expect(!serverBack.failedInvariants.contains(I.cleanSessionSettlesSuccess.rawValue), "\(serverBack.violations.map(\.explanation))")
    }

    @Test func staleJobSettlementAfterTheThresholdIsEarned() {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, _ in
            b.line("settlement-server", pid: 900, "heartbeat", ["sessionId": "s1"])
            b.wait(deviceMinutes: 16)  // threshold 900 s in the fixture's run_started
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
            b.shields("")
        })
        #expect(report.passed, "\(report.humanSummary())")
        #expect(report.checked(.staleSettlementEarned) == 1)
    }

    @Test func staleJobSettlementRightAfterAHeartbeatIsNotEarned() {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, _ in
            b.line("settlement-server", pid: 900, "heartbeat", ["sessionId": "s1"])
            b.wait(deviceMinutes: 1)
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
            b.shields("")
        })
        #expect(report.failedInvariants == [I.staleSettlementEarned.rawValue])
        #expect(report.violations.first?.explanation.contains("threshold is 900 s") == true)
    }

    /// The quiet time runs from the session's last heartbeat the server recorded, not its first.
    @Test func staleJobSettlementSoonAfterTheLastOfSeveralHeartbeatsIsNotEarned() {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, _ in
            b.line("settlement-server", pid: 900, "heartbeat", ["sessionId": "s1"])
            b.wait(deviceMinutes: 16)
            b.line("settlement-server", pid: 900, "heartbeat", ["sessionId": "s1"])
            b.wait(deviceMinutes: 1)
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
            b.shields("")
        })
        #expect(report.failedInvariants == [I.staleSettlementEarned.rawValue])
        #expect(report.checked(.staleSettlementEarned) == 1, "\(report.humanSummary())")
    }

    @Test func noHeartbeatFromTheClientIsNotTheStaleJob() {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, host in
            b.hostSettles("s1", "FAILURE", host: host, reason: "no_heartbeat")
        })
        #expect(report.failedInvariants == [I.cleanSessionSettlesSuccess.rawValue])
    }

    @Test func endedCleanSessionNeverSettledFires() {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { _, _ in })
        #expect(report.failedInvariants == [I.cleanSessionSettlesSuccess.rawValue])
        #expect(report.violations.first?.explanation.contains("never settled") == true)
    }

    @Test func sessionStillRunningAtRunEndIsNotJudged() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 60)
        b.wait(deviceMinutes: 10)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.passed)
        #expect(report.checked(.cleanSessionSettlesSuccess) == 0)
    }

    @Test(arguments: ["SUCCESS", "FAILURE"])
    func maybeViolationAcceptsEitherResolution(resolution: String) {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1", end: .failed)
        b.wait(deviceMinutes: 31)
        b.hostSettles("s1", resolution, host: host)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.passed, "\(report.humanSummary())")
        #expect(report.checked(.cleanSessionSettlesSuccess) == 1)
        #expect(report.checked(.violationSettlesFailure) == 0)
    }

    @Test func maybeViolationStillNeedsASettlement() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1", end: .failed)
        b.wait(deviceMinutes: 31)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.failedInvariants == [I.cleanSessionSettlesSuccess.rawValue])
    }

    // MARK: violation-settles-failure

    @Test func violationSettledSuccessFires() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1", callback: "eventDidReachThreshold")
        b.wait(deviceMinutes: 31)
        b.hostSettles("s1", "SUCCESS", host: host)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.failedInvariants == [I.violationSettlesFailure.rawValue])
        let violation = try #require(report.violations.first)
        #expect(violation.subject == .init(kind: "session", id: "s1"))
        #expect(violation.relevantEvents.contains { $0.event == "callback_delivered" })
        #expect(violation.relevantEvents.contains { $0.event == "ledger" })
    }

    @Test func violationNeverSettledFires() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.failedInvariants == [I.violationSettlesFailure.rawValue])
    }

    @Test func violationAfterTheEndOrAfterSettlementDoesNotCount() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 29)
        b.hostSettles("s1", "SUCCESS", host: host)
        b.violation("s1")  // settled already: a late callback
        b.wait(deviceMinutes: 2)
        b.violation("s1")  // after the end
        let report = FocusPledgeChecker.check(b.finish())
        // Neither callback counts; the SUCCESS a minute before the pledge's end is early, though.
        #expect(report.failedInvariants == [I.noEarlySuccess.rawValue], "\(report.humanSummary())")
        #expect(report.checked(.violationSettlesFailure) == 0)
    }

    @Test func settlementTimeFallsBackToTheJournalsDeviceTime() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 10)
        b.settle("s1", "FAILURE", reason: "user_stopped", traced: false)  // server killed before tracing
        b.shields("")
        b.wait(deviceMinutes: 1)
        b.violation("s1")  // after the settlement: not this session's violation any more
        b.wait(deviceMinutes: 30)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.checked(.violationSettlesFailure) == 0)
        // A FAILURE, no stop; and no stopNativeSession either, so the activity stays registered.
        #expect(report.failedInvariants == [I.cleanSessionSettlesSuccess.rawValue, I.monitoringStoppedAfterSettlement.rawValue])
    }

    @Test func lateCallbackAfterTheEndDoesNotCount() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 31)
        b.violation("s1")  // iOS delivers late, in a batch: outside the interval
        b.hostSettles("s1", "SUCCESS", host: host)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.passed, "\(report.humanSummary())")
        #expect(report.checked(.cleanSessionSettlesSuccess) == 1)
    }

    @Test func manualStopEndsTheIntervalAndAcceptsFailure() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 60)
        b.wait(deviceMinutes: 10)
        b.harness("user_action", ["action": "stop_session", "sid": "s1"])
        b.hostSettles("s1", "FAILURE", host: host, reason: "user_stopped")
        b.wait(deviceMinutes: 1)
        b.violation("s1")  // after the stop, not a violation of the pledge
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.passed, "\(report.humanSummary())")
        #expect(report.checked(.cleanSessionSettlesSuccess) == 1)
        #expect(report.checked(.violationSettlesFailure) == 0)
    }

    // MARK: no-shield-after-settlement

    @Test func shieldsLeftUpAMinuteOfHostTimeAfterSettlementFire() throws {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, _ in
            b.settle("s1", "SUCCESS")
            b.harness("monitoring_removed", ["activity": "focuspledge_s1"])
            b.wait(deviceMinutes: 2)
        })
        #expect(report.failedInvariants == [I.noShieldAfterSettlement.rawValue])
        let violation = try #require(report.violations.first)
        #expect(violation.explanation.contains("60 s of host running time later"))
        #expect(violation.relevantEvents.contains { $0.event == "shields" && $0["apps"] == "com.example.game" })
    }

    /// The host had no running minute between the settlement and the next start (it was dead):
    /// not judged — and the next session's own shields are not the settled one's.
    @Test func shieldsUpWhileTheHostWasDeadUntilTheNextSessionAreNotJudged() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 31)
        b.killHost(host)
        b.settle("s1", "SUCCESS", reason: "no_heartbeat", origin: "staleJob")
        b.wait(deviceMinutes: 5)
        let relaunched = b.spawnHost()
        b.startSession("s2", host: relaunched, minutes: 30)
        b.harness("monitoring_removed", ["activity": "focuspledge_s1"])
        b.wait(deviceMinutes: 31)
        b.hostSettles("s2", "SUCCESS", host: relaunched)
        b.wait(deviceMinutes: 2)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(!report.failedInvariants.contains(I.noShieldAfterSettlement.rawValue), "\(report.humanSummary())")
        #expect(report.checked(.noShieldAfterSettlement) == 1)  // s2 only
    }

    /// The stale job settled while the host ran; the server then went down: the host cannot learn
    /// of the settlement, so its shields are judged only after a minute of host time with the
    /// server up — and then they must be gone (seed: "On next app open, Flutter detects
    /// server-side settlement").
    @Test func aStaleJobSettlementIsJudgedAfterAMinuteOfHostTimeWithTheServerUp() throws {
        func history(serverBackAfterMinutes: Double?) -> [HistoryEvent] {
            var b = HistoryBuilder()
            let server = b.spawnServer()
            let host = b.spawnHost()
            b.startSession("s1", host: host, minutes: 30)
            b.wait(deviceMinutes: 20)
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
            b.killServer(server)
            b.wait(deviceMinutes: 5)
            if let minutes = serverBackAfterMinutes {
                _ = b.spawnServer()
                b.wait(deviceMinutes: minutes)
            }
            return b.finish()
        }
        let down = FocusPledgeChecker.check(history(serverBackAfterMinutes: nil))
        #expect(!down.failedInvariants.contains(I.noShieldAfterSettlement.rawValue), "\(down.humanSummary())")
        #expect(!down.failedInvariants.contains(I.monitoringStoppedAfterSettlement.rawValue), "\(down.humanSummary())")
        #expect(down.checked(.noShieldAfterSettlement) == 0)
        let back = FocusPledgeChecker.check(history(serverBackAfterMinutes: 2))
        #expect(back.failedInvariants.contains(I.noShieldAfterSettlement.rawValue), "\(back.humanSummary())")
        let violation = try #require(back.violations(of: I.noShieldAfterSettlement.rawValue).first)
        #expect(violation.explanation.contains("origin=staleJob"))
    }

    // MARK: failure-while-host-dead-settled-after-relaunch

    /// A violation while the host is dead, then a relaunch; `after` decides what follows.
    static func deadHostViolation(after: (inout HistoryBuilder, Int32) -> Void) -> [HistoryEvent] {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.killHost(host)
        b.violation("s1")
        b.wait(deviceMinutes: 1)
        after(&b, host)
        return b.finish()
    }

    @Test func failureWhileHostDeadSettledAfterRelaunchPasses() {
        let report = FocusPledgeChecker.check(Self.deadHostViolation { b, _ in
            let relaunched = b.spawnHost()
            b.line("host-app", pid: relaunched, "reconciled", ["action": "settle_failure", "sessionId": "s1"])
            b.hostSettles("s1", "FAILURE", host: relaunched)
        })
        #expect(report.passed, "\(report.humanSummary())")
        #expect(report.checked(.failureWhileHostDeadSettledAfterRelaunch) == 1)
        #expect(report.latency("violation-to-host")?.count == 0)  // the host was dead: not a detection sample
    }

    @Test func failureWhileHostDeadSettledBeforeRelaunchFires() throws {
        let report = FocusPledgeChecker.check(Self.deadHostViolation { b, _ in
            b.settle("s1", "FAILURE")  // a client settlement no live host could have made
            b.shields("")
            _ = b.spawnHost()
        })
        #expect(report.failedInvariants == [I.failureWhileHostDeadSettledAfterRelaunch.rawValue])
        #expect(report.violations.first?.explanation.contains("before the relaunch") == true)
    }

    @Test func failureWhileHostDeadNeverSettledFires() {
        let report = FocusPledgeChecker.check(Self.deadHostViolation { b, _ in _ = b.spawnHost() })
        #expect(report.failedInvariants.contains(I.failureWhileHostDeadSettledAfterRelaunch.rawValue))
        #expect(report.violations(of: I.failureWhileHostDeadSettledAfterRelaunch.rawValue).first?.explanation
            .contains("never settled") == true)
    }

    /// The host stayed away past the stale threshold: the stale job's FAILURE (Resilience 4)
    /// keeps the promise that the failure is settled.
    @Test func failureWhileHostDeadSettledByTheStaleJobHolds() {
        let report = FocusPledgeChecker.check(Self.deadHostViolation { b, _ in
            _ = b.spawnHost()
            b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
            b.shields("")
        })
        #expect(!report.failedInvariants.contains(I.failureWhileHostDeadSettledAfterRelaunch.rawValue))
        #expect(report.checked(.failureWhileHostDeadSettledAfterRelaunch) == 1)
    }

    @Test func failureWhileHostDeadWithoutRelaunchIsNotJudged() {
        let report = FocusPledgeChecker.check(Self.deadHostViolation { _, _ in })
        #expect(report.checked(.failureWhileHostDeadSettledAfterRelaunch) == 0)
    }

    // MARK: no-store-corrupt

    @Test func quarantineFires() throws {
        var b = HistoryBuilder()
        _ = b.spawnHost()
        b.harness("quarantine", ["file": "Library/Preferences/group.focuspledge.plist", "movedTo": "quarantine/1.plist", "reason": "bad plist"])
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.failedInvariants == [CoreRules.noStoreCorrupt.name])
        let violation = try #require(report.violations.first)
        #expect(violation.subject == .init(kind: "file", id: "Library/Preferences/group.focuspledge.plist"))
        #expect(violation.relevantEvents.map(\.event) == ["quarantine"])
    }
}
