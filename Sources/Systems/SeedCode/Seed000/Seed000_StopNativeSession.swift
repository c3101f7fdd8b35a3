// Seed 000 (000_9dddb9b948cad8a0.txt), lines 414-429: MethodChannel 5. stopNativeSession.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 414-429 ----
func stopNativeSession(sessionId: String, result: FlutterResult) {
    // Remove shields
    let store = ManagedSettingsStore()
    store.shield.applications = nil
    store.shield.applicationCategories = nil

    // Stop monitoring
    let activityName = DeviceActivityName("focuspledge_\(sessionId)")
    let center = DeviceActivityCenter()
    center.stopMonitoring([activityName])

    // Clear App Group state
    AppGroupStorage.shared.clearActiveSession()

    result(["success": true])
}
// ---- END seed 000 lines 414-429 ----
