import AppGroup
import Foundation

/// What a scenario's dates and offsets must satisfy before anything runs (issue 27, item 3): a
/// start that is a real date the device clock can hold, a run that ends before the clock's last
/// second, and reboots, revocations and time-zone moves inside the run. A run that broke one of
/// these used to hang at the clock's bound (`clock_error`, then a 5 s wait per step), run on a
/// rolled-over date (2026-02-30 as March 2), or end UNDECIDED after it started.
public enum ScenarioTimeline {
    /// The device clock's seconds (PROTOCOL.md §2): 1970-01-01T00:00:00Z … 9999-12-31T23:59:59Z.
    public static let clockSeconds = DeviceClock.Configuration.unixSecondsRange

    /// Device seconds a run may go on past its plan (duration + settle): the wall bound on an
    /// overrun (`ScenarioRunner.overrunWallNanos`, 60 s) at the scenario's rate, plus a day for
    /// virtual time's last steps and the checker's look past the end.
    public static func slackSeconds(rate: Double) -> Double { 86_400 + 60 * rate }

    /// A strict ISO 8601 time with a zone: `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, every field in
    /// range — February 30 is refused, not rolled over to March 2 as `ISO8601DateFormatter` does.
    /// The date, or why not (no more than an 80-character excerpt of `text`).
    public struct InvalidDate: Error, Sendable { public var reason: String }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    public static func parseDate(_ text: String) -> Result<Date, InvalidDate> {
        let bytes = Array(text.utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var v = 0
            for b in bytes[from..<(from + count)] {
                guard (0x30...0x39).contains(b) else { return nil }
                v = v * 10 + Int(b - 0x30)
            }
            return v
        }
        let usage = "expected an ISO 8601 time with a zone like \"2026-02-17T08:00:00Z\", got \(Excerpt.quoted(text))"
        guard bytes.count >= 20, let year = digits(0, 4), bytes[4] == 0x2D, let month = digits(5, 2), bytes[7] == 0x2D,
            let day = digits(8, 2), bytes[10] == 0x54 || bytes[10] == 0x74, let hour = digits(11, 2), bytes[13] == 0x3A,
            let minute = digits(14, 2), bytes[16] == 0x3A, let second = digits(17, 2)
        else { return .failure(InvalidDate(reason: usage)) }
        var i = 19
        var nanos = 0
        if i < bytes.count, bytes[i] == 0x2E {
            i += 1
            var n = 0
            var scale = 100_000_000
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) {
                if scale > 0 { nanos += Int(bytes[i] - 0x30) * scale }
                scale /= 10
                n += 1
                i += 1
            }
            guard n > 0, n <= 9 else { return .failure(InvalidDate(reason: usage)) }
        }
        var offsetSeconds = 0
        guard i < bytes.count else { return .failure(InvalidDate(reason: usage)) }
        if bytes[i] == 0x5A || bytes[i] == 0x7A {
            i += 1
        } else if bytes[i] == 0x2B || bytes[i] == 0x2D, let oh = digits(i + 1, 2), i + 3 < bytes.count, bytes[i + 3] == 0x3A,
            let om = digits(i + 4, 2)
        {
            guard oh <= 23, om <= 59 else { return .failure(InvalidDate(reason: "\(Excerpt.quoted(text)): the zone offset is not ±HH:MM within ±23:59")) }
            offsetSeconds = (oh * 3600 + om * 60) * (bytes[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return .failure(InvalidDate(reason: usage))
        }
        guard i == bytes.count else { return .failure(InvalidDate(reason: usage)) }
        guard (1...12).contains(month) else { return .failure(InvalidDate(reason: "\(Excerpt.quoted(text)) is not a date: there is no month \(month)")) }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...monthDays).contains(day) else {
            let name = monthNames[month - 1]
            return .failure(InvalidDate(reason: "\(Excerpt.quoted(text)) is not a date: \(name) \(year) has \(monthDays) days"))
        }
        guard hour <= 23, minute <= 59, second <= 59 else {
            return .failure(InvalidDate(reason: "\(Excerpt.quoted(text)) is not a time of day: hours 00-23, minutes and seconds 00-59"))
        }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds) + Double(nanos) / 1e9
        return .success(Date(timeIntervalSince1970: seconds))
    }

    /// Why a run of `durationSeconds` (plus the scenario's settle) cannot be run, or nil: `key` is
    /// the scenario key at fault (`clock.start`, `os.reboots`, …), `message` the sentence.
    public static func problem(_ scenario: Scenario, durationSeconds: Int) -> (key: String, message: String)? {
        let start = scenario.clock.start.timeIntervalSince1970
        let startText = Self.format(start)
        guard start >= clockSeconds.lowerBound else {
            return ("clock.start", "\(startText) is before 1970-01-01T00:00:00Z, the first second the device clock holds (PROTOCOL.md §2)")
        }
        let runSeconds = durationSeconds + scenario.settleSeconds
        let end = start + Double(runSeconds) + slackSeconds(rate: scenario.clock.rate)
        guard end <= clockSeconds.upperBound else {
            return (
                "clock.start",
                "\(startText) + duration \(durationSeconds)s + settle \(scenario.settleSeconds)s (and \(Int(slackSeconds(rate: scenario.clock.rate)))s of slack) "
                    + "ends after 9999-12-31T23:59:59Z, the last second the device clock holds (PROTOCOL.md §2); start earlier"
            )
        }
        let os = scenario.os
        for (key, offsets) in [("os.reboots", os.reboots), ("os.revokeAt", os.revokeAt), ("os.timeZoneChanges", os.timeZoneChanges.map(\.atSeconds))] {
            if let late = offsets.first(where: { $0 > runSeconds }) {
                return (key, "\(late)s after clock.start is after the run ends (duration \(durationSeconds)s + settle \(scenario.settleSeconds)s = \(runSeconds)s); it would never happen")
            }
        }
        return nil
    }

    static func format(_ unixSeconds: Double) -> String {
        guard unixSeconds.isFinite, abs(unixSeconds) < 1e12 else { return String(unixSeconds) }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: unixSeconds))
    }
}
