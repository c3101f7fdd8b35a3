import Foundation

/// The `DateComponents` of a `DeviceActivitySchedule`, `DeviceActivityEvent` threshold or
/// `UNCalendarNotificationTrigger` as they cross the process boundary: only the fields the
/// emulated OS evaluates, absent fields omitted (`{"hour": 21, "minute": 30}`).
///
/// `calendar` is an identifier (only `gregorian` is modelled); `timeZone` an IANA identifier that,
/// when present, overrides the device's time zone for matching (EMULATED-IOS.md §7.3).
public struct ScheduleComponents: Codable, Hashable, Sendable {
    public var calendar: String?
    public var timeZone: String?
    public var year: Int?
    public var month: Int?
    public var day: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?
    /// 1 = Sunday … 7 = Saturday, as Foundation's gregorian calendar counts.
    public var weekday: Int?

    public init(
        calendar: String? = nil, timeZone: String? = nil, year: Int? = nil, month: Int? = nil, day: Int? = nil,
        hour: Int? = nil, minute: Int? = nil, second: Int? = nil, weekday: Int? = nil
    ) {
        self.calendar = calendar
        self.timeZone = timeZone
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.weekday = weekday
    }

    /// Why `DateComponents` cannot cross: a field the OS does not evaluate, or a value out of range.
    public struct Unsupported: Error, CustomStringConvertible, Equatable, Sendable {
        public let reason: String
        public var description: String { reason }
    }

    /// From Foundation's `DateComponents`; fields beyond year…second and weekday are refused
    /// rather than silently dropped (a schedule that ignored them would fire at other times).
    public init(_ c: DateComponents) throws {
        var extra: [String] = []
        if c.era != nil { extra.append("era") }
        if c.quarter != nil { extra.append("quarter") }
        if c.weekOfMonth != nil { extra.append("weekOfMonth") }
        if c.weekOfYear != nil { extra.append("weekOfYear") }
        if c.yearForWeekOfYear != nil { extra.append("yearForWeekOfYear") }
        if c.weekdayOrdinal != nil { extra.append("weekdayOrdinal") }
        if let ns = c.nanosecond, ns != 0 { extra.append("nanosecond") }
        if c.isLeapMonth == true { extra.append("isLeapMonth") }
        guard extra.isEmpty else {
            throw Unsupported(reason: "date components \(extra.joined(separator: ", ")) are not modelled by the emulated OS")
        }
        var calendarName: String? = nil
        if let cal = c.calendar {
            guard cal.identifier == .gregorian else {
                throw Unsupported(reason: "calendar \(cal.identifier) is not modelled (only gregorian)")
            }
            calendarName = "gregorian"
        }
        self.init(
            calendar: calendarName, timeZone: c.timeZone?.identifier, year: c.year, month: c.month, day: c.day,
            hour: c.hour, minute: c.minute, second: c.second, weekday: c.weekday)
        try validate()
    }

    /// Back to Foundation (for the app's `DeviceActivitySchedule.intervalStart` and friends).
    public var dateComponents: DateComponents {
        DateComponents(
            calendar: calendar == nil ? nil : Calendar(identifier: .gregorian),
            timeZone: timeZone.flatMap(TimeZone.init(identifier:)),
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, weekday: weekday)
    }

    /// Matching fields only (no calendar or time zone).
    var matchingComponents: DateComponents {
        DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second, weekday: weekday)
    }

    public var isEmpty: Bool {
        year == nil && month == nil && day == nil && hour == nil && minute == nil && second == nil && weekday == nil
    }

    /// Ranges of each field; an impossible date (Feb 30) is found when matching.
    public func validate() throws {
        func check(_ v: Int?, _ name: String, _ range: ClosedRange<Int>) throws {
            if let v, !range.contains(v) { throw Unsupported(reason: "\(name) \(v) is outside \(range.lowerBound)…\(range.upperBound)") }
        }
        try check(year, "year", 1970...9999)
        try check(month, "month", 1...12)
        try check(day, "day", 1...31)
        try check(hour, "hour", 0...23)
        try check(minute, "minute", 0...59)
        try check(second, "second", 0...59)
        try check(weekday, "weekday", 1...7)
        if let calendar, calendar != "gregorian" { throw Unsupported(reason: "calendar \(calendar) is not modelled (only gregorian)") }
        if let timeZone, TimeZone(identifier: timeZone) == nil { throw Unsupported(reason: "unknown time zone \(timeZone)") }
    }

    /// As a duration (a warning time or an event threshold): days, hours, minutes and seconds
    /// added up; calendar fields (year, month, weekday) make no duration.
    public func durationSeconds() throws -> Double {
        guard year == nil, month == nil, weekday == nil else {
            throw Unsupported(reason: "a duration may only have day, hour, minute and second components")
        }
        let parts = [(day, 86_400), (hour, 3_600), (minute, 60), (second, 1)]
        var total = 0.0
        for (v, unit) in parts {
            guard let v else { continue }
            guard v >= 0 else { throw Unsupported(reason: "a duration's components must not be negative") }
            total += Double(v) * Double(unit)
        }
        return total
    }
}
