import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// ISO 8601 times as the protocol writes them (plist `<date>`, PROTOCOL.md §3) and as scenarios
/// give them: `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, read strictly — every field in range
/// (February 30 is refused, not rolled over to March 2 as `ISO8601DateFormatter` does) — and in
/// the proleptic Gregorian calendar both ways, as `gmtime` writes. `ISO8601DateFormatter` reads
/// years before 1583 in the Julian calendar, so a date it read came back two days off through
/// `gmtime` (found by the plist fuzz test: a mutated year 0026).
public enum ISO8601Date {
    public struct Invalid: Error, Sendable { public var reason: String }

    /// The dates a property list holds (PROTOCOL.md §3): 0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z,
    /// whole seconds are what is written. Python's `datetime` (the other participant's reader) has
    /// no year 0 and no year 10000, so a writer refuses a date outside and every reader quarantines one.
    public static let range: ClosedRange<Double> = -62_135_596_800 ... 253_402_300_799

    /// Whether `d` is a date every participant can write and read back.
    public static func isWritable(_ d: Date) -> Bool {
        let t = d.timeIntervalSince1970
        return t.isFinite && range.contains(t.rounded(.down))
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// The date `text` names, or why not (with at most an 80-character excerpt of it).
    public static func parse(_ text: String) -> Result<Date, Invalid> {
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
        else { return .failure(Invalid(reason: usage)) }
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
            guard n > 0, n <= 9 else { return .failure(Invalid(reason: usage)) }
        }
        var offsetSeconds = 0
        guard i < bytes.count else { return .failure(Invalid(reason: usage)) }
        if bytes[i] == 0x5A || bytes[i] == 0x7A {
            i += 1
        } else if bytes[i] == 0x2B || bytes[i] == 0x2D, let oh = digits(i + 1, 2), i + 3 < bytes.count, bytes[i + 3] == 0x3A,
            let om = digits(i + 4, 2)
        {
            guard oh <= 23, om <= 59 else { return .failure(Invalid(reason: "\(Excerpt.quoted(text)): the zone offset is not ±HH:MM within ±23:59")) }
            offsetSeconds = (oh * 3600 + om * 60) * (bytes[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return .failure(Invalid(reason: usage))
        }
        guard i == bytes.count else { return .failure(Invalid(reason: usage)) }
        guard year >= 1 else { return .failure(Invalid(reason: "\(Excerpt.quoted(text)) is before 0001-01-01T00:00:00Z, the first date a property list holds (there is no year 0)")) }
        guard (1...12).contains(month) else { return .failure(Invalid(reason: "\(Excerpt.quoted(text)) is not a date: there is no month \(month)")) }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...monthDays).contains(day) else {
            let name = monthNames[month - 1]
            return .failure(Invalid(reason: "\(Excerpt.quoted(text)) is not a date: \(name) \(year) has \(monthDays) days"))
        }
        guard hour <= 23, minute <= 59, second <= 59 else {
            return .failure(Invalid(reason: "\(Excerpt.quoted(text)) is not a time of day: hours 00-23, minutes and seconds 00-59"))
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

    /// `YYYY-MM-DDTHH:MM:SSZ`, whole seconds, UTC, four-digit year (years 0…9999).
    public static func format(_ d: Date) -> String {
        let t = time_t(floor(d.timeIntervalSince1970))
        var tmv = tm()
        var tt = t
        gmtime_r(&tt, &tmv)
        func p2(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = Int(tmv.tm_year) + 1900
        let y = String(year)
        let y4 = year >= 0 && year < 1000 ? String(repeating: "0", count: 4 - y.count) + y : y
        return "\(y4)-\(p2(tmv.tm_mon + 1))-\(p2(tmv.tm_mday))T\(p2(tmv.tm_hour)):\(p2(tmv.tm_min)):\(p2(tmv.tm_sec))Z"
    }
}
