import AppGroup
import Pushin
import SystemKit
import Testing

/// The host machine by events: seed 002's lines, per variant.
@Suite(.timeLimit(.minutes(1))) struct HostAppTests {
    typealias Store = [String: PropertyListValue]

    static func signal(_ id: String, at t: Double) -> Store {
        [
            PushinKeys.shouldShowWorkout: .bool(true), PushinKeys.shieldActionTimestamp: .real(t), PushinKeys.pendingNotificationId: .string(id),
            PushinKeys.notificationExpiresAt: .real(t + 300),
        ]
    }

    static func added(_ effects: [Effect]) -> [NotificationRequest] {
        effects.compactMap { if case .addNotification(let r) = $0 { r } else { nil } }
    }

    @Test func theSeedsDeduplicationLogicLiterally() {
        let store: Store = [PushinKeys.lastScheduledNotificationId: "a", PushinKeys.lastNotificationTime: .real(1000)]
        #expect(!HostApp.shouldScheduleNotification("a", store: store, now: 5000), "same ID already processed")
        #expect(!HostApp.shouldScheduleNotification("b", store: store, now: 1059.9), "throttle: max 1 per minute")
        #expect(HostApp.shouldScheduleNotification("b", store: store, now: 1060))
        #expect(HostApp.shouldScheduleNotification("b", store: [:], now: 1_771_300_000), "never scheduled: lastTime 0")
    }

    @Test func asWrittenChecksAtLaunchAndOnlyPollsWhileActive() {
        var host = HostApp(variant: .asWritten)
        let store = Self.signal("n-1", at: 100)
        let launch = host.handle(.launched(now: 110, store: store, pending: [], notificationStatus: "authorized"))
        #expect(launch.first == .setNotificationCategories([WorkoutNotification.category]))
        let request = try! #require(Self.added(launch).first)
        #expect(request.identifier == "n-1" && request.trigger == nil, "immediate rather than delayed")
        #expect(request.content.userInfo["deepLink"] == .string("pushin://workout") && request.content.userInfo["expiresAt"] == .number(400))
        #expect(launch.contains(.setDefaults(
            [.set(PushinKeys.lastScheduledNotificationId, "n-1"), .set(PushinKeys.lastNotificationTime, .real(110))], atomic: false)))
        // Not active: the 2-second poll does nothing; active: it polls.
        #expect(host.handle(.poll(now: 200, store: Self.signal("n-2", at: 190))).isEmpty)
        let active = host.handle(.becameActive(now: 300, store: [:]))
        #expect(active.first == .startTimer(PushinKeys.pollTimer, .every(seconds: 2)))
        #expect(Self.added(host.handle(.poll(now: 302, store: Self.signal("n-2", at: 301)))).map(\.identifier) == ["n-2"])
        #expect(host.handle(.enteredBackground) == [.cancelTimer(PushinKeys.pollTimer)])
    }

    @Test func asWrittenSchedulesAnExpiredSignalAndTheInAppPromptWhenNotAuthorized() {
        var host = HostApp(variant: .asWritten)
        // The seed's check reads no expiry: a signal 10 minutes old is scheduled (finding F2).
        let late = host.handle(.launched(now: 700, store: Self.signal("old", at: 100), pending: [], notificationStatus: "authorized"))
        #expect(Self.added(late).map(\.identifier) == ["old"])
        var denied = HostApp(variant: .asWritten)
        let prompt = denied.handle(.launched(now: 110, store: Self.signal("n-1", at: 100), pending: [], notificationStatus: "denied"))
        #expect(prompt.contains(.trace("in_app_prompt", ["id": "n-1", "status": "denied"])))
        #expect(Self.added(prompt).isEmpty)
    }

    @Test func launchRemovesExpiredPendingRequestsOnly() {
        var host = HostApp(variant: .asWritten)
        let pending = [HostApp.PendingRequest(identifier: "old", expiresAt: 50), HostApp.PendingRequest(identifier: "new", expiresAt: 500)]
        let out = host.handle(.launched(now: 100, store: [:], pending: pending, notificationStatus: "authorized"))
        #expect(out.contains(.removeNotifications(.pending(["old"]))))
    }

    @Test func hardenedLeavesScheduledSignalsAloneAndNeverActsOnExpiredOnes() {
        var host = HostApp(variant: .hardened)
        var store = Self.signal("n-1", at: 100)
        store[PushinKeys.lastScheduledNotificationId] = "n-1"
        #expect(Self.added(host.handle(.launched(now: 110, store: store, pending: [], notificationStatus: "authorized"))).isEmpty)
        // Not scheduled by the extension: the host schedules it, within the throttle.
        store[PushinKeys.lastScheduledNotificationId] = "n-0"
        store[PushinKeys.lastNotificationTime] = .real(80)
        let out = host.handle(.launched(now: 110, store: store, pending: [], notificationStatus: "authorized"))
        #expect(Self.added(out).map(\.identifier) == ["n-1"])
        #expect(Self.added(out).first?.trigger?.timeInterval == 30, "fires at lastTime + 60")
        #expect(host.handle(.launched(now: 401, store: Self.signal("n-1", at: 100), pending: [], notificationStatus: "authorized"))
            == [.setNotificationCategories([WorkoutNotification.category])], "expired: nothing")
        // A fresh host (nothing served in memory) and a signal it never saw: expiry alone decides.
        var fresh = HostApp(variant: .hardened)
        #expect(fresh.handle(.launched(now: 401, store: Self.signal("n-9", at: 100), pending: [], notificationStatus: "authorized"))
            == [.setNotificationCategories([WorkoutNotification.category])], "a second past notification_expires_at: nothing")
        var justInTime = HostApp(variant: .hardened)
        #expect(Self.added(justInTime.handle(.launched(now: 399, store: Self.signal("n-9", at: 100), pending: [], notificationStatus: "authorized")))
            .map(\.identifier) == ["n-9"], "a second before it: scheduled")
        // Without permission the expiry is the only guard: no in-app prompt for an expired signal.
        func prompted(at now: Double) -> Bool {
            var denied = HostApp(variant: .hardened)
            _ = denied.handle(.launched(now: now, store: [:], pending: [], notificationStatus: "denied"))
            return denied.handle(.becameActive(now: now, store: Self.signal("n-9", at: 100)))
                .contains { if case .trace("in_app_prompt", _) = $0 { true } else { false } }
        }
        #expect(prompted(at: 399) && !prompted(at: 401), "the prompt only while the signal is live")
    }

    @Test func hardenedShowsTheInAppPromptOncePerSignalAndOnlyInTheForeground() {
        var host = HostApp(variant: .hardened)
        let store = Self.signal("n-1", at: 100)
        #expect(!host.handle(.launched(now: 110, store: store, pending: [], notificationStatus: "denied")).contains { if case .trace("in_app_prompt", _) = $0 { true } else { false } })
        let active = host.handle(.becameActive(now: 111, store: store))
        #expect(active.contains(.trace("in_app_prompt", ["id": "n-1", "status": "denied"])))
        #expect(active.contains(.setDefaults([.set(PushinKeys.lastInAppPromptId, "n-1")], atomic: true)))
        var prompted = store
        prompted[PushinKeys.lastInAppPromptId] = "n-1"
        #expect(host.handle(.poll(now: 113, store: prompted)).isEmpty)
    }

    @Test func theNotificationAndStartWorkoutOpenTheWorkoutLaterDoesNot() {
        for variant in PushinVariant.allCases {
            var host = HostApp(variant: variant)
            #expect(host.handle(.notificationResponse(identifier: "n", action: NotificationResponse.defaultAction, deepLink: "pushin://workout"))
                == [.trace("workout_screen_shown", ["source": "notification", "id": "n"])])
            #expect(host.handle(.notificationResponse(identifier: "n", action: PushinKeys.startWorkoutAction, deepLink: nil))
                == [.trace("workout_screen_shown", ["source": "notification", "id": "n"])])
            #expect(host.handle(.notificationResponse(identifier: "n", action: PushinKeys.laterAction, deepLink: "pushin://workout"))
                == [.trace("workout_later", ["id": "n", "action": "LATER"])])
            #expect(host.handle(.openURL("pushin://workout")) == [.trace("workout_screen_shown", ["source": "deepLink"])])
            #expect(host.handle(.openURL("pushin://settings")) == [.trace("url_ignored", ["url": "pushin://settings"])])
        }
    }

    @Test func hardenedAsksAgainWhenOnboardingWasCutShortAsWrittenDoesNot() {
        let onboarded: Store = [PushinKeys.emergencyUnlocksRemaining: .integer(3)]
        let ask = Effect.requestAuthorization(.notifications(options: ["alert", "sound", "badge"]))
        var hardened = HostApp(variant: .hardened)
        #expect(hardened.handle(.launched(now: 1, store: onboarded, pending: [], notificationStatus: "notDetermined")).last == ask)
        #expect(!hardened.handle(.launched(now: 1, store: onboarded, pending: [], notificationStatus: "denied")).contains(ask))
        #expect(!hardened.handle(.launched(now: 1, store: [:], pending: [], notificationStatus: "notDetermined")).contains(ask), "not onboarded yet")
        var asWritten = HostApp(variant: .asWritten)
        #expect(!asWritten.handle(.launched(now: 1, store: onboarded, pending: [], notificationStatus: "notDetermined")).contains(ask))
    }

    @Test func onboardingShieldsGrantsUnlocksAndAsksForNotifications() {
        var host = HostApp(variant: .asWritten)
        let out = host.handle(.onboard(apps: ["com.a"], emergencyUnlocks: 3))
        #expect(out.contains(.applyShields(["com.a"])))
        #expect(out.contains(.setDefaults([.set(PushinKeys.emergencyUnlocksRemaining, .integer(3))], atomic: true)))
        #expect(out.last == .requestAuthorization(.notifications(options: ["alert", "sound", "badge"])))
    }
}
