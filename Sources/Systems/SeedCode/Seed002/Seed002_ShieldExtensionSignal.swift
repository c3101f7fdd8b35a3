// Seed 002 (002_4f3f8b8463fad8b4.txt), lines 127-131: Signal Flow 1. Shield Extension writes to App Group.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

import AppGroup

/// Context: statements of the shield extension; `store` (the App Group defaults) is not shown.
/// It is the App Group suite, `SharedDefaults` (PROTOCOL.md §3), as `UserDefaults(suiteName:)` is in
/// the other seeds; public because the Pushin pack's shield-action stand-in runs this code as written.
public func seed002ShieldExtensionSignal(store: SharedDefaults) {
// ---- BEGIN seed 002 lines 127-131 ----
   store.set(true, forKey: "should_show_workout")
   store.set(Date().timeIntervalSince1970, forKey: "shield_action_timestamp")
   store.set(UUID().uuidString, forKey: "pending_notification_id")
   store.set(Date().timeIntervalSince1970 + 300, forKey: "notification_expires_at") // 5 min
   store.synchronize()
// ---- END seed 002 lines 127-131 ----
}
