// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 238-242: Permission Denied.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: statements of the notification manager; `authorizationStatus` is not shown in the seed.
extension Seed002NotificationManager {
func handlePermission(authorizationStatus: UNAuthorizationStatus) {
// ---- BEGIN seed 002 lines 238-242 ----
// Graceful degradation when notifications not allowed
if authorizationStatus != .authorized {
    // Fallback: Show in-app notification or banner
    showInAppWorkoutPrompt()
}
// ---- END seed 002 lines 238-242 ----
}
}
