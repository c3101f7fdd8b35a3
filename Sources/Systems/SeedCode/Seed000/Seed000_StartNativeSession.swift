// Seed 000 (000_9dddb9b948cad8a0.txt), lines 343-381: MethodChannel 4. startNativeSession.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 343-381 ----
import DeviceActivity
import ManagedSettings

func startNativeSession(sessionId: String, durationMinutes: Int, result: @escaping FlutterResult) {
    let startTime = Date()
    let endTime = startTime.addingTimeInterval(TimeInterval(durationMinutes * 60))

    // Save session state to App Group
    AppGroupStorage.shared.setActiveSession(id: sessionId, startTime: startTime, endTime: endTime)

    // Load blocked apps selection
    guard let tokensData = AppGroupStorage.shared.getBlockedAppsTokens(),
          let selection = try? PropertyListDecoder().decode(FamilyActivitySelection.self, from: tokensData) else { // EDIT line 355 (seed bug)
        result(["success": false, "error": "No blocked apps selected"])
        return
    }

    // Apply shields (ManagedSettings)
    let store = ManagedSettingsStore()
    store.shield.applications = selection.applicationTokens
    store.shield.applicationCategories = .all() // optional: block entire categories // EDIT line 363 (seed bug)

    // Start DeviceActivity monitoring
    let schedule = DeviceActivitySchedule(
        intervalStart: DateComponents(calendar: .current, hour: startTime.hour, minute: startTime.minute),
        intervalEnd: DateComponents(calendar: .current, hour: endTime.hour, minute: endTime.minute),
        repeats: false
    )

    let activityName = DeviceActivityName("focuspledge_\(sessionId)")
    let center = DeviceActivityCenter()

    do {
        try center.startMonitoring(activityName, during: schedule)
        result(["success": true])
    } catch {
        result(["success": false, "error": error.localizedDescription])
    }
}
// ---- END seed 000 lines 343-381 ----
