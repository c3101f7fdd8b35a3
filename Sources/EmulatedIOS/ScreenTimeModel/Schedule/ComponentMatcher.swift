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

    /// Where every match lies when the components fix a year (and a month, and a day, in that
    /// order): `matches` demands those fields exactly, so no match is outside. Nil: no year.
    let span: Range<Date>?
    /// Components that fix every field from the year to the second match one instant at most (a
    /// repeated hour's first occurrence; a DST gap's first instant after it): found once, searching
    /// forward from the start of its day. `.some(nil)`: no such instant. Nil: not a one-off.
    ///
    /// Foundation took ~7 ms to find nothing after a one-off already gone (`.nextTime` turns it
    /// into future candidates, each rejected here): an app re-registering its ongoing interval
    /// asked that at every relaunch, and the emulated OS at every registration.
    let oneOff: Date??

    init(_ components: ScheduleComponents, timeZone deviceTimeZone: TimeZone) {
        self.components = components
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = components.timeZone.flatMap(TimeZone.init(identifier:)) ?? deviceTimeZone
        self.calendar = cal
        let span = Self.span(of: components, in: cal)
        self.span = span
        let k = components
        if let span, k.month != nil, k.day != nil, k.hour != nil, k.minute != nil, k.second != nil {
            oneOff = .some(Self.search(k, cal, span: span, after: span.lowerBound.addingTimeInterval(-1)))
        } else {
            oneOff = nil
        }
    }

    static func span(of k: ScheduleComponents, in calendar: Calendar) -> Range<Date>? {
        guard let year = k.year else { return nil }
        let unit: Calendar.Component = k.month == nil ? .year : k.day == nil ? .month : .day
        guard let start = calendar.date(from: DateComponents(year: year, month: k.month ?? 1, day: k.month == nil ? 1 : (k.day ?? 1))),
            let end = calendar.date(byAdding: unit, value: 1, to: start), start < end
        else { return nil }
        return start..<end
    }

    /// The first matching instant strictly after `t`.
    func first(after t: Date) -> Date? { search(after: t) }

    /// The first matching instant at or after `t`.
    func first(atOrAfter t: Date) -> Date? {
        // Matches fall on whole seconds; a hair before `t` makes an exact match count.
        guard let c = search(after: t.addingTimeInterval(-0.001)) else { return nil }
        return c >= t ? c : first(after: t)
    }

    /// The last matching instant at or before `t`: the last of the matches the forward search
    /// finds from far enough back. Foundation's backward search does not keep the rules above: on
    /// a fall-back night it gave the second 02:30 (ComponentMatcherTests).
    func last(atOrBefore t: Date) -> Date? {
        if let oneOff {
            guard let c = oneOff else { return nil }
            return c <= t ? c : nil
        }
        // A period of the schedule's recurrence (and DST's hour) back holds a match if any is
        // near; else twice as far, up to `maxLookBackSeconds` (a 29 February is 8 years away at most).
        var lookBack = Self.period(of: components) + 3600
        while true {
            var from = t.addingTimeInterval(-lookBack)
            let beforeSpan = span.map { from < $0.lowerBound } ?? false
            if let span, beforeSpan { from = span.lowerBound.addingTimeInterval(-1) }
            var last: Date?
            var next = first(after: from)
            // Bounded: a look-back of a period holds a match or two; a longer one only follows
            // a shorter one that held none.
            for _ in 0..<Self.maxRejectedCandidates {
                guard let c = next, c <= t else { break }
                last = c
                next = first(after: c)
            }
            if last != nil || beforeSpan || lookBack >= Self.maxLookBackSeconds { return last }
            lookBack *= 2
        }
    }

    /// The longest look-back of `last(atOrBefore:)`: a 29 February recurs within 8 years.
    static let maxLookBackSeconds: Double = 9 * 366 * 86_400

    /// How often components without a year recur at most (a day 31 may be two periods away).
    static func period(of k: ScheduleComponents) -> Double {
        if k.month != nil { return 366 * 86_400 }
        if k.day != nil { return 31 * 86_400 }
        if k.weekday != nil { return 7 * 86_400 }
        if k.hour != nil { return 86_400 }
        if k.minute != nil { return 3600 }
        return 60
    }

    private func search(after t: Date) -> Date? {
        if let oneOff {
            guard let c = oneOff else { return nil }
            return c > t ? c : nil
        }
        return Self.search(components, calendar, span: span, after: t)
    }

    /// Forward only: the backward search is `last(atOrBefore:)`'s, built on this one.
    private static func search(_ components: ScheduleComponents, _ calendar: Calendar, span: Range<Date>?, after t: Date) -> Date? {
        guard !components.isEmpty else { return nil }
        var from = t
        for _ in 0..<maxRejectedCandidates {
            // Past the span nothing matches: said here, not by a Foundation search that takes
            // milliseconds to find nothing.
            if let span, from >= span.upperBound { return nil }
            guard let c = calendar.nextDate(
                after: from, matching: components.matchingComponents, matchingPolicy: .nextTime,
                repeatedTimePolicy: .first, direction: .forward)
            else { return nil }
            if matches(c, components, calendar) { return c }
            from = c
        }
        return nil
    }

    /// The date fields must match exactly; the time fields may differ only where the asked-for
    /// time does not exist that day (a DST gap).
    private static func matches(_ c: Date, _ k: ScheduleComponents, _ calendar: Calendar) -> Bool {
        let got = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: c)
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
