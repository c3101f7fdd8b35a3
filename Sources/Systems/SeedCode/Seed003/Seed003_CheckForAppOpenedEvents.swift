// Seed 003 (003_0318710ce1d76510.txt), lines 234-260: Step 7: Poll for Events in Main App.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

/// Context: a method of `ScreenTimeModule` (not shown; its stand-in is in Stubs.swift).
extension ScreenTimeModule {
// ---- BEGIN seed 003 lines 234-260 ----
// EDIT: removed seed line 234 (platform): @objc
func checkForAppOpenedEvents(
    _ resolve: @escaping RCTPromiseResolveBlock,
    rejecter reject: @escaping RCTPromiseRejectBlock
) {
    guard let sharedDefaults = UserDefaults(suiteName: "group.com.ibnuj.until") else {
        resolve(nil)
        return
    }

    if let jsonData = sharedDefaults.data(forKey: "lastAppOpenedEvent"),
       let eventData = try? JSONSerialization.jsonObject(with: jsonData) as? [String: Any] {

        // Clear the event so we don't process it twice
        sharedDefaults.removeObject(forKey: "lastAppOpenedEvent")
        sharedDefaults.synchronize()

        // Emit to React Native
        if let timestamp = eventData["timestamp"] as? Double {
            emitAppOpenedEvent(appToken: "screen_time_app")
        }

        resolve(eventData)
    } else {
        resolve(nil)
    }
}
// ---- END seed 003 lines 234-260 ----
}
