import Foundation
import ScreenTimeModel
import ScreenTimeOS
import Testing
@_spi(ScreenTimeHarness) import UserNotifications

final class RecordingDelegate: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
    var responses: [(id: String, action: String, userInfo: [AnyHashable: Any])] = []

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse, withCompletionHandler completionHandler: @escaping () -> Void) {
        responses.append((response.notification.request.identifier, response.actionIdentifier, response.notification.request.content.userInfo))
        completionHandler()
    }
}

@Suite(.timeLimit(.minutes(3))) struct NotificationTests {
    func content(_ title: String) -> UNMutableNotificationContent {
        let c = UNMutableNotificationContent()
        c.title = title
        c.body = "Complete a quick workout to unblock your apps"
        c.sound = .default
        c.badge = NSNumber(value: 1)
        c.categoryIdentifier = "WORKOUT_REMINDER"
        c.userInfo = ["deepLink": "pushin://workout", "expiresAt": 1_771_300_300.5, "n": 3]
        return c
    }

    @Test func addPendingAndRemoveRoundTrip() async throws {
        let t = try TestDevice()
        let center = UNUserNotificationCenter(device: t.device)
        try await center.add(UNNotificationRequest(identifier: "w/1", content: content("Earn Screen Time"), trigger: UNTimeIntervalNotificationTrigger(timeInterval: 300, repeats: false)))
        try await center.add(UNNotificationRequest(identifier: "w/2", content: content("Second"), trigger: nil))
        try await center.add(UNNotificationRequest(identifier: "w/1", content: content("Replaced"), trigger: nil))
        var pending = await center.pendingNotificationRequests()
        #expect(Set(pending.map(\.identifier)) == ["w/1", "w/2"])
        let first = try #require(pending.first { $0.identifier == "w/1" })
        #expect(first.content.title == "Replaced")
        #expect(first.content.userInfo["deepLink"] as? String == "pushin://workout")
        #expect(first.content.userInfo["n"] as? Int == 3)
        #expect(first.content.sound == .default)
        // The OS sees the same requests.
        #expect(NotificationAuthority.pending(on: t.device).records.map(\.identifier).sorted() == ["w/1", "w/2"])
        center.removePendingNotificationRequests(withIdentifiers: ["w/1"])
        pending = await center.pendingNotificationRequests()
        #expect(pending.map(\.identifier) == ["w/2"])
        center.removeAllPendingNotificationRequests()
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test func badRequestsAreRefusedWithAnError() async throws {
        let t = try TestDevice()
        let center = UNUserNotificationCenter(device: t.device)
        await #expect(throws: UNError.self) {
            try await center.add(UNNotificationRequest(identifier: "r", content: content("x"), trigger: UNTimeIntervalNotificationTrigger(timeInterval: 30, repeats: true)))
        }
        let c = content("x")
        c.userInfo = ["when": Date()]
        await #expect(throws: UNError.self) { try await center.add(UNNotificationRequest(identifier: "r", content: c, trigger: nil)) }
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test func categoriesDeliveryTapAndRemovalReachTheDelegate() async throws {
        let t = try TestDevice()
        let center = UNUserNotificationCenter(device: t.device)
        let start = UNNotificationAction(identifier: "START_WORKOUT", title: "Start Workout", options: .foreground)
        let later = UNNotificationAction(identifier: "LATER", title: "Later", options: .destructive)
        center.setNotificationCategories([UNNotificationCategory(identifier: "WORKOUT_REMINDER", actions: [start, later], intentIdentifiers: [], options: .customDismissAction)])
        #expect(try NotificationAuthority.categories(on: t.device).first?.actions.map(\.identifier) == ["START_WORKOUT", "LATER"])
        let cats = await center.notificationCategories()
        #expect(cats.first?.options == .customDismissAction)

        try await center.add(UNNotificationRequest(identifier: "w1", content: content("Earn Screen Time"), trigger: nil))
        try await center.add(UNNotificationRequest(identifier: "w2", content: content("Again"), trigger: nil))
        for r in NotificationAuthority.pending(on: t.device).records { try NotificationAuthority.deliver(r, at: t.device.now(), on: t.device) }
        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["w1", "w2"])

        // The user taps an action of w1: it leaves Notification Center and reaches the app's delegate.
        let fields = try #require(try NotificationAuthority.tap("w1", actionIdentifier: "START_WORKOUT", on: t.device))
        let delegate = RecordingDelegate()
        center.delegate = delegate
        #expect(center.receive(inboxAction: NotificationResponseMessage.action, fields: fields) == .delivered(identifier: "w1", actionIdentifier: "START_WORKOUT"))
        #expect(delegate.responses.map(\.action) == ["START_WORKOUT"])
        #expect(delegate.responses.first?.userInfo["deepLink"] as? String == "pushin://workout")
        #expect(center.receive(inboxAction: "start_session", fields: [:]) == .notNotificationMessage)

        // Removing a delivered notification is a request the OS applies.
        center.removeDeliveredNotifications(withIdentifiers: ["w2"])
        #expect(try NotificationAuthority.applyRemovals(on: t.device) == ["w2"])
        #expect(await center.deliveredNotifications().isEmpty)
    }

    /// Delivering a request whose identifier is already in Notification Center replaces the
    /// delivered one (Apple: one notification per identifier), newest content and date.
    @Test func aSecondDeliveryOfOneIdentifierReplacesTheFirst() async throws {
        let t = try TestDevice()
        let center = UNUserNotificationCenter(device: t.device)
        try await center.add(UNNotificationRequest(identifier: "w1", content: content("First"), trigger: nil))
        let first = try #require(NotificationAuthority.pending(on: t.device).records.first)
        try NotificationAuthority.deliver(first, at: t.device.now(), on: t.device)
        try await center.add(UNNotificationRequest(identifier: "w1", content: content("Second"), trigger: nil))
        let second = try #require(NotificationAuthority.pending(on: t.device).records.first)
        try NotificationAuthority.deliver(second, at: t.device.now().addingTimeInterval(60), on: t.device)
        let delivered = await center.deliveredNotifications()
        #expect(delivered.map(\.request.identifier) == ["w1"])
        #expect(delivered.first?.request.content.title == "Second")
        #expect(try NotificationAuthority.delivered(on: t.device).count == 1)
    }
}
