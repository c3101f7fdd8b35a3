import Foundation

// Until (seed 003, docs/seeds/003_0318710ce1d76510.txt): a reminder app whose DeviceActivity monitor
// extension tells the React Native host "a monitored app was opened" through one App Group JSON slot
// and a Darwin notification; the host's JS side fires the reminder. As-written runs the seed's own
// Swift (module Seed003) for the extension and the native module; hardened is ours (README).

/// The pack's variants: `as-written` (the seed literally) comes first.
public enum UntilVariant: String, CaseIterable, Sendable {
    case asWritten = "as-written"
    case hardened
}

/// The seed's names, and the few the pack adds (each says whose it is).
public enum UntilKeys {
    /// Step 2: "group.com.ibnuj.until".
    public static let appGroup = "group.com.ibnuj.until"
    /// Step 4 / Step 7: the one JSON slot the extension writes and the host reads then removes.
    public static let lastAppOpenedEvent = "lastAppOpenedEvent"
    /// Step 4: "Optional: Post Darwin notification for immediate wake-up".
    public static let appOpenedNotification = "com.ibnuj.until.appOpened"
    /// Step 6: `DeviceActivityName("untilMonitoring")`.
    public static let activity = "untilMonitoring"
    /// Step 6: `DeviceActivityEvent.Name("appOpened")`.
    public static let event = "appOpened"
    /// Step 4: `"type": "APP_OPENED"`.
    public static let eventType = "APP_OPENED"
    /// Step 7: `emitAppOpenedEvent(appToken:)` sends this to the JS side (Seed003's ScreenTimeModule).
    public static let onAppOpened = "onAppOpened"
    /// Hardened (H1): one App Group key per report, `appOpened.<timestamp ms>.<activity>.<event>`.
    public static let hardenedEventPrefix = "appOpened."
    /// Hardened (H2): the host's own store, the reports it has reminded of (newest last).
    /// Hardened (H7): the picker's apps, kept in the host's own store until the reminder is saved.
    public static let pickedApps = "pickedApps"
    public static let remindedEvents = "remindedEvents"
}

/// The user's taps in the host (inbox actions).
public enum UntilActions {
    /// "Click 'When I open an app' trigger" then "Grant Screen Time permission" (Testing, 2-3).
    public static let appTrigger = "app_trigger"
    /// "Select apps in the picker" (Testing, 4): the list is the picked apps' bundle ids.
    public static let selectApps = "select_apps"
    /// "Save reminder" (Testing after approval, 4): the screen calls `startMonitoring`.
    public static let saveReminder = "save_reminder"
}

/// The event the extension stores (Step 4's `eventData`), as both sides read it.
public struct AppOpenedEvent: Sendable, Equatable {
    public var eventName: String
    public var activityName: String
    /// Milliseconds since 1970 (Step 4: `Date().timeIntervalSince1970 * 1000`).
    public var timestampMillis: Double
    public var type: String

    public init(eventName: String, activityName: String, timestampMillis: Double, type: String = UntilKeys.eventType) {
        self.eventName = eventName
        self.activityName = activityName
        self.timestampMillis = timestampMillis
        self.type = type
    }

    /// The JSON the seed writes (keys sorted here, so one report always encodes the same bytes).
    public var jsonData: Data {
        let object: [String: Any] = ["eventName": eventName, "activityName": activityName, "timestamp": timestampMillis, "type": type]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// Reads what Step 7 reads: a JSON object; nil when it is not one or has no numeric timestamp.
    public init?(jsonData: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: jsonData) as? [String: Any],
            let timestamp = object["timestamp"] as? Double
        else { return nil }
        self.init(
            eventName: object["eventName"] as? String ?? "", activityName: object["activityName"] as? String ?? "",
            timestampMillis: timestamp, type: object["type"] as? String ?? "")
    }

    /// The report's timestamp in whole milliseconds, as the history's traces carry it.
    public var millis: Int64 { Int64(timestampMillis.rounded()) }
}
