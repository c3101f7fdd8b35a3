// Seed 003 (003_0318710ce1d76510.txt), lines 86-162: Step 4: Implement DeviceActivityMonitor.
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 003 lines 86-162 ----
import DeviceActivity
import Foundation
import FamilyControls

/**
 * DeviceActivityMonitor Extension
 * Monitors app usage and triggers events when thresholds are met
 */
class UntilDeviceActivityMonitor: DeviceActivityMonitor {

    // App Group for communication with main app
    let appGroupId = "group.com.ibnuj.until"

    override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)
        print("[DeviceActivityMonitor] Interval started: \\(activity)")
    }

    override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        print("[DeviceActivityMonitor] Interval ended: \\(activity)")
    }

    /**
     * Called when app usage threshold is reached
     * This fires when a monitored app is opened for at least 1 second
     */
    override func eventDidReachThreshold(
        _ event: DeviceActivityEvent.Name,
        activity: DeviceActivityName
    ) {
        super.eventDidReachThreshold(event, activity: activity)

        print("[DeviceActivityMonitor] Event threshold reached!")

        // Notify main app via App Groups
        notifyMainApp(event: event, activity: activity)
    }

    /**
     * Notify main app that a monitored app was opened
     */
    private func notifyMainApp(
        event: DeviceActivityEvent.Name,
        activity: DeviceActivityName
    ) {
        guard let sharedDefaults = UserDefaults(suiteName: appGroupId) else {
            print("[DeviceActivityMonitor] Failed to access App Group")
            return
        }

        // Store the event with timestamp
        let eventData: [String: Any] = [
            "eventName": event.rawValue,
            "activityName": activity.rawValue,
            "timestamp": Date().timeIntervalSince1970 * 1000, // milliseconds
            "type": "APP_OPENED"
        ]

        // Write to shared storage
        if let jsonData = try? JSONSerialization.data(withJSONObject: eventData) {
            sharedDefaults.set(jsonData, forKey: "lastAppOpenedEvent")
            sharedDefaults.synchronize()

            print("[DeviceActivityMonitor] Notified main app")
        }

        // Optional: Post Darwin notification for immediate wake-up
        CFNotificationCenterPostNotification(
            CFNotificationCenterGetDarwinNotifyCenter(),
            CFNotificationName("com.ibnuj.until.appOpened" as CFString),
            nil,
            nil,
            true
        )
    }
}
// ---- END seed 003 lines 86-162 ----
