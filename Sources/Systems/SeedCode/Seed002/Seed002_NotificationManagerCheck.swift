// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 136-141: Signal Flow 2. Notification Manager monitors and responds.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: statements of the notification manager (`Seed002NotificationManager` in Stubs.swift).
extension Seed002NotificationManager {
func checkForSignals() {
// ---- BEGIN seed 002 lines 136-141 ----
   // Check for new signals every 2 seconds when app is active
   // Immediate check on app launch/foreground
   if let notificationId = store.string(forKey: "pending_notification_id"),
      shouldScheduleNotification(notificationId) {
       scheduleWorkoutNotification(withId: notificationId)
   }
// ---- END seed 002 lines 136-141 ----
}
}
