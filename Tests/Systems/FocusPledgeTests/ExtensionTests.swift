import AppGroup
import SystemKit
import FocusPledge
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct ExtensionTests {
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    /// A suite with session s1 running from t0 for 30 minutes (hardened layout).
    static func activeStore(_ sessionId: String = "s1") -> Snapshot {
        var store: Snapshot = [:]
        if case .setDefaults(let writes, _) = AppGroupStorage.setActiveSession(
            id: sessionId, startTime: t0, endTime: t0.addingTimeInterval(1800), variant: .hardened)
        {
            for w in writes { store[w.key] = w.value }
        }
        return store
    }

    static func apply(_ effects: [Effect], to store: inout Snapshot) {
        for case .setDefaults(let writes, _) in effects {
            for w in writes { store[w.key] = w.value }
        }
    }

    @Test func theSeedsNamesAreExact() {
        #expect(FocusPledgeKeys.appGroupId == "group.com.focuspledge.shared")
        #expect(FocusPledgeKeys.seedKeys == [
            "focuspledge_active_session_id", "focuspledge_session_start_time", "focuspledge_session_end_time",
            "focuspledge_session_failed", "focuspledge_failure_reason", "focuspledge_failure_timestamp",
            "focuspledge_failure_app_bundle_id", "focuspledge_blocked_apps_tokens",
        ])
        #expect(FocusPledgeKeys.allKeys.allSatisfy { $0.hasPrefix("focuspledge_") })
        #expect(FocusPledgeKeys.activityName(sessionId: "abc") == "focuspledge_abc")
        #expect(FocusPledgeKeys.sessionId(fromActivity: "focuspledge_abc") == "abc")
        #expect(FocusPledgeKeys.sessionId(fromActivity: "other_abc") == nil)
        #expect(Variant(rawValue: "as-written") == .asWritten)
    }

    @Test func asWrittenShieldActionRecordsTheAppAndRespondsNone() {
        var shield = ShieldActionExtension(variant: .asWritten)
        let effects = shield.handle(.handle(action: .secondaryButtonPressed, appBundleId: "com.x", now: Self.t0, store: [:]))
        #expect(effects.first == .setDefaults([
            .set(FocusPledgeKeys.sessionFailed, true),
            .set(FocusPledgeKeys.failureReason, "app_opened"),
            .set(FocusPledgeKeys.failureTimestamp, .real(Self.t0.timeIntervalSince1970)),
            .set(FocusPledgeKeys.failureAppBundleId, "com.x"),
        ], atomic: false))
        // The seed's Swift posts nothing (README, A2 is hardened's).
        #expect(!effects.contains(.postNotification("com.focuspledge.failure")))
        #expect(effects.count == 2 && effects.last == .respond(.none))
        #expect(shield.state.lastDecision == .recordedFailure(sessionId: nil))
    }

    @Test func hardenedShieldActionBindsTheFailureToTheActiveSession() {
        var shield = ShieldActionExtension(variant: .hardened)
        var store = Self.activeStore()
        let effects = shield.handle(.handle(
            action: .primaryButtonPressed, appBundleId: "com.x", now: Self.t0.addingTimeInterval(60), store: store))
        Self.apply(effects, to: &store)
        let status = AppGroupStorage.checkSessionFailed(store)
        #expect(status.failed && status.sessionId == "s1" && status.appBundleId == "com.x" && status.reason == "app_opened")
        #expect(effects.last == .respond(.none))
        // One key per write: iOS's UserDefaults has no multi-key atomic write (torn_write).
        #expect(effects.allSatisfy { if case .setDefaults(let writes, _) = $0 { return writes.count == 1 } else { return true } })
    }

    @Test func hardenedShieldActionWithNoSessionOnlyResponds() {
        var shield = ShieldActionExtension(variant: .hardened)
        let effects = shield.handle(.handle(action: .primaryButtonPressed, appBundleId: "com.x", now: Self.t0, store: [:]))
        #expect(shield.state.lastDecision == .ignored(reason: "no_active_session"))
        #expect(!effects.contains { if case .setDefaults = $0 { return true } else { return false } })
        #expect(!effects.contains(.postNotification(FocusPledgeKeys.failureNotification)))
        #expect(effects.last == .respond(.none))
    }

    @Test func hardenedMonitorKeepsTheFirstFailureAndIgnoresForeignAndLateOnes() throws {
        var store = Self.activeStore()
        let during = Self.t0.addingTimeInterval(100)
        var first = MonitorExtension(variant: .hardened)
        Self.apply(first.handle(.eventDidReachThreshold(event: "e", activity: "focuspledge_s1", now: during, store: store)), to: &store)
        #expect(first.state.lastDecision == .recordedFailure(sessionId: "s1"))
        let timestamp = try #require(AppGroupStorage.checkSessionFailed(store).timestamp)
        #expect(timestamp == during)

        var again = MonitorExtension(variant: .hardened)
        Self.apply(again.handle(.eventDidReachThreshold(
            event: "e", activity: "focuspledge_s1", now: during.addingTimeInterval(50), store: store)), to: &store)
        #expect(again.state.lastDecision == .ignored(reason: "already_failed"))
        #expect(AppGroupStorage.checkSessionFailed(store).timestamp == timestamp)

        var foreign = MonitorExtension(variant: .hardened)
        _ = foreign.handle(.eventDidReachThreshold(event: "e", activity: "other", now: during, store: Self.activeStore()))
        #expect(foreign.state.lastDecision == .ignored(reason: "foreign_activity"))

        // iOS may run a call late (H6): within the grace after the end it still counts, after it not.
        let end = Self.t0.addingTimeInterval(1800)
        var late = MonitorExtension(variant: .hardened)
        _ = late.handle(.eventDidReachThreshold(
            event: "e", activity: "focuspledge_s1", now: end.addingTimeInterval(120), store: Self.activeStore()))
        #expect(late.state.lastDecision == .recordedFailure(sessionId: "s1"))
        var tooLate = MonitorExtension(variant: .hardened)
        _ = tooLate.handle(.eventDidReachThreshold(
            event: "e", activity: "focuspledge_s1", now: end.addingTimeInterval(AppGroupStorage.lateCallbackGraceSeconds),
            store: Self.activeStore()))
        #expect(tooLate.state.lastDecision == .ignored(reason: "after_session_end"))
    }

    @Test func intervalDidEndMarksTheEndOnlyInHardenedAndOnlyAtTheEnd() {
        let store = Self.activeStore()
        var literal = MonitorExtension(variant: .asWritten)
        #expect(literal.handle(.intervalDidEnd(activity: "focuspledge_s1", now: Self.t0.addingTimeInterval(1800), store: store)).isEmpty)
        #expect(literal.state.lastDecision == .nothing)

        var early = MonitorExtension(variant: .hardened)
        _ = early.handle(.intervalDidEnd(activity: "focuspledge_s1", now: Self.t0.addingTimeInterval(600), store: store))
        #expect(early.state.lastDecision == .ignored(reason: "before_session_end"))

        var atEnd = MonitorExtension(variant: .hardened)
        let effects = atEnd.handle(.intervalDidEnd(activity: "focuspledge_s1", now: Self.t0.addingTimeInterval(1800), store: store))
        #expect(effects.first == .setDefaults([.set(FocusPledgeKeys.sessionEnded, "s1")], atomic: true))
    }

    /// Hardened: an intervalDidEnd of an earlier session (iOS delivers it late) or a repeated one
    /// for a session already marked ended writes nothing — only the active session's first real
    /// end is recorded.
    @Test func intervalDidEndOfAnotherSessionOrASecondOneWritesNothing() {
        var store = Self.activeStore("s2")
        let afterEnd = Self.t0.addingTimeInterval(1800)
        var late = MonitorExtension(variant: .hardened)
        let foreign = late.handle(.intervalDidEnd(activity: "focuspledge_s1", now: afterEnd, store: store))
        #expect(late.state.lastDecision == .ignored(reason: "not_the_active_session"))
        #expect(!foreign.contains { if case .setDefaults = $0 { return true } else { return false } })
        var first = MonitorExtension(variant: .hardened)
        Self.apply(first.handle(.intervalDidEnd(activity: "focuspledge_s2", now: afterEnd, store: store)), to: &store)
        #expect(store[FocusPledgeKeys.sessionEnded] == "s2")
        var again = MonitorExtension(variant: .hardened)
        let repeated = again.handle(.intervalDidEnd(activity: "focuspledge_s2", now: afterEnd.addingTimeInterval(5), store: store))
        #expect(again.state.lastDecision == .ignored(reason: "already_ended"))
        #expect(!repeated.contains { if case .setDefaults = $0 { return true } else { return false } })
    }

    @Test func intervalDidStartDoesNothingInEitherVariant() {
        for variant in Variant.allCases {
            var monitor = MonitorExtension(variant: variant)
            #expect(monitor.handle(.intervalDidStart(activity: "focuspledge_s1")).isEmpty)
        }
    }

    @Test func backoffDoublesFromHalfASecondAndIsCapped() {
        let delays = (1...14).map { RetryPolicy.backoffSeconds(afterFailedAttempts: $0) }
        #expect(delays == [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30, 30, 30])
        #expect(RetryPolicy.backoffSeconds(afterFailedAttempts: 1_000) == RetryPolicy.maxBackoffSeconds)
    }

    @Test func blockedAppsRoundTripThroughTheSuite() {
        var store: Snapshot = [:]
        Self.apply([AppGroupStorage.saveBlockedAppsTokens(["a", "b"])], to: &store)
        #expect(AppGroupStorage.blockedApps(store) == ["a", "b"])
        #expect(AppGroupStorage.blockedApps([FocusPledgeKeys.blockedAppsTokens: "junk"]) == nil)
    }
}
