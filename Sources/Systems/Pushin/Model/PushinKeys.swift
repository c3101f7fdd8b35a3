import PropertyList
import ScreenTimeModel
import SystemKit

/// The pack's variants: `as-written` (seed 002 literally) comes first.
public enum PushinVariant: String, CaseIterable, Sendable {
    case asWritten = "as-written"
    case hardened
}

/// Seed 002's names and numbers ("New App Group Keys", "Notification Design", "Deep Linking
/// Architecture"), and the few the seed leaves unnamed (README: assumptions A1–A3).
public enum PushinKeys {
    /// A1: the seed never names its App Group; `com.pushin.reload` is its `CFBundleURLName`.
    public static let appGroup = "group.com.pushin.reload"

    // "Existing" keys.
    public static let shouldShowWorkout = "should_show_workout"
    public static let shieldActionTimestamp = "shield_action_timestamp"
    // "New" keys.
    public static let pendingNotificationId = "pending_notification_id"
    public static let lastNotificationTime = "last_notification_time"
    public static let notificationExpiresAt = "notification_expires_at"
    /// Read by `shouldScheduleNotification` ("Deduplication Logic"); the seed shows no writer
    /// (A4: `scheduleWorkoutNotification` writes it with `last_notification_time`).
    public static let lastScheduledNotificationId = "last_scheduled_notification_id"
    /// A2: `ShieldState.emergencyUnlocksRemaining` persisted in the App Group under this name
    /// ("The shield state must persist across app launches and backgrounding").
    public static let emergencyUnlocksRemaining = "emergency_unlocks_remaining"
    /// Hardened only: the last signal the host showed its in-app prompt for.
    public static let lastInAppPromptId = "last_in_app_prompt_id"

    /// "Expiration: 5 minutes from creation" (`Date().timeIntervalSince1970 + 300`).
    public static let expirySeconds = 300.0
    /// "Throttle: max 1 notification per minute" (`now - lastTime < 60`).
    public static let throttleSeconds = 60.0
    /// "Check for new signals every 2 seconds when app is active".
    public static let pollSeconds = 2.0
    /// The host's poll timer.
    public static let pollTimer = "signal-check"

    public static let category = "WORKOUT_REMINDER"
    public static let startWorkoutAction = "START_WORKOUT"
    public static let laterAction = "LATER"
    public static let threadIdentifier = "workout-reminder"
    public static let title = "Earn Screen Time"
    public static let body = "Complete a quick workout to unblock your apps"
    public static let urlScheme = "pushin"
    public static let workoutURL = "pushin://workout"

    /// The user's onboarding tap in the host (an inbox action; A3).
    public static let onboardAction = "onboard"
}

/// The seed's notification ("Notification Specification", "Notification Category") as records.
public enum WorkoutNotification {
    /// ```swift
    /// content.title = "Earn Screen Time" … content.categoryIdentifier = "WORKOUT_REMINDER"
    /// content.threadIdentifier = "workout-reminder"
    /// content.userInfo = ["deepLink": "pushin://workout", "notificationId": generatedUUID, "expiresAt": expirationTimestamp]
    /// ```
    public static func request(id: String, expiresAt: Double, badge: Int, fireInSeconds: Double? = nil) -> NotificationRequest {
        let content = NotificationContentRecord(
            title: PushinKeys.title, body: PushinKeys.body, sound: "default", badge: badge, categoryIdentifier: PushinKeys.category,
            threadIdentifier: PushinKeys.threadIdentifier,
            userInfo: ["deepLink": .string(PushinKeys.workoutURL), "notificationId": .string(id), "expiresAt": .number(expiresAt)])
        let trigger = fireInSeconds.map { NotificationTriggerRecord(kind: .timeInterval, repeats: false, timeInterval: $0) }
        return NotificationRequest(identifier: id, content: content, trigger: trigger)
    }

    /// `START_WORKOUT` (`.foreground`) and `LATER` (`.destructive`), `.customDismissAction`.
    public static let category = NotificationCategoryRecord(
        identifier: PushinKeys.category,
        actions: [
            NotificationActionRecord(identifier: PushinKeys.startWorkoutAction, title: "Start Workout", options: ["foreground"]),
            NotificationActionRecord(identifier: PushinKeys.laterAction, title: "Later", options: ["destructive"]),
        ],
        intentIdentifiers: [], options: ["customDismissAction"])
}

extension [String: PropertyListValue] {
    /// `UserDefaults.double(forKey:)`: 0 when absent or not a number.
    func double(_ key: String) -> Double { self[key]?.doubleValue ?? 0 }
    /// `UserDefaults.integer(forKey:)`: 0 when absent.
    func integer(_ key: String) -> Int { self[key]?.integerValue ?? 0 }
    func string(_ key: String) -> String? { self[key]?.stringValue }
}
