import Foundation

/// Finds the instants that match a set of schedule components in a time zone: Foundation's
/// `Calendar.nextDate(after:matching:…)` with two rules made explicit and checked.
///
/// * **Missing times** (a spring-forward gap: 02:30 on the night clocks jump 02:00 → 03:00) match
///   the first existing instant after the gap (`.nextTime`, 03:00).
/// * **Repeated times** (fall-back: 02:30 happens twice) match the first occurrence (`.first`).
///
/// Foundation's `.nextTime` also "matches" dates that do not exist at all (day 31 in April becomes
/// 1 May 00:00, a year in the past becomes some future instant); every candidate is therefore
/// verified against the date fields and searching goes on past a bad one, a bounded number of times.
struct ComponentMatcher {
    let components: ScheduleComponents
    let calendar: Calendar

    /// Candidates rejected before giving up (a day 31 skips at most a handful of months).
    static let maxRejectedCandidates = 48

    init(_ components: ScheduleComponents, timeZone deviceTimeZone: TimeZone) {
        self.components = components
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = components.timeZone.flatMap(TimeZone.init(identifier:)) ?? deviceTimeZone
        self.calendar = cal
    }

    /// The first matching instant strictly after `t`.
    func first(after t: Date) -> Date? { search(from: t, direction: .forward) }

    /// The first matching instant at or after `t`.
    func first(atOrAfter t: Date) -> Date? {
        // Matches fall on whole seconds; a hair before `t` makes an exact match count.
        guard let c = search(from: t.addingTimeInterval(-0.001), direction: .forward) else { return nil }
        return c >= t ? c : first(after: t)
    }

    /// The last matching instant at or before `t`.
    func last(atOrBefore t: Date) -> Date? {
        if let c = first(atOrAfter: t), c == t { return c }
        return search(from: t, direction: .backward)
    }

    private func search(from t: Date, direction: Calendar.SearchDirection) -> Date? {
        guard !components.isEmpty else { return nil }
        var from = t
        for _ in 0..<Self.maxRejectedCandidates {
            guard let c = calendar.nextDate(
                after: from, matching: components.matchingComponents, matchingPolicy: .nextTime,
                repeatedTimePolicy: .first, direction: direction)
            else { return nil }
            if matches(c) { return c }
            from = c
        }
        return nil
    }

    /// The date fields must match exactly; the time fields may differ only where the asked-for
    /// time does not exist that day (a DST gap).
    private func matches(_ c: Date) -> Bool {
        let got = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: c)
        let k = components
        if let v = k.year, v != got.year { return false }
        if let v = k.month, v != got.month { return false }
        if let v = k.day, v != got.day { return false }
        if let v = k.weekday, v != got.weekday { return false }
        let timeOK = (k.hour == nil || k.hour == got.hour) && (k.minute == nil || k.minute == got.minute)
            && (k.second == nil || k.second == got.second)
        if timeOK { return true }
        // In a gap? Build the asked-for wall time on that day and see whether it round-trips.
        var wall = DateComponents(year: got.year, month: got.month, day: got.day)
        wall.hour = k.hour ?? 0
        wall.minute = k.minute ?? 0
        wall.second = k.second ?? 0
        guard let d = calendar.date(from: wall) else { return true }
        let back = calendar.dateComponents([.hour, .minute, .second], from: d)
        return back.hour != wall.hour || back.minute != wall.minute || back.second != wall.second
    }
}
