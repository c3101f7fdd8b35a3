// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 46-52: Notification Manager, Core Methods.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 002 lines 46-52 ----
protocol NotificationManager { // EDIT line 46 (seed bug)
    func requestPermissions() async -> Bool
    func startMonitoringShieldActions()
    func scheduleWorkoutNotification() -> String? // Returns notification ID
    func handleNotificationResponse(_ response: UNNotificationResponse)
    func cancelPendingNotifications()
}
// ---- END seed 002 lines 46-52 ----
