// Seed 004 (004_6cf68614996b47bd.txt), lines 490-502: 6.1 Extension Crash Recovery (heartbeat).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: the seed shows the extension's and the main app's statements together; one function body.
func seed004Heartbeat() {
// ---- BEGIN seed 004 lines 490-502 ----
// Extension (periodic)
let defaults = UserDefaults(suiteName: "group.com.exit.app")
defaults?.set(Date().timeIntervalSince1970, forKey: "extension_heartbeat")
defaults?.synchronize()

// Main App (check)
let lastHeartbeat = defaults?.double(forKey: "extension_heartbeat") ?? 0
let now = Date().timeIntervalSince1970

if now - lastHeartbeat > 300 { // 5 minutes
    // Extension may be crashed, reinitialize
    reinitializeExtensions()
}
// ---- END seed 004 lines 490-502 ----
}
