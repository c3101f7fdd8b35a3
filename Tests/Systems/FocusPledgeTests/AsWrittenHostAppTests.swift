import AppGroup
import SystemKit
import FocusPledge
import Foundation
import Testing

/// The as-written variant must reproduce the seed's bugs, each from its own text.
@Suite(.timeLimit(.minutes(1))) struct AsWrittenHostAppTests {
    /// The seed's Dart never reads an authorization answer (A16): as-written starts whatever the status.
    @Test func asWrittenStartsEvenWhenScreenTimeIsDenied() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 30, screenTime: "denied")
        #expect(rig.device.shields != nil)
        #expect(rig.device.traces(named: "start_rejected").isEmpty)
        var host = HostApp(variant: .asWritten)
        #expect(host.handle(.userSelectedApps(["a"])).count == 1, "as-written asks through the seed's Swift, not the machine")
        #expect(host.handle(.screenTimeAuthorization(granted: false, status: "denied")).isEmpty)
    }

    @Test func aCleanSessionStillSettlesSuccessOnceWhenNothingGoesWrong() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 15)
        rig.run(for: 15 * 60 + 1)
        #expect(rig.server.resolutions("s1") == [.success])
        #expect(rig.device.shields == nil)
        #expect(rig.store[FocusPledgeKeys.activeSessionId] == nil)
    }

    @Test func aViolationStillSettlesFailureOnceWhenNothingGoesWrong() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.run(for: 20)
        rig.threshold("s1")
        rig.run(for: 5)
        #expect(rig.server.resolutions("s1") == [.failure])
        #expect(rig.device.traces(named: "failure_seen").map { $0["sessionId"] } == ["s1"])
        #expect(rig.device.shields == nil)
        rig.run(for: 3600)
        #expect(rig.server.resolutions("s1") == [.failure], "the countdown must not settle SUCCESS too")
    }

    /// Seed: `eventDidReachThreshold` → `markSessionFailed(reason: "app_opened", appBundleId: nil)`
    /// whatever the activity; the failure keys carry no session id.
    @Test func aLateThresholdOfSessionOneFailsSessionTwo() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 15)
        rig.run(for: 15 * 60 + 1)
        #expect(rig.server.resolutions("s1") == [.success])
        rig.start("s2", minutes: 15)
        rig.run(for: 10)
        let late = rig.threshold("s1")  // s1's callback, delivered late
        #expect(late.state.lastDecision == .recordedFailure(sessionId: nil))
        #expect(rig.store[FocusPledgeKeys.failureRecord] == nil)
        rig.run(for: 5)
        #expect(rig.server.resolutions("s2") == [.failure])
        #expect(rig.server.resolutions("s1") == [.success])
    }

    /// Seed: `'idempotencyKey': 'flutter_${sessionId}_${DateTime.now().millisecondsSinceEpoch}'`
    /// and `checkForActiveSession` settling whatever failure it finds.
    @Test func aHostKilledAfterTheServerSettledReSettlesWithAFreshKey() {
        var rig = Rig(.asWritten)
        rig.autoHTTP = false
        rig.start("s1", minutes: 60)
        rig.flush()
        rig.threshold("s1")
        rig.notified()
        rig.kill()  // the request reached the server; the process died before stopNativeSession
        #expect(rig.server.resolutions("s1") == [.failure])
        #expect(rig.store[FocusPledgeKeys.sessionFailed] == true)
        rig.autoHTTP = true
        rig.advance(2)
        rig.relaunch()
        let keys = rig.settleRequests.map(\.idempotencyKey)
        #expect(keys.count == 2)
        #expect(Set(keys).count == 2, "a fresh key per attempt")
        #expect(rig.settleRequests.allSatisfy { !$0.ifActive })
        #expect(rig.server.resolutions("s1") == [.failure, .failure], "settled twice")
    }

    @Test func idempotencyKeyIsFlutterSessionMilliseconds() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.threshold("s1")
        rig.notified()
        let ms = Int64((rig.now.timeIntervalSince1970 * 1000).rounded(.down))
        #expect(rig.settleRequests.map(\.idempotencyKey) == ["flutter_s1_\(ms)"])
    }

    /// Seed: `if (sessionId != null) { ... } else { _nativeBridge.startPolling(sessionId); }` — no
    /// expiry check (the prose's "hasn't expired" is not in the code), and the countdown that would
    /// settle SUCCESS lived in the dead process's screen.
    @Test func aRelaunchAfterExpiryResumesPollingAndNeverSettlesSuccess() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.run(for: 60)
        rig.kill()
        rig.advance(2 * 3600)
        let effects = rig.relaunch()
        #expect(effects.contains(.trace("reconciled", ["action": "resume_polling", "sessionId": "s1"])))
        #expect(effects.contains(.startTimer(HostApp.pollTimer, .every(seconds: 5))))
        rig.run(for: 3600)
        #expect(rig.settleRequests.isEmpty)
        #expect(rig.server.resolutions("s1").isEmpty)
        #expect(rig.device.shields != nil, "still shielded hours after the end")
        let heartbeats = settlementCalls(rig.allHostEffects).filter { $0 == .heartbeat(sessionId: "s1") }
        #expect(heartbeats.count > 100, "polls an expired session forever")
    }

    /// Seed: markSessionFailed sets `focuspledge_session_failed = true` FIRST, in a separate set.
    @Test func anExtensionKilledBetweenFailedAndReasonLeavesReasonNil() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.threshold("s1", killAfter: 1)
        #expect(rig.store[FocusPledgeKeys.sessionFailed] == true)
        #expect(rig.store[FocusPledgeKeys.failureReason] == nil)
        #expect(rig.store[FocusPledgeKeys.failureTimestamp] == nil)
        #expect(rig.device.notifications.isEmpty, "died before posting")
        rig.run(for: 5)
        #expect(rig.device.traces(named: "failure_seen").first?["reason"] == "nil")
        let request = rig.settleRequests.first
        #expect(request?.reason == FocusPledgeKeys.fallbackFailureReason)  // `reason ?? 'native_violation'`
        #expect(request?.nativeEvidence == ["timestamp": "0.0"])
    }

    /// Seed: `stopPolling();` then `await _settleSessionOnServer(...)` inside a try whose catch only
    /// prints.
    @Test func pollingStopsBeforeTheSettleAndAThrowIsNeverRetried() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.server.isUp = false
        rig.threshold("s1")
        let effects = rig.notified()
        let stop = index(of: { $0 == .cancelTimer(HostApp.pollTimer) }, in: effects)
        let settle = index(of: { !resolveRequests([$0]).isEmpty }, in: effects)
        #expect(stop != nil && settle != nil && stop! < settle!)
        #expect(!rig.allHostEffects.contains { if case .startTimer(let name, _) = $0 { return HostApp.retryRequestId(timer: name) != nil } else { return false } })
        rig.server.isUp = true
        rig.run(for: 3600)
        #expect(rig.host.state.settleRequestsSent == 1)
        #expect(rig.server.resolutions("s1").isEmpty, "the failure is never settled while the process lives")
        #expect(rig.device.shields != nil)
        guard case .settling(let settlement) = rig.host.state.phase else {
            Issue.record("expected a settlement that gave up, got \(rig.host.state.phase)")
            return
        }
        #expect(settlement.status == .gaveUp)
    }

    /// Seed: `setActiveSession` writes id, times, failed=false — and never clears failure_reason,
    /// failure_timestamp or failure_app_bundle_id; the monitor's markSessionFailed(appBundleId: nil)
    /// does not overwrite the bundle id.
    @Test func aNewSessionInheritsTheLastFailuresBundleIdAsEvidence() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.server.isUp = false
        rig.shieldTap("com.example.game")
        rig.notified()  // the settle throws: stopNativeSession never runs, nothing is cleared
        rig.server.isUp = true
        rig.start("s2", minutes: 60)
        #expect(rig.store[FocusPledgeKeys.activeSessionId] == "s2")
        #expect(rig.store[FocusPledgeKeys.sessionFailed] == false)
        #expect(rig.store[FocusPledgeKeys.failureAppBundleId] == "com.example.game")
        #expect(rig.store[FocusPledgeKeys.failureReason] == "app_opened")
        rig.threshold("s2")  // no bundle id in this callback
        rig.run(for: 5)
        let request = rig.settleRequests.last
        #expect(request?.sessionId == "s2")
        #expect(request?.nativeEvidence?["appBundleId"] == "com.example.game", "s1's app blamed for s2")
    }

    /// Seed: startNativeSession calls setActiveSession, THEN `guard let tokensData = ...` returns
    /// "No blocked apps selected" — which the Dart side ignores (`await invokeMethod(...)` only).
    @Test func stateIsWrittenBeforeTheTokensAreCheckedAndPollingRunsUnshielded() {
        var rig = Rig(.asWritten, apps: nil)
        let effects = rig.start("s1", minutes: 60)
        #expect(rig.store[FocusPledgeKeys.activeSessionId] == "s1")
        #expect(rig.device.shields == nil)
        #expect(rig.device.monitored.isEmpty)
        #expect(rig.device.pollTimerRunning)
        #expect(effects.contains(.trace("start_native_failed", ["sessionId": "s1", "error": "No blocked apps selected"])))
    }

    /// Seed: the writes of setActiveSession, clearActiveSession and markSessionFailed are separate
    /// `set`/`removeObject` calls, in the seed's order.
    @Test func writesAreSeparateAndInTheSeedsOrder() {
        var rig = Rig(.asWritten)
        let start = rig.start("s1", minutes: 60)
        let setActive = start.compactMap { e -> [DefaultsWrite]? in
            if case .setDefaults(let w, false) = e { return w } else { return nil }
        }
        #expect(setActive.first?.map(\.key) == [
            FocusPledgeKeys.activeSessionId, FocusPledgeKeys.sessionStartTime, FocusPledgeKeys.sessionEndTime,
            FocusPledgeKeys.sessionFailed,
        ])
        var monitor = MonitorExtension(variant: .asWritten)
        let failed = monitor.handle(.eventDidReachThreshold(event: "e", activity: "focuspledge_s1", now: rig.now, store: rig.store))
        #expect(failed.first == .setDefaults([
            .set(FocusPledgeKeys.sessionFailed, true),
            .set(FocusPledgeKeys.failureReason, "app_opened"),
            .set(FocusPledgeKeys.failureTimestamp, .real(rig.now.timeIntervalSince1970)),
        ], atomic: false))
        rig.stop()
        let clear = rig.performed.last {
            if case .setDefaults(_, false) = $0 { return true } else { return false }
        }
        #expect(clear == .setDefaults([
            .remove(FocusPledgeKeys.activeSessionId), .remove(FocusPledgeKeys.sessionStartTime),
            .remove(FocusPledgeKeys.sessionEndTime), .remove(FocusPledgeKeys.sessionFailed),
            .remove(FocusPledgeKeys.failureReason), .remove(FocusPledgeKeys.failureTimestamp),
            .remove(FocusPledgeKeys.failureAppBundleId),
        ], atomic: false))
    }

    /// Seed (ActiveSessionScreen): `'durationMinutes': 60`, and the DeviceActivitySchedule built
    /// from `DateComponents(hour:minute:)` of the start and end, `repeats: false`, no events. The
    /// host sends nothing to the server at start (the pledge exists there already: README, A1).
    @Test func theNativeSessionIsAnHourMinuteScheduleOfSixtyMinutesWithoutEvents() {
        var rig = Rig(.asWritten)
        rig.advance(17.25)  // not on a minute boundary
        let startedAt = rig.now
        let effects = rig.start("s1", minutes: 25)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let end = startedAt.addingTimeInterval(3600)
        let expected = MonitoringSchedule(
            intervalStart: DateComponents(hour: utc.component(.hour, from: startedAt), minute: utc.component(.minute, from: startedAt)),
            intervalEnd: DateComponents(hour: utc.component(.hour, from: end), minute: utc.component(.minute, from: end)),
            repeats: false)
        #expect(effects.contains(.startMonitoringSchedule(activity: "focuspledge_s1", schedule: expected, events: [:])))
        #expect(!effects.contains { if case .startMonitoring = $0 { true } else { false } })
        #expect(rig.store[FocusPledgeKeys.sessionEndTime] == .real(startedAt.timeIntervalSince1970 + 3600))
        #expect(rig.device.sessionTimer == startedAt.addingTimeInterval(25 * 60))
        #expect(rig.server.received.isEmpty)
    }

    /// The seed's schedule is read in the device's time zone: 23:40 in Berlin is hour 23, and the
    /// end an hour later wraps past midnight to 00:40.
    @Test func theSeedScheduleUsesTheDevicesTimeZoneAndWrapsPastMidnight() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let start = Date(timeIntervalSince1970: 1_771_368_000)  // 2026-02-17T22:40:00Z = 23:40 in Berlin
        let s = HostApp.seedSchedule(start: start, end: start.addingTimeInterval(3600), timeZone: berlin)
        #expect(s.intervalStart == DateComponents(hour: 23, minute: 40))
        #expect(s.intervalEnd == DateComponents(hour: 0, minute: 40))
        #expect(s.repeats == false)
    }

    /// Seed: a manual stop is stopNativeSession only — the server is never told.
    @Test func aManualStopSettlesNothing() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.run(for: 60)
        rig.stop()
        #expect(rig.settleRequests.isEmpty)
        #expect(rig.device.shields == nil)
        #expect(!rig.device.pollTimerRunning)
        #expect(rig.store[FocusPledgeKeys.activeSessionId] == nil)
    }

    /// A failure that happened while the host was dead IS settled on relaunch (seed: "If session
    /// failed while app was dead, detect on relaunch and settle").
    @Test func aFailureWhileDeadIsSettledOnRelaunch() {
        var rig = Rig(.asWritten)
        rig.start("s1", minutes: 60)
        rig.kill()
        rig.threshold("s1")
        rig.advance(60)
        let effects = rig.relaunch()
        #expect(effects.contains(.trace("reconciled", ["action": "settle_failure", "sessionId": "s1"])))
        #expect(rig.server.resolutions("s1") == [.failure])
        #expect(rig.device.shields == nil)
    }
}
