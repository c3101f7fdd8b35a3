// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 146-158: Signal Flow 3. Deduplication Logic.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: a method of the notification manager (`Seed002NotificationManager` in Stubs.swift).
extension Seed002NotificationManager {
// ---- BEGIN seed 002 lines 146-158 ----
   func shouldScheduleNotification(_ newId: String) -> Bool {
       let lastId = store.string(forKey: "last_scheduled_notification_id")
       let lastTime = store.double(forKey: "last_notification_time")
       let now = Date().timeIntervalSince1970

       // Don't schedule if same ID already processed
       if newId == lastId { return false }

       // Throttle: max 1 notification per minute
       if now - lastTime < 60 { return false }

       return true
   }
// ---- END seed 002 lines 146-158 ----
}
