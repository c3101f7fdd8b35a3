import Foundation

/// A `DeviceActivitySchedule` as the emulated OS stores it.
public struct ScheduleSpec: Codable, Hashable, Sendable {
    public var intervalStart: ScheduleComponents
    public var intervalEnd: ScheduleComponents
    public var repeats: Bool
    public var warningTime: ScheduleComponents?

    public init(intervalStart: ScheduleComponents, intervalEnd: ScheduleComponents, repeats: Bool, warningTime: ScheduleComponents? = nil) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
        self.warningTime = warningTime
    }
}

/// Why `startMonitoring` refuses a schedule: Apple's `DeviceActivityCenter.MonitoringError`
/// cases, decided by the pure rules both the app side and the OS use.
public enum ScheduleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Shorter than 15 minutes (Apple: "The minimum interval length for monitoring device activity is fifteen minutes.")
    case intervalTooShort(seconds: Double)
    /// Longer than one week (Apple: "The maximum interval length … is one week.")
    case intervalTooLong(seconds: Double)
    /// Components out of range, not modelled, or matching no future date.
    case invalidDateComponents(String)
    /// A 21st activity (Apple: "The maximum number of activities that can be monitored at one time by an app and its extensions is twenty.")
    case excessiveActivities(count: Int)

    public var description: String {
        switch self {
        case .intervalTooShort(let s): "intervalTooShort: the interval lasts \(Int(s)) s; the minimum is 15 minutes"
        case .intervalTooLong(let s): "intervalTooLong: the interval lasts \(Int(s)) s; the maximum is one week"
        case .invalidDateComponents(let r): "invalidDateComponents: \(r)"
        case .excessiveActivities(let n): "excessiveActivities: \(n) activities are monitored already; the maximum is 20"
        }
    }
}
