import Foundation
import ScreenTimeModel
import Testing

@Suite(.timeLimit(.minutes(1))) struct ScheduleRulesTests {
    let berlin = Zone("Europe/Berlin")
    let utc = Zone("UTC")

    func daily(_ h1: Int, _ m1: Int, _ h2: Int, _ m2: Int, repeats: Bool = true, warning: ScheduleComponents? = nil) -> ScheduleSpec {
        ScheduleSpec(
            intervalStart: ScheduleComponents(hour: h1, minute: m1), intervalEnd: ScheduleComponents(hour: h2, minute: m2), repeats: repeats,
            warningTime: warning)
    }

    @Test func fifteenMinutesIsTheShortestInterval() throws {
        let now = utc.at(2026, 3, 2, 8)
        #expect(throws: ScheduleError.intervalTooShort(seconds: 14 * minute)) {
            try ScheduleRules.validate(daily(9, 0, 9, 14), at: now, timeZone: utc.tz)
        }
        let ok = try ScheduleRules.validate(daily(9, 0, 9, 15), at: now, timeZone: utc.tz)
        #expect(ok == DateInterval(start: utc.at(2026, 3, 2, 9), duration: 15 * minute))
    }

    @Test func oneWeekIsTheLongestInterval() throws {
        let now = utc.at(2026, 3, 2, 8)
        let eightDays = ScheduleSpec(
            intervalStart: ScheduleComponents(year: 2026, month: 3, day: 2, hour: 9, minute: 0, second: 0),
            intervalEnd: ScheduleComponents(year: 2026, month: 3, day: 10, hour: 9, minute: 0, second: 0), repeats: false)
        #expect(throws: ScheduleError.intervalTooLong(seconds: 8 * day)) { try ScheduleRules.validate(eightDays, at: now, timeZone: utc.tz) }
        // Monday 09:00 to the next Monday 09:00: equal components, the next match after the start.
        let week = ScheduleSpec(
            intervalStart: ScheduleComponents(hour: 9, weekday: 2), intervalEnd: ScheduleComponents(hour: 9, weekday: 2), repeats: true)
        #expect(try ScheduleRules.validate(week, at: now, timeZone: utc.tz).duration == 7 * day)
    }

    @Test func anEndBeforeTheStartWrapsPastMidnight() throws {
        let night = daily(22, 0, 6, 0)
        #expect(try ScheduleRules.validate(night, at: berlin.at(2026, 6, 1, 12), timeZone: berlin.tz).duration == 8 * hour)
        // 23:00: ongoing since 22:00 today; 03:00: ongoing since 22:00 yesterday; 07:00: the next one.
        #expect(ScheduleRules.nextInterval(of: night, at: berlin.at(2026, 6, 1, 23), timeZone: berlin.tz)
            == DateInterval(start: berlin.at(2026, 6, 1, 22), end: berlin.at(2026, 6, 2, 6)))
        #expect(ScheduleRules.nextInterval(of: night, at: berlin.at(2026, 6, 2, 3), timeZone: berlin.tz)
            == DateInterval(start: berlin.at(2026, 6, 1, 22), end: berlin.at(2026, 6, 2, 6)))
        #expect(ScheduleRules.nextInterval(of: night, at: berlin.at(2026, 6, 2, 7), timeZone: berlin.tz)
            == DateInterval(start: berlin.at(2026, 6, 2, 22), end: berlin.at(2026, 6, 3, 6)))
    }

    @Test func intervalsFollowTheDSTChange() throws {
        // Europe/Berlin, 29 March 2026: 02:00 → 03:00. Wall 01:00–04:00 lasts two real hours.
        let spring = daily(1, 0, 4, 0)
        #expect(ScheduleRules.nextInterval(of: spring, at: berlin.at(2026, 3, 28, 12), timeZone: berlin.tz)?.duration == 2 * hour)
        // 02:30 does not exist that night: the interval starts at 03:00.
        let gap = daily(2, 30, 5, 0)
        #expect(ScheduleRules.nextInterval(of: gap, at: berlin.at(2026, 3, 28, 12), timeZone: berlin.tz)?.start == berlin.at(2026, 3, 29, 3))
        // 01:50–03:04 is 74 wall minutes but 14 real ones that night: too short then, fine the next day.
        #expect(throws: ScheduleError.intervalTooShort(seconds: 14 * minute)) {
            try ScheduleRules.validate(daily(1, 50, 3, 4), at: berlin.at(2026, 3, 29, 0), timeZone: berlin.tz)
        }
        #expect(try ScheduleRules.validate(daily(1, 50, 3, 4), at: berlin.at(2026, 3, 30, 0), timeZone: berlin.tz).duration == 74 * minute)
        // 25 October 2026: 03:00 → 02:00. Wall 01:00–04:00 lasts four real hours.
        #expect(ScheduleRules.nextInterval(of: spring, at: berlin.at(2026, 10, 24, 12), timeZone: berlin.tz)?.duration == 4 * hour)
    }

    @Test func theSameComponentsAreDifferentInstantsInAnotherZone() {
        let s = daily(9, 0, 10, 0)
        let ny = Zone("America/New_York")
        let now = utc.at(2026, 6, 1, 0)
        let a = ScheduleRules.nextInterval(of: s, at: now, timeZone: berlin.tz)!.start
        let b = ScheduleRules.nextInterval(of: s, at: now, timeZone: ny.tz)!.start
        #expect(b.timeIntervalSince(a) == 6 * hour)
        // Components carrying their own zone ignore the device's.
        var own = s
        own.intervalStart.timeZone = "America/New_York"
        own.intervalEnd.timeZone = "America/New_York"
        #expect(ScheduleRules.nextInterval(of: own, at: now, timeZone: berlin.tz)!.start == b)
    }

    @Test func repeatsFalseEndsAfterItsFirstInterval() {
        let registered = utc.at(2026, 3, 2, 8)
        let until = utc.at(2026, 3, 6, 0)
        #expect(ScheduleRules.intervals(of: daily(9, 0, 17, 0, repeats: false), registeredAt: registered, until: until, timeZone: utc.tz)
            == [DateInterval(start: utc.at(2026, 3, 2, 9), end: utc.at(2026, 3, 2, 17))])
        let repeating = ScheduleRules.intervals(of: daily(9, 0, 17, 0), registeredAt: registered, until: until, timeZone: utc.tz)
        #expect(repeating.map(\.start) == [utc.at(2026, 3, 2, 9), utc.at(2026, 3, 3, 9), utc.at(2026, 3, 4, 9), utc.at(2026, 3, 5, 9)])
        #expect(ScheduleRules.interval(of: daily(9, 0, 17, 0, repeats: false), registeredAt: registered, containing: utc.at(2026, 3, 3, 10), timeZone: utc.tz) == nil)
        #expect(ScheduleRules.interval(of: daily(9, 0, 17, 0), registeredAt: registered, containing: utc.at(2026, 3, 3, 10), timeZone: utc.tz)?.start
            == utc.at(2026, 3, 3, 9))
    }

    @Test func aRepeatingDayLongScheduleRestartsAtMidnight() {
        // The forum's 00:00:00–23:59:59 daily schedule: the next interval starts one second after the end.
        let s = ScheduleSpec(
            intervalStart: ScheduleComponents(hour: 0, minute: 0, second: 0), intervalEnd: ScheduleComponents(hour: 23, minute: 59, second: 59),
            repeats: true)
        let i = ScheduleRules.intervals(of: s, registeredAt: utc.at(2026, 3, 2, 12), until: utc.at(2026, 3, 4, 0), timeZone: utc.tz)
        #expect(i.count == 2)
        #expect(i[1].start.timeIntervalSince(i[0].end) == 1)
    }

    @Test func weekdayAndDayComponents() throws {
        let workweek = ScheduleSpec(
            intervalStart: ScheduleComponents(hour: 9, weekday: 2), intervalEnd: ScheduleComponents(hour: 17, weekday: 6), repeats: true)
        // Wednesday 4 March 2026: inside Monday 09:00 – Friday 17:00.
        let i = try ScheduleRules.validate(workweek, at: utc.at(2026, 3, 4, 12), timeZone: utc.tz)
        #expect(i == DateInterval(start: utc.at(2026, 3, 2, 9), end: utc.at(2026, 3, 6, 17)))
        // Day 31 skips the months without one.
        let monthEnd = ScheduleSpec(intervalStart: ScheduleComponents(day: 31, hour: 20), intervalEnd: ScheduleComponents(day: 31, hour: 22), repeats: true)
        #expect(ScheduleRules.nextInterval(of: monthEnd, at: utc.at(2026, 4, 5, 0), timeZone: utc.tz)?.start == utc.at(2026, 5, 31, 20))
    }

    @Test func componentsThatMatchNothingAreInvalid() {
        let past = ScheduleSpec(
            intervalStart: ScheduleComponents(year: 2025, month: 1, day: 1, hour: 9), intervalEnd: ScheduleComponents(year: 2025, month: 1, day: 1, hour: 10),
            repeats: false)
        #expect(throws: ScheduleError.self) { try ScheduleRules.validate(past, at: utc.at(2026, 3, 2, 8), timeZone: utc.tz) }
        let empty = ScheduleSpec(intervalStart: ScheduleComponents(), intervalEnd: ScheduleComponents(hour: 1), repeats: true)
        #expect(throws: ScheduleError.self) { try ScheduleRules.validate(empty, at: utc.at(2026, 3, 2, 8), timeZone: utc.tz) }
        #expect(throws: ScheduleComponents.Unsupported.self) { try ScheduleComponents(DateComponents(hour: 9, weekOfYear: 3)) }
        #expect(throws: ScheduleComponents.Unsupported.self) { try ScheduleComponents(DateComponents(hour: 24)) }
    }

    @Test func warningsFallBeforeStartAndEndAndClampToTheStart() throws {
        let i = DateInterval(start: utc.at(2026, 3, 2, 9), end: utc.at(2026, 3, 2, 10))
        let w = try #require(try ScheduleWarnings.of(i, warningTime: ScheduleComponents(minute: 5)))
        #expect(w.willStart == utc.at(2026, 3, 2, 8, 55))
        #expect(w.willEnd == utc.at(2026, 3, 2, 9, 55))
        let long = try #require(try ScheduleWarnings.of(i, warningTime: ScheduleComponents(hour: 2)))
        #expect(long.willEnd == i.start)
        #expect(try ScheduleWarnings.of(i, warningTime: nil) == nil)
        #expect(try ScheduleWarnings.eventWarningUseSeconds(threshold: ScheduleComponents(minute: 30), warningTime: ScheduleComponents(minute: 5)) == 25 * minute)
        #expect(try ScheduleWarnings.eventWarningUseSeconds(threshold: ScheduleComponents(minute: 3), warningTime: ScheduleComponents(minute: 5)) == 0)
    }

    @Test func atMostTwentyActivities() throws {
        let twenty = Set((1...20).map { "a\($0)" })
        #expect(throws: ScheduleError.excessiveActivities(count: 20)) { try ActivityLimit.check(monitored: twenty, adding: "a21") }
        try ActivityLimit.check(monitored: twenty, adding: "a7")
        try ActivityLimit.check(monitored: Set(twenty.prefix(19)), adding: "a21")
    }
}
