// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 255-263: Notification Delivery Failure.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: methods of the notification manager (`Seed002NotificationManager` in Stubs.swift).
extension Seed002NotificationManager {
// ---- BEGIN seed 002 lines 255-263 ----
// Track delivery status
func notificationDelivered(_ notificationId: String) {
    store.set(notificationId, forKey: "last_delivered_notification")
}

func notificationFailed(_ notificationId: String, error: Error) {
    // Log failure, potentially retry or use alternative UX
    print("❌ Notification failed: \(error.localizedDescription)")
}
// ---- END seed 002 lines 255-263 ----
}
