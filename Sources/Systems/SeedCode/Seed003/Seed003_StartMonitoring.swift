// Seed 003 (003_0318710ce1d76510.txt), lines 184-219: Step 6: Start Monitoring in Main App.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: "Add this method" to `ScreenTimeModule` (not shown; its stand-in is in Stubs.swift).
extension ScreenTimeModule {
// ---- BEGIN seed 003 lines 184-219 ----
// EDIT: removed seed line 184 (platform): @objc
func startMonitoring(
    _ resolve: @escaping RCTPromiseResolveBlock,
    rejecter reject: @escaping RCTPromiseRejectBlock
) {
    guard !selectedAppTokens.isEmpty else {
        reject("NO_APPS", "No apps selected", nil)
        return
    }

    let schedule = DeviceActivitySchedule(
        intervalStart: DateComponents(hour: 0, minute: 0),
        intervalEnd: DateComponents(hour: 23, minute: 59),
        repeats: true
    )

    let activityName = DeviceActivityName("untilMonitoring")

    let event = DeviceActivityEvent(
        applications: selectedAppTokens,
        threshold: DateComponents(second: 1) // Minimum threshold
    )

    let center = DeviceActivityCenter()

    do {
        try center.startMonitoring(
            activityName,
            during: schedule,
            events: [DeviceActivityEvent.Name("appOpened"): event]
        )
        resolve(true)
    } catch {
        reject("MONITORING_ERROR", "Failed to start monitoring: \\(error.localizedDescription)", error)
    }
}
// ---- END seed 003 lines 184-219 ----
}
