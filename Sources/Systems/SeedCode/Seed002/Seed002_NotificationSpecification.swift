// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 78-89: Notification Specification.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: the seed shows statements; they are this function's body. `generatedUUID` and
/// `expirationTimestamp` are not shown in the seed; they are its parameters.
func seed002NotificationContent(generatedUUID: String, expirationTimestamp: Double) -> UNMutableNotificationContent {
// ---- BEGIN seed 002 lines 78-89 ----
let content = UNMutableNotificationContent()
content.title = "Earn Screen Time"
content.body = "Complete a quick workout to unblock your apps"
content.sound = .default
content.badge = NSNumber(value: UIApplication.shared.applicationIconBadgeNumber + 1)
content.categoryIdentifier = "WORKOUT_REMINDER"
content.threadIdentifier = "workout-reminder"
content.userInfo = [
    "deepLink": "pushin://workout",
    "notificationId": generatedUUID,
    "expiresAt": expirationTimestamp
]
// ---- END seed 002 lines 78-89 ----
return content
}
