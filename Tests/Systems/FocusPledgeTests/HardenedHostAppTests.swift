import AppGroup
import SystemKit
import FocusPledge
import Foundation
import Testing

/// The hardened protocol keeps the seed's promises: every violation during a session ends in
/// exactly one FAILURE of that session, a clean session in exactly one SUCCESS, shields come off
/// only after the server confirmed, and a relaunch finishes what a dead host left.
@Suite(.timeLimit(.minutes(1))) struct HardenedHostAppTests {
    /// Session keys that must all be gone once a session is closed.
    static let sessionKeys = FocusPledgeKeys.allKeys.filter { $0 != FocusPledgeKeys.blockedAppsTokens }

    static func expectClosed(_ rig: Rig, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(rig.device.shields == nil, "shields left up", sourceLocation: sourceLocation)
        #expect(rig.device.monitored.isEmpty, "monitoring left running", sourceLocation: sourceLocation)
        for key in sessionKeys {
            #expect(rig.store[key] == nil, "\(key) left in the suite", sourceLocation: sourceLocation)
        }
        #expect(rig.host.state.phase == .idle, sourceLocation: sourceLocation)
    }

    // MARK: Screen Time authorization (H8)

    /// The app picker comes after the Screen Time prompt (seed: "Authorization flow", then "App picker").
    @Test func selectingAppsAsksForScreenTimeFirst() {
        var host = HostApp(variant: .hardened)
        let effects = host.handle(.userSelectedApps(["com.example.game"]))
        #expect(effects.first == .requestAuthorization(.screenTime(member: "individual")))
        #expect(effects.count == 2)
        #expect(host.handle(.screenTimeAuthorization(granted: true, status: "approved")).isEmpty)
        let denied = host.handle(.screenTimeAuthorization(granted: false, status: "FamilyControlsError.authorizationCanceled"))
        #expect(denied == [.trace("error_reported", ["what": "screen_time_authorization", "error": "FamilyControlsError.authorizationCanceled"])])
    }

    /// Denied at the tap (access turned off in Settings, or refused before): the host asks again and
    /// the start waits for the answer, touching nothing meanwhile; a `denied` answer refuses it —
    /// nothing enforced half-way, the refusal traced for the user's start.
    @Test func aStartWhileScreenTimeIsDeniedAsksAgainAndIsRefusedOnlyOnTheUsersNo() {
        var rig = Rig(.hardened)
        let tap = rig.now
        let effects = rig.start("s1", minutes: 30, screenTime: "denied")
        #expect(effects == [
            .requestAuthorization(HostApp.screenTimeRequest),
            .trace("start_waiting", ["sessionId": "s1", "for": "screen_time_authorization"]),
        ])
        #expect(rig.host.state.startWaitingForAccess == HostApp.WaitingStart(sessionId: "s1", durationMinutes: 30, tappedAt: tap))
        // A second start while the prompt is open is refused; the first still waits.
        #expect(rig.start("s2", minutes: 30, screenTime: "denied") == [.trace("start_rejected", ["sessionId": "s2", "reason": HostApp.notAuthorizedReason])])
        #expect(rig.device.shields == nil)
        #expect(rig.device.monitored.isEmpty)
        rig.advance(5)
        let no = rig.host(.screenTimeAuthorization(granted: false, status: "denied", now: rig.now, store: rig.store))
        #expect(no == [
            .trace("error_reported", ["what": "screen_time_authorization", "error": "denied"]),
            .trace("start_rejected", ["sessionId": "s1", "reason": HostApp.notAuthorizedReason]),
        ])
        #expect(rig.device.shields == nil)
        #expect(rig.device.monitored.isEmpty)
        #expect(rig.store[FocusPledgeKeys.sessionRecord] == nil)
        #expect(rig.host.state.phase == .idle)
        #expect(rig.host.state.startWaitingForAccess == nil)
    }

    /// Approved on the second ask: the waiting start goes ahead, its pledge running from the tap.
    @Test func aStartThatWaitedForAccessStartsFromTheTapOnceApproved() {
        var rig = Rig(.hardened)
        let tap = rig.now
        rig.start("s1", minutes: 30, screenTime: "denied")
        rig.advance(5)
        _ = rig.host(.screenTimeAuthorization(granted: true, status: "approved", now: rig.now, store: rig.store))
        #expect(rig.device.shields == ["com.example.game", "com.example.social"])
        #expect(!rig.device.monitored.isEmpty)
        #expect(rig.device.traces(named: "start_rejected").isEmpty)
        guard case .running(let session) = rig.host.state.phase else {
            Issue.record("not running: \(rig.host.state.phase)")
            return
        }
        #expect(session.sessionId == "s1")
        #expect(session.startTime == tap)
        #expect(session.endTime == tap.addingTimeInterval(30 * 60))
        // An answer nobody waits for starts nothing.
        var other = Rig(.hardened)
        #expect(other.host(.screenTimeAuthorization(granted: true, status: "approved", now: other.now, store: other.store)).isEmpty)
        #expect(other.host.state.phase == .idle)
    }

    /// `notDetermined` (the OS does not model it, or the answer is pending) and `approved` start as before.
    @Test func aStartWhileScreenTimeIsApprovedOrUnknownGoesOn() {
        for status in ["approved", "notDetermined", nil] as [String?] {
            var rig = Rig(.hardened)
            rig.start("s1", minutes: 30, screenTime: status)
            #expect(rig.device.shields == ["com.example.game", "com.example.social"], "\(status ?? "nil")")
            #expect(rig.device.traces(named: "start_rejected").isEmpty)
        }
    }

    @Test func violationSettlesFailureExactlyOnceAndThenUnshields() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        #expect(rig.device.shields == ["com.example.game", "com.example.social"])
        rig.run(for: 60)
        let monitor = rig.threshold("s1")
        #expect(monitor.state.lastDecision == .recordedFailure(sessionId: "s1"))
        #expect(rig.device.notifications == [FocusPledgeKeys.failureNotification])
        rig.notified()
        #expect(rig.server.resolutions("s1") == [.failure])
        #expect(rig.device.traces(named: "failure_seen").map { $0["sessionId"] } == ["s1"])
        Self.expectClosed(rig)
        // Nothing more happens, however long we wait.
        rig.run(for: 3600)
        #expect(rig.settleRequests.count == 1)
        #expect(rig.server.resolutions("s1") == [.failure])
    }

    @Test func settleRequestUsesOneKeyPerSessionAndIfActive() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        rig.threshold("s1")
        rig.notified()
        let requests = rig.settleRequests
        #expect(requests.count == 1)
        #expect(requests.first?.idempotencyKey == "settle_s1")
        #expect(requests.first?.ifActive == true)
        #expect(requests.first?.reason == FocusPledgeKeys.appOpenedReason)
    }

    /// At the end enforcement stops at once; SUCCESS waits the grace for a late violation (H6).
    @Test func cleanSessionStopsEnforcingAtTheEndAndSettlesSuccessOnceAfterTheGrace() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 20)
        rig.run(for: 20 * 60 - 5)
        #expect(rig.server.resolutions("s1").isEmpty, "settled before the end")
        #expect(rig.device.shields != nil)
        rig.run(for: 10)
        #expect(rig.device.shields == nil, "shields left up after the end")
        #expect(rig.device.monitored.isEmpty)
        #expect(rig.device.traces(named: "session_ending").count == 1)
        rig.run(for: AppGroupStorage.lateCallbackGraceSeconds - 15)
        #expect(rig.server.resolutions("s1").isEmpty, "settled before the grace was over")
        rig.run(for: 10)
        #expect(rig.server.resolutions("s1") == [.success])
        Self.expectClosed(rig)
        rig.run(for: 600)
        #expect(rig.settleRequests.count == 1)
    }

    /// A concluded session is unshielded at once; the outbox keeps it until the server confirms.
    @Test func aConcludedSessionIsUnshieldedAtOnceAndKeptInTheOutboxUntilConfirmed() {
        var rig = Rig(.hardened)
        rig.autoHTTP = false
        rig.start("s1", minutes: 30)
        rig.flush()
        rig.threshold("s1")
        let effects = rig.notified()
        #expect(resolveRequests(effects).count == 1)
        #expect(effects.contains(.removeShields))
        #expect(rig.device.shields == nil)
        #expect(AppGroupStorage.activeSessionId(rig.store) == nil)
        #expect(AppGroupStorage.unsettled(rig.store).map(\.sessionId) == ["s1"])
        rig.flush()
        #expect(rig.store[FocusPledgeKeys.unsettled] == nil)
        Self.expectClosed(rig)
    }

    /// The next session starts at once even while an earlier one still waits for the server.
    @Test func aStartWhileTheLastSessionWaitsForTheServerIsNotRefused() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 15)
        rig.server.isUp = false
        rig.run(for: 15 * 60 + 5)
        #expect(rig.server.resolutions("s1").isEmpty)
        let effects = rig.start("s2", minutes: 15)
        #expect(rig.device.traces(named: "start_rejected").isEmpty)
        #expect(effects.contains(.applyShields(["com.example.game", "com.example.social"])))
        #expect(AppGroupStorage.activeSessionId(rig.store) == "s2")
        #expect(AppGroupStorage.unsettled(rig.store).map(\.sessionId) == ["s1"])
        rig.server.isUp = true
        rig.run(for: 15 * 60 + 60 + AppGroupStorage.lateCallbackGraceSeconds)
        #expect(rig.server.resolutions("s1") == [.success])
        #expect(rig.server.resolutions("s2") == [.success])
        Self.expectClosed(rig)
    }

    /// A session still running past its end (the host was suspended) is concluded by the next start.
    @Test func aStartConcludesASessionThatRanPastItsEnd() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 15)
        rig.advance(20 * 60)  // no timer fired: the host was suspended
        rig.start("s2", minutes: 15)
        #expect(rig.device.traces(named: "start_rejected").isEmpty)
        #expect(rig.server.resolutions("s1") == [.success])
        #expect(AppGroupStorage.activeSessionId(rig.store) == "s2")
    }

    /// A start while a session runs before its end is refused, and says so.
    @Test func aStartDuringARunningSessionIsRefusedAndReported() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        rig.advance(60)
        rig.start("s2", minutes: 15)
        #expect(rig.device.traces(named: "start_rejected").map { $0["reason"] } == ["session_in_progress"])
        #expect(AppGroupStorage.activeSessionId(rig.store) == "s1")
    }

    /// A failed startMonitoring reaches the machine, which reports it (never swallowed).
    @Test func aMonitoringErrorIsReported() {
        var rig = Rig(.hardened)
        let effects = rig.start("s1", minutes: 30)
        guard let monitoring = effects.first(where: { if case .startMonitoring = $0 { true } else { false } }) else {
            Issue.record("no startMonitoring")
            return
        }
        let reported = rig.host(.effectFailed(EffectFailure(effect: monitoring, error: "intervalTooShort")))
        #expect(reported == [.trace("error_reported", [
            "op": "startMonitoring", "activity": "focuspledge_s1", "error": "intervalTooShort", "sessionId": "s1",
        ])])
    }

    @Test func failureWhileHostWasDeadIsSettledOnRelaunch() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        rig.run(for: 30)
        rig.kill()
        rig.advance(120)
        rig.threshold("s1")
        rig.advance(3600)  // relaunch long after the end: the failure still wins
        let effects = rig.relaunch()
        #expect(effects.contains(.trace("reconciled", ["action": "conclude", "sessionId": "s1"])))
        #expect(rig.server.resolutions("s1") == [.failure])
        Self.expectClosed(rig)
    }

    @Test func sessionThatEndedWhileHostWasDeadIsSettledSuccessOnRelaunch() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        rig.kill()
        rig.advance(30 * 60)
        let monitor = rig.intervalDidEnd("s1")
        #expect(monitor.state.lastDecision == .markedEnded(sessionId: "s1"))
        #expect(rig.store[FocusPledgeKeys.sessionEnded] == "s1")
        rig.advance(600)
        rig.relaunch()
        #expect(rig.server.resolutions("s1") == [.success])
        Self.expectClosed(rig)
    }

    @Test func relaunchBeforeTheEndResumesEnforcementAndSettlesOnce() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        rig.kill()
        rig.device.shields = nil  // as if the previous process died before applying them
        rig.advance(600)
        let effects = rig.relaunch()
        #expect(resolveRequests(effects).isEmpty)
        #expect(rig.device.shields == ["com.example.game", "com.example.social"])
        #expect(rig.device.pollTimerRunning)
        rig.run(for: 20 * 60 + 5 + AppGroupStorage.lateCallbackGraceSeconds)
        #expect(rig.server.resolutions("s1") == [.success])
        Self.expectClosed(rig)
    }

    @Test func hostKilledAfterServerSettledReSettlesWithTheSameKeyAndDoesNotDouble() {
        var rig = Rig(.hardened)
        rig.autoHTTP = false
        rig.start("s1", minutes: 30)
        rig.flush()
        rig.threshold("s1")
        rig.notified()
        rig.kill()  // the settle request reaches the server; its answer is lost
        #expect(rig.server.resolutions("s1") == [.failure])
        #expect(AppGroupStorage.unsettled(rig.store).map(\.sessionId) == ["s1"])
        rig.autoHTTP = true
        rig.advance(1)
        rig.relaunch()
        #expect(rig.settleRequests.map(\.idempotencyKey) == ["settle_s1", "settle_s1"])
        #expect(rig.server.resolutions("s1") == [.failure])
        Self.expectClosed(rig)
    }

    @Test func lateCallbackOfAnEarlierSessionDoesNotFailTheCurrentOne() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 15)
        rig.run(for: 15 * 60 + 5)
        #expect(rig.server.resolutions("s1").isEmpty, "in its grace (H6)")
        rig.start("s2", minutes: 15)  // the user moved on: s1 is settled at once
        #expect(rig.server.resolutions("s1") == [.success])
        let late = rig.threshold("s1")
        #expect(late.state.lastDecision == .ignored(reason: "not_the_active_session"))
        #expect(!AppGroupStorage.checkSessionFailed(rig.store).failed)
        rig.run(for: 15 * 60 + 5 + AppGroupStorage.lateCallbackGraceSeconds)
        #expect(rig.server.resolutions("s2") == [.success])
    }

    /// H6: iOS ran the call about a shield shown during the session after its end (the extension
    /// was held stopped): within the grace it is still recorded, and the session settles FAILURE.
    @Test func aViolationIOSDeliversAfterTheEndWithinTheGraceSettlesFailure() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 15)
        rig.run(for: 15 * 60 + 5)
        #expect(rig.device.shields == nil)
        rig.advance(110)  // the late call runs 115 s after the end
        let late = rig.threshold("s1")
        #expect(late.state.lastDecision == .recordedFailure(sessionId: "s1"))
        rig.notified()
        #expect(rig.server.resolutions("s1") == [.failure])
        Self.expectClosed(rig)
    }

    /// H6 on relaunch: a host that comes back inside the grace does not shield again, and settles
    /// SUCCESS when the grace is over.
    @Test func aRelaunchInsideTheGraceDoesNotEnforceAgainAndSettlesAfterIt() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 15)
        rig.run(for: 10 * 60)
        rig.kill()
        rig.advance(5 * 60 + 60)
        rig.device.shields = ["com.example.game"]  // the dead host could not remove them at the end
        rig.relaunch()
        #expect(rig.device.traces(named: "reconciled").last?["action"] == "ending")
        #expect(rig.device.shields == nil)
        #expect(rig.server.resolutions("s1").isEmpty)
        rig.run(for: AppGroupStorage.lateCallbackGraceSeconds)
        #expect(rig.server.resolutions("s1") == [.success])
        Self.expectClosed(rig)
    }

    /// H7: the pledge runs from the user's tap. A host held stopped reads a start 200 s late; the
    /// next pledge, started on time after the first one's end, is not refused.
    @Test func aStartReadLateRunsFromTheTapAndTheNextStartIsNotRefused() {
        var rig = Rig(.hardened)
        let tap = rig.now
        rig.advance(200)
        rig.start("s1", minutes: 15, tappedAt: tap)
        #expect(AppGroupStorage.activeSession(rig.store)?.endTime == tap.addingTimeInterval(15 * 60))
        rig.run(for: 15 * 60 - 200 + 120)  // the next tap: 2 minutes after s1's end
        rig.start("s2", minutes: 15, tappedAt: rig.now)
        #expect(rig.device.traces(named: "start_rejected").isEmpty)
        #expect(rig.server.resolutions("s1") == [.success])
        #expect(AppGroupStorage.activeSessionId(rig.store) == "s2")
    }

    @Test func hostIgnoresAFailureRecordOfAnotherSession() {
        var rig = Rig(.hardened)
        rig.start("s2", minutes: 15)
        // A record someone else left: failed, but bound to s1.
        if case .setDefaults(let writes, _) = AppGroupStorage.markSessionFailed(
            reason: "app_opened", appBundleId: nil, now: rig.now, variant: .hardened, sessionId: "s1")
        {
            for w in writes { rig.device.store[w.key] = w.value }
        }
        #expect(AppGroupStorage.checkSessionFailed(rig.device.store).sessionId == "s1")
        rig.notified()
        rig.poll()
        #expect(rig.settleRequests.isEmpty)
        #expect(rig.device.traces(named: "failure_seen").isEmpty)
    }

    @Test func retriesBackOffExponentiallyUpToTheCapThenStallAndResumeOnTheNextTick() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        rig.server.isUp = false
        rig.threshold("s1")
        rig.notified()
        rig.run(for: 600)
        let delays = rig.allHostEffects.compactMap { e -> Double? in
            if case .startTimer(let name, .after(let seconds)) = e, HostApp.retryRequestId(timer: name) != nil { return seconds }
            return nil
        }
        // Each stalled episode restarts; look at the first one.
        let firstEpisode = Array(delays.prefix(RetryPolicy.maxAttemptsPerEpisode - 1))
        #expect(firstEpisode == [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30, 30])
        #expect(delays.allSatisfy { $0 <= RetryPolicy.maxBackoffSeconds })
        #expect(rig.device.traces(named: "settle_stalled").count >= 1)
        #expect(Set(rig.settleRequests.map(\.idempotencyKey)) == ["settle_s1"])
        #expect(AppGroupStorage.unsettled(rig.store).map(\.sessionId) == ["s1"], "dropped from the outbox without a settlement")
        // Outstanding work stays bounded: one settle request or one retry timer at a time.
        #expect(rig.host.state.retryWaiting.count + rig.host.state.inFlight.count <= 2)
        rig.server.isUp = true
        rig.run(for: 60)
        #expect(rig.server.resolutions("s1") == [.failure])
        Self.expectClosed(rig)
    }

    @Test func aServerSideSettlementIsLearntFromTheHeartbeatAndCleanedUp() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 60)
        rig.run(for: 30)
        rig.server.staleJob("s1")
        rig.run(for: 6)
        #expect(rig.device.traces(named: "server_resolved").map { $0["sessionId"] } == ["s1"])
        // The outbox still asks; the server's answer is `alreadyResolved`, nothing is settled twice.
        #expect(rig.device.traces(named: "settle_result").map { $0["outcome"] } == ["alreadyResolved"])
        #expect(rig.server.resolutions("s1") == [.failure])
        Self.expectClosed(rig)
    }

    @Test func aSettleAnsweredAlreadyResolvedAlsoCleansUp() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 60)
        rig.server.staleJob("s1")
        rig.stop()  // the manual stop settles FAILURE, the server says it is already resolved
        #expect(rig.settleRequests.map(\.reason) == [HostApp.userStoppedReason])
        #expect(rig.device.traces(named: "settle_result").first?["outcome"] == "alreadyResolved")
        #expect(rig.server.resolutions("s1") == [.failure])
        Self.expectClosed(rig)
    }

    @Test func startWithoutSelectedAppsIsRejectedBeforeAnyWrite() {
        var rig = Rig(.hardened, apps: nil)
        let effects = rig.start("s1", minutes: 30)
        #expect(effects == [.trace("start_rejected", ["sessionId": "s1", "reason": "no_blocked_apps"])])
        #expect(rig.store.isEmpty)
    }

    /// A selection the user emptied, or a pledge of 0 minutes, would start a session that
    /// enforces nothing (or ends as it starts) and settle SUCCESS for it: refused, nothing written.
    @Test(arguments: [("empty selection", 30, "no_blocked_apps"), ("zero minutes", 0, "invalid_duration")])
    func aStartThatCouldEnforceNothingIsRejectedBeforeAnyWrite(_ what: String, minutes: Int, reason: String) {
        var rig = Rig(.hardened, apps: what == "empty selection" ? [] : ["com.example.game"])
        let before = rig.store
        let effects = rig.start("s1", minutes: minutes)
        #expect(effects == [.trace("start_rejected", ["sessionId": "s1", "reason": reason])], "\(what)")
        #expect(rig.store == before)
        #expect(rig.device.shields == nil && rig.device.monitored.isEmpty)
    }

    @Test func everyHardenedWriteIsAtomic() {
        var rig = Rig(.hardened)
        rig.start("s1", minutes: 30)
        rig.threshold("s1")
        rig.shieldTap("com.example.game")
        rig.notified()
        rig.start("s2", minutes: 15)
        rig.run(for: 15 * 60 + 5)
        let writes = rig.performed.compactMap { e -> Bool? in
            if case .setDefaults(_, let atomic) = e { return atomic }
            return nil
        }
        #expect(writes.count >= 6)
        #expect(writes.allSatisfy { $0 })
    }
}
