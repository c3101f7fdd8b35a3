import Foundation
import ScreenTimeModel

/// Apple's `UNNotificationTrigger`: when the OS delivers a request (none = at once).
open class UNNotificationTrigger: NSObject, @unchecked Sendable {
    public let repeats: Bool

    init(repeats: Bool) { self.repeats = repeats }
}

/// Apple's `UNTimeIntervalNotificationTrigger`: `timeInterval` seconds of device time after
/// `add(_:)`, and again every `timeInterval` when it repeats. iOS raises an exception for a
/// repeating interval under 60 s; here `add(_:)` refuses it with an error instead.
open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    public let timeInterval: TimeInterval

    public init(timeInterval: TimeInterval, repeats: Bool) {
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }

    /// Device time of the next delivery, counted from now (as Apple does for a trigger not yet added).
    public func nextTriggerDate() -> Date? { UNUserNotificationCenter.deviceNow().addingTimeInterval(timeInterval) }
}

/// Apple's `UNCalendarNotificationTrigger`: the next device time matching `dateComponents` in
/// the device's time zone.
open class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    public let dateComponents: DateComponents

    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }

    public func nextTriggerDate() -> Date? {
        guard let c = try? ScheduleComponents(dateComponents) else { return nil }
        return NotificationTriggerRules.nextFireDate(
            NotificationTriggerRecord(kind: .calendar, repeats: repeats, dateMatching: c), after: UNUserNotificationCenter.deviceNow(),
            addedAt: UNUserNotificationCenter.deviceNow(), timeZone: UNUserNotificationCenter.deviceTimeZone())
    }
}
