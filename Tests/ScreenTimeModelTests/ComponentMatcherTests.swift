import Foundation
@testable import ScreenTimeModel
import Testing

/// `ComponentMatcher` answers without a Foundation search where the components say enough: a
/// one-off date (year … second) is one instant, found once; components that fix a year (a month,
/// a day) match only inside it. Foundation took ~7 ms to find nothing after a one-off date already
/// gone — an app re-registering its ongoing interval asked that at every relaunch, the emulated OS
/// at every registration. The answers must be the ones the search gives.
@Suite(.timeLimit(.minutes(1))) struct ComponentMatcherTests {
    let berlin = Zone("Europe/Berlin")

    /// A one-off date as `LiveDevice` builds it (year … second in the device's zone).
    func oneOff(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> ScheduleComponents {
        ScheduleComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: 0)
    }

    @Test func aOneOffDateIsFoundBeforeItAndNotAfterIt() {
        let m = ComponentMatcher(oneOff(2026, 2, 17, 10, 2), timeZone: berlin.tz)
        let at = berlin.at(2026, 2, 17, 10, 2)
        #expect(m.span == berlin.at(2026, 2, 17, 0)..<berlin.at(2026, 2, 18, 0))
        #expect(m.oneOff == .some(at))
        #expect(m.first(after: berlin.at(2025, 12, 30, 0)) == at, "from the year before")
        #expect(m.first(after: berlin.at(2026, 2, 17, 9)) == at, "from earlier that day")
        #expect(m.first(atOrAfter: at) == at)
        #expect(m.first(after: at) == nil, "later that day")
        #expect(m.first(after: berlin.at(2026, 2, 18, 9)) == nil, "the next day: past its span")
        #expect(m.first(after: berlin.at(2027, 1, 1, 0)) == nil, "a later year")
        #expect(m.last(atOrBefore: berlin.at(2026, 2, 20, 0)) == at, "an ongoing interval's start, days later")
        #expect(m.last(atOrBefore: berlin.at(2026, 2, 17, 10, 1)) == nil, "before it")
        #expect(m.last(atOrBefore: berlin.at(2026, 2, 16, 0)) == nil, "before its span")
    }

    @Test func theSpanIsTheYearMonthOrDayTheComponentsFix() {
        let tz = berlin.tz
        #expect(ComponentMatcher(ScheduleComponents(hour: 8), timeZone: tz).span == nil)
        #expect(ComponentMatcher(ScheduleComponents(year: 2027, hour: 8), timeZone: tz).span
            == berlin.at(2027, 1, 1, 0)..<berlin.at(2028, 1, 1, 0))
        #expect(ComponentMatcher(ScheduleComponents(year: 2027, month: 3, hour: 8), timeZone: tz).span
            == berlin.at(2027, 3, 1, 0)..<berlin.at(2027, 4, 1, 0))
        // A day without a month is any month of that year.
        #expect(ComponentMatcher(ScheduleComponents(year: 2027, day: 5), timeZone: tz).span
            == berlin.at(2027, 1, 1, 0)..<berlin.at(2028, 1, 1, 0))
    }

    @Test func aOneOffThatMatchesNothingIsNoMatchAnywhere() {
        // 31 April does not exist: no instant, before or after.
        let m = ComponentMatcher(oneOff(2026, 4, 31, 9, 0), timeZone: berlin.tz)
        #expect(m.oneOff == .some(nil))
        #expect(m.first(after: berlin.at(2026, 1, 1, 0)) == nil)
        #expect(m.last(atOrBefore: berlin.at(2026, 12, 1, 0)) == nil)
    }

    @Test func aOneOffInTheNightOfADSTChangeIsStillFound() {
        // 29 March 2026, Berlin: 02:00 → 03:00. The day is 23 hours; 02:30 lands on 03:00.
        let m = ComponentMatcher(oneOff(2026, 3, 29, 2, 30), timeZone: berlin.tz)
        #expect(m.oneOff == .some(berlin.at(2026, 3, 29, 3)))
        #expect(m.first(after: berlin.at(2026, 3, 28, 12)) == berlin.at(2026, 3, 29, 3))
        #expect(m.last(atOrBefore: berlin.at(2026, 3, 29, 23, 59)) == berlin.at(2026, 3, 29, 3))
        #expect(m.first(after: berlin.at(2026, 3, 30, 0)) == nil)
    }

    @Test func aScheduleWithoutAYearIsUnaffected() {
        let daily = ComponentMatcher(ScheduleComponents(hour: 8, minute: 10), timeZone: berlin.tz)
        #expect(daily.oneOff == nil && daily.span == nil)
        #expect(daily.first(after: berlin.at(2027, 6, 2, 9)) == berlin.at(2027, 6, 3, 8, 10))
        #expect(daily.last(atOrBefore: berlin.at(2027, 6, 2, 9)) == berlin.at(2027, 6, 2, 8, 10))
    }

    /// The last match at or before an instant is the last of the matches a forward search finds
    /// (the type's rules: a repeated time's first occurrence, a gap's first instant after it, a
    /// date that exists). Foundation's backward search broke each of these three.
    @Test func theLastMatchIsOneTheForwardSearchWouldFind() {
        // 25 October 2026, Berlin: 03:00 CEST → 02:00 CET, 02:30 happens twice; only the first matches.
        let daily = ComponentMatcher(ScheduleComponents(hour: 2, minute: 30), timeZone: berlin.tz)
        let firstTwoThirty = Date(timeIntervalSince1970: 1_792_888_200)  // 2026-10-25T00:30:00Z = 02:30 CEST
        #expect(daily.first(after: berlin.at(2026, 10, 24, 12)) == firstTwoThirty)
        #expect(daily.last(atOrBefore: berlin.at(2026, 10, 25, 4)) == firstTwoThirty, "not the second 02:30 (01:30Z)")
        #expect(daily.last(atOrBefore: firstTwoThirty.addingTimeInterval(3600 + 900)) == firstTwoThirty, "during the second 02:30 hour")

        // 4 October 2026, Lord Howe: 02:00 → 02:30 (a half-hour jump); 02:30 exists, at the jump.
        let lordHowe = Zone("Australia/Lord_Howe")
        let lh = ComponentMatcher(ScheduleComponents(hour: 2, minute: 30), timeZone: lordHowe.tz)
        let jump = lordHowe.at(2026, 10, 4, 2, 30)
        #expect(lh.first(after: lordHowe.at(2026, 10, 3, 12)) == jump)
        #expect(lh.last(atOrBefore: lordHowe.at(2026, 10, 4, 12)) == jump, "not the day before's")

        // Day 31: the last before 15 November is 31 October, not 31 August.
        let thirtyFirst = ComponentMatcher(ScheduleComponents(day: 31, hour: 9), timeZone: berlin.tz)
        #expect(thirtyFirst.first(after: berlin.at(2026, 9, 15, 0)) == berlin.at(2026, 10, 31, 9))
        #expect(thirtyFirst.last(atOrBefore: berlin.at(2026, 11, 15, 0)) == berlin.at(2026, 10, 31, 9))
        #expect(thirtyFirst.last(atOrBefore: berlin.at(2026, 10, 31, 9)) == berlin.at(2026, 10, 31, 9), "at the match itself")
        #expect(thirtyFirst.last(atOrBefore: berlin.at(2026, 10, 31, 8, 59)) == berlin.at(2026, 8, 31, 9), "a second before: two months back")

        // 29 February: a leap day years back.
        let leap = ComponentMatcher(ScheduleComponents(month: 2, day: 29, hour: 0), timeZone: berlin.tz)
        #expect(leap.last(atOrBefore: berlin.at(2027, 6, 1, 0)) == berlin.at(2024, 2, 29, 0))
        // Weekly and hourly.
        let mondays = ComponentMatcher(ScheduleComponents(hour: 7, minute: 0, weekday: 2), timeZone: berlin.tz)
        #expect(mondays.last(atOrBefore: berlin.at(2026, 11, 29, 12)) == berlin.at(2026, 11, 23, 7))
        let hourly = ComponentMatcher(ScheduleComponents(minute: 15), timeZone: berlin.tz)
        #expect(hourly.last(atOrBefore: berlin.at(2026, 11, 29, 12, 14)) == berlin.at(2026, 11, 29, 11, 15))
        // Nothing before a year's span.
        let y2030 = ComponentMatcher(ScheduleComponents(year: 2030, hour: 8), timeZone: berlin.tz)
        #expect(y2030.last(atOrBefore: berlin.at(2029, 12, 31, 23)) == nil)
        #expect(y2030.last(atOrBefore: berlin.at(2030, 1, 2, 0)) == berlin.at(2030, 1, 1, 8))
    }
}
