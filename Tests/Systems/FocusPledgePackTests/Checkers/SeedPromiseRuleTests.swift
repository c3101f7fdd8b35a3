@testable import FocusPledgePack
import HarnessKit
import History
import Testing

/// One history that breaks each seed promise the pack judges, and one that keeps it.
@Suite(.timeLimit(.minutes(1))) struct SeedPromiseRuleTests {
    static func check(_ events: [HistoryEvent]) -> CheckReport { FocusPledgeChecker.check(events) }

    // MARK: start-enforced

    @Test func aStartWithShieldsAndMonitoringHolds() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.harness("user_action", ["action": "select_apps", "apps": "com.example.game"])
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 2)
        let report = Self.check(b.finish())
        #expect(!report.failedInvariants.contains("start-enforced"))
        #expect(report.checked(.startEnforced) == 1)
    }

    @Test func aStartTheHostRefusesIsAViolation() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.harness("user_action", ["action": "start_session", "sid": "s1", "durationMinutes": "30"])
        b.line("host-app", pid: host, "start_rejected", ["sessionId": "s1", "reason": "session_in_progress"])
        b.wait(deviceMinutes: 2)
        let report = Self.check(b.finish())
        #expect(report.violations(of: "start-enforced").map(\.subject?.id) == ["s1"])
    }

    @Test func aStartWhoseMonitoringNeverCameIsAViolation() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.harness("user_action", ["action": "select_apps", "apps": "com.example.game"])
        b.harness("user_action", ["action": "start_session", "sid": "s1", "durationMinutes": "30"])
        b.shields("com.example.game")
        b.line("host-app", pid: host, "session_started", ["sessionId": "s1", "durationMinutes": "30"])
        b.line("host-app", pid: host, "monitoring_error", ["activity": "focuspledge_s1", "error": "intervalTooShort"])
        b.wait(deviceMinutes: 2)
        let report = Self.check(b.finish())
        #expect(report.violations(of: "start-enforced").first?.explanation.contains("focuspledge_s1 not monitored") == true)
    }

    // MARK: blocked-app-shielded

    static func openBlockedApp(shielded: Bool) -> [HistoryEvent] {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 2)
        b.harness("user_action", ["action": "open_blocked_app", "sid": "s1", "app": "com.example.game"])
        if shielded {
            b.harness("shield_shown", ["sid": "s1", "app": "com.example.game"])
        } else {
            b.harness("app_in_use", ["sid": "s1", "app": "com.example.game", "seconds": "60"])
        }
        b.wait(deviceMinutes: 30)
        b.hostSettles("s1", "FAILURE", host: host)
        return b.finish()
    }

    @Test func aBlockedAppThatShowsItsShieldHolds() {
        let report = Self.check(Self.openBlockedApp(shielded: true))
        #expect(!report.failedInvariants.contains("blocked-app-shielded"))
        #expect(report.checked(.blockedAppShielded) == 1)
    }

    @Test func aBlockedAppOpenedUnshieldedDuringTheSessionIsAViolation() {
        let report = Self.check(Self.openBlockedApp(shielded: false))
        #expect(report.violations(of: "blocked-app-shielded").map(\.subject?.id) == ["s1"])
    }

    // MARK: stop-removes-shields

    static func stop(removes: Bool) -> [HistoryEvent] {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 5)
        b.harness("user_action", ["action": "stop_session", "sid": "s1"])
        if removes {
            b.shields("")
            b.harness("monitoring_removed", ["activity": "focuspledge_s1"])
        }
        b.wait(deviceMinutes: 3)
        return b.finish()
    }

    @Test func aStopThatRemovesShieldsAndMonitoringHolds() {
        let report = Self.check(Self.stop(removes: true))
        #expect(!report.failedInvariants.contains("stop-removes-shields"))
        #expect(report.checked(.stopRemovesShields) == 1)
    }

    @Test func aStopThatLeavesShieldsUpIsAViolation() {
        let report = Self.check(Self.stop(removes: false))
        let v = report.violations(of: "stop-removes-shields")
        #expect(v.map(\.subject?.id) == ["s1"])
        #expect(v.first?.explanation.contains("still monitored") == true)
    }

    // MARK: monitoring-stopped-after-settlement

    @Test func aSettledSessionStillMonitoredAMinuteLaterIsAViolation() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 31)
        b.settle("s1", "SUCCESS")
        b.shields("")
        b.wait(deviceMinutes: 2)
        let report = Self.check(b.finish())
        #expect(report.violations(of: "monitoring-stopped-after-settlement").map(\.subject?.id) == ["s1"])
        #expect(!report.failedInvariants.contains("no-shield-after-settlement"))
    }

    @Test func aSettledSessionWhoseMonitoringStoppedHolds() {
        let report = Self.check(CheckerFixture.cleanSession { b, host in
            b.hostSettles("s1", "SUCCESS", host: host)
            b.wait(deviceMinutes: 2)
        })
        #expect(!report.failedInvariants.contains("monitoring-stopped-after-settlement"))
        #expect(report.checked(.monitoringStoppedAfterSettlement) == 1)
    }

    // MARK: failure-reason-recorded

    static func violationSettled(reason: String) -> [HistoryEvent] {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 5)
        b.violation("s1")
        b.hostSettles("s1", "FAILURE", host: host, reason: reason)
        b.wait(deviceMinutes: 2)
        return b.finish()
    }

    @Test func aViolationSettledWithTheExtensionsReasonHolds() {
        let report = Self.check(Self.violationSettled(reason: "app_opened"))
        #expect(!report.failedInvariants.contains("failure-reason-recorded"))
        #expect(report.checked(.failureReasonRecorded) == 1)
    }

    @Test func aViolationSettledWithTheDartFallbackReasonIsAViolation() {
        let report = Self.check(Self.violationSettled(reason: "native_violation"))
        #expect(report.violations(of: "failure-reason-recorded").map(\.subject?.id) == ["s1"])
    }

    // MARK: error-reported

    static func monitoringError(reported: Bool) -> [HistoryEvent] {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.line("host-app", pid: host, "monitoring_error", ["activity": "focuspledge_s1", "error": "excessiveActivities"])
        if reported { b.line("host-app", pid: host, "error_reported", ["op": "startMonitoring", "activity": "focuspledge_s1"]) }
        b.line("host-app", pid: host, "session_started", ["sessionId": "s1", "durationMinutes": "30"])
        b.wait(deviceMinutes: 2)
        return b.finish()
    }

    @Test func aReportedMonitoringErrorHolds() {
        let report = Self.check(Self.monitoringError(reported: true))
        #expect(!report.failedInvariants.contains("error-reported"))
        #expect(report.checked(.errorReported) == 1)
    }

    @Test func aSwallowedMonitoringErrorIsAViolation() {
        let report = Self.check(Self.monitoringError(reported: false))
        #expect(report.violations(of: "error-reported").map(\.subject?.id) == ["s1"])
    }

    // MARK: no-early-success

    @Test func aSuccessBeforeThePledgesEndIsAViolation() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 10)
        b.hostSettles("s1", "SUCCESS", host: host)
        b.wait(deviceMinutes: 25)
        let report = Self.check(b.finish())
        #expect(report.violations(of: "no-early-success").map(\.subject?.id) == ["s1"])
    }

    @Test func aSuccessAfterThePledgesEndHolds() {
        let report = Self.check(CheckerFixture.cleanSession { b, host in b.hostSettles("s1", "SUCCESS", host: host) })
        #expect(!report.failedInvariants.contains("no-early-success"))
        #expect(report.checked(.noEarlySuccess) == 1)
    }

    /// The pledge runs from the user's tap (A1, H7): a host that read the start 200 s late and
    /// settles SUCCESS when the pledge's end has passed — before its own late end — keeps it; a
    /// SUCCESS before the tap's end does not.
    @Test func thePledgesEndCountsFromTheTapNotFromWhenTheHostReadIt() {
        func history(settleAfterTapMinutes minutes: Double) -> [HistoryEvent] {
            var b = HistoryBuilder()
            let host = b.spawnHost()
            b.harness("user_action", ["action": "start_session", "sid": "s1", "durationMinutes": "15"])
            b.wait(deviceMinutes: 200.0 / 60)
            b.shields("com.example.game")
            b.line("host-app", pid: host, "session_started", ["sessionId": "s1", "durationMinutes": "15"])
            b.harness("monitoring_registered", ["activity": "focuspledge_s1", "repeats": "false"])
            b.wait(deviceMinutes: minutes - 200.0 / 60)
            b.hostSettles("s1", "SUCCESS", host: host)
            b.wait(deviceMinutes: 10)
            return b.finish()
        }
        let kept = Self.check(history(settleAfterTapMinutes: 16))
        #expect(!kept.failedInvariants.contains("no-early-success"), "\(kept.humanSummary())")
        #expect(kept.checked(.noEarlySuccess) == 1)
        let early = Self.check(history(settleAfterTapMinutes: 14))
        #expect(early.violations(of: "no-early-success").map(\.subject?.id) == ["s1"])
    }

    // MARK: violations iOS told the app about, and violations it lost

    /// as-written's finding: iOS showed the shield and asked the app's shield-configuration
    /// extension, which completed without recording anything; the session settled SUCCESS.
    @Test func aShownShieldTheAppIgnoredMustStillSettleFailure() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 5)
        b.harness("user_action", ["action": "open_blocked_app", "sid": "s1", "app": "com.example.game"])
        b.harness("shield_shown", ["sid": "s1", "app": "com.example.game"])
        b.harness("callback_delivered", ["callback": "shieldConfiguration", "delivery": "9", "sid": "s1", "childPid": "4444"])
        b.harness("callback_completed", ["callback": "shieldConfiguration", "delivery": "9", "childPid": "4444"])
        b.wait(deviceMinutes: 26)
        b.hostSettles("s1", "SUCCESS", host: host)
        let report = Self.check(b.finish())
        #expect(report.violations(of: "violation-settles-failure").map(\.subject?.id) == ["s1"])
        #expect(report.lostByOS == nil)
    }

    /// iOS dropped every call about the violation: the system is not blamed, and the report says so.
    @Test func aViolationIOSLostIsReportedNotBlamed() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.wait(deviceMinutes: 5)
        b.harness("user_action", ["action": "press_shield_button", "sid": "s1", "app": "com.example.game"])
        b.harness("shield_shown", ["sid": "s1", "app": "com.example.game"])
        b.harness("callback_dropped", ["callback": "shieldConfiguration", "sid": "s1", "fault": "drop"])
        b.harness("callback_dropped", ["callback": "shieldAction", "sid": "s1", "fault": "drop"])
        b.wait(deviceMinutes: 26)
        b.hostSettles("s1", "SUCCESS", host: host)
        let report = Self.check(b.finish())
        #expect(report.violations.isEmpty)
        #expect(report.lostByOS?.map(\.subject?.id) == ["s1"])
        #expect(report.lostByOS?.first?.explanation.contains("2 dropped") == true)
    }
}
