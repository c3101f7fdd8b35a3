import Foundation

/// Apple's rules for `DeviceActivitySchedule`, as pure functions both sides use: the app-facing
/// `DeviceActivityCenter.startMonitoring` validates with them before it writes anything, and the
/// emulated OS computes from them when intervals start and end (EMULATED-IOS.md §7.3).
///
/// * An interval starts at the latest instant matching `intervalStart` and ends at the first
///   instant matching `intervalEnd` strictly after that start, in the device's time zone (or the
///   components' own). So an end earlier in the day than the start wraps past midnight
///   (22:00–06:00 lasts 8 h), and equal start and end components make a 24-hour interval.
/// * The schedule's `nextInterval` at an instant is the interval ongoing then, else the next one.
///   A schedule is validated on the `nextInterval` at the moment of `startMonitoring`:
///   15 minutes ≤ length ≤ 7 days.
/// * `repeats: false`: that one interval only. `repeats: true`: after an interval ends, the next
///   starts at the first start match at or after that end (intervals never overlap).
public enum ScheduleRules {
    public static let minimumIntervalSeconds: Double = 15 * 60
    public static let maximumIntervalSeconds: Double = 7 * 24 * 3600
    /// `intervals(…)` returns at most this many (a year of daily intervals, with room).
    public static let maxIntervalsPerQuery = 1000

    /// Apple's `nextInterval`: the interval ongoing at `instant`, else the next one; nil when the
    /// components match no such date.
    public static func nextInterval(of spec: ScheduleSpec, at instant: Date, timeZone: TimeZone) -> DateInterval? {
        let start = ComponentMatcher(spec.intervalStart, timeZone: timeZone)
        let end = ComponentMatcher(spec.intervalEnd, timeZone: timeZone)
        if let s = start.last(atOrBefore: instant), let e = end.first(after: s), instant < e {
            return DateInterval(start: s, end: e)
        }
        guard let s = start.first(after: instant), let e = end.first(after: s) else { return nil }
        return DateInterval(start: s, end: e)
    }

    /// What `startMonitoring` checks, in Apple's order of severity: the components, then the
    /// length of the interval that would be monitored first. Returns that interval.
    @discardableResult
    public static func validate(_ spec: ScheduleSpec, at instant: Date, timeZone: TimeZone) throws(ScheduleError) -> DateInterval {
        for (name, c) in [("intervalStart", spec.intervalStart), ("intervalEnd", spec.intervalEnd)] {
            do { try c.validate() } catch { throw .invalidDateComponents("\(name): \(error)") }
            if c.isEmpty { throw .invalidDateComponents("\(name) has no date or time components") }
        }
        if let w = spec.warningTime {
            do { _ = try w.durationSeconds() } catch { throw .invalidDateComponents("warningTime: \(error)") }
        }
        guard let interval = nextInterval(of: spec, at: instant, timeZone: timeZone) else {
            throw .invalidDateComponents("intervalStart and intervalEnd match no current or future interval")
        }
        if interval.duration < minimumIntervalSeconds { throw .intervalTooShort(seconds: interval.duration) }
        if interval.duration > maximumIntervalSeconds { throw .intervalTooLong(seconds: interval.duration) }
        return interval
    }

    /// The concrete intervals of a schedule registered at `registeredAt`, in order, up to (not
    /// including) intervals starting at or after `until`; at most `maxIntervalsPerQuery`.
    /// `repeats: false` gives at most one.
    public static func intervals(of spec: ScheduleSpec, registeredAt: Date, until: Date, timeZone: TimeZone) -> [DateInterval] {
        guard var current = nextInterval(of: spec, at: registeredAt, timeZone: timeZone), current.start < until else { return [] }
        var out = [current]
        guard spec.repeats else { return out }
        let start = ComponentMatcher(spec.intervalStart, timeZone: timeZone)
        let end = ComponentMatcher(spec.intervalEnd, timeZone: timeZone)
        while out.count < maxIntervalsPerQuery {
            guard let s = start.first(atOrAfter: current.end), s < until, let e = end.first(after: s) else { break }
            current = DateInterval(start: s, end: e)
            out.append(current)
        }
        return out
    }

    /// The interval in force at `instant` for a schedule registered at `registeredAt`, if any
    /// (for `repeats: false`, only the first interval ever counts).
    public static func interval(of spec: ScheduleSpec, registeredAt: Date, containing instant: Date, timeZone: TimeZone) -> DateInterval? {
        if !spec.repeats {
            guard let first = nextInterval(of: spec, at: registeredAt, timeZone: timeZone), first.start <= instant, instant < first.end else { return nil }
            return first
        }
        guard let i = nextInterval(of: spec, at: instant, timeZone: timeZone), i.start <= instant,
            let first = nextInterval(of: spec, at: registeredAt, timeZone: timeZone), i.start >= first.start
        else { return nil }
        return i
    }
}
