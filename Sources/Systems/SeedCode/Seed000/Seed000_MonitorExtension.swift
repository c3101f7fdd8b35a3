// Seed 000 (000_9dddb9b948cad8a0.txt), lines 501-533: DeviceActivity Monitor Extension.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 501-533 ----
import DeviceActivity
import Foundation

class DeviceActivityMonitorExtension: DeviceActivityMonitor {

    // Called when monitoring interval starts
    override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)

        // Session monitoring has started
        // Optionally log or set a flag
    }

    // Called when monitoring interval ends
    override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)

        // Session monitoring has ended (time expired)
        // Remove shields in host app via stopNativeSession
    }

    // Called when user attempts to use a shielded app
    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)

        // User violated session by opening blocked app
        // Write failure to App Group
        AppGroupStorage.shared.markSessionFailed(
            reason: "app_opened",
            appBundleId: nil // Unfortunately, bundle ID not available in this callback
        )
    }
}
// ---- END seed 000 lines 501-533 ----
