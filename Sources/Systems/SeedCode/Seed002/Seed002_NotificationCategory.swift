// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 95-112: Notification Category.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: the seed shows statements; they are this function's body.
func seed002WorkoutCategory() -> UNNotificationCategory {
// ---- BEGIN seed 002 lines 95-112 ----
let startAction = UNNotificationAction(
    identifier: "START_WORKOUT",
    title: "Start Workout",
    options: .foreground
)

let laterAction = UNNotificationAction(
    identifier: "LATER",
    title: "Later",
    options: .destructive
)

let category = UNNotificationCategory(
    identifier: "WORKOUT_REMINDER",
    actions: [startAction, laterAction],
    intentIdentifiers: [],
    options: .customDismissAction
)
// ---- END seed 002 lines 95-112 ----
return category
}
