import Foundation
import HarnessKit
import Testing

/// `clock.start: "2026-02-30T08:00:00Z"` ran as March 2 (ISO8601DateFormatter
/// rolls a day over), and a start the clock could not hold for the whole run hung or ended
/// UNDECIDED. ScenarioTimeline refuses both before anything runs.
@Suite(.timeLimit(.minutes(1))) struct ScenarioTimelineTests {
    func date(_ text: String) -> Date? { try? ScenarioTimeline.parseDate(text).get() }
    func reason(_ text: String) -> String? {
        if case .failure(let e) = ScenarioTimeline.parseDate(text) { return e.reason }
        return nil
    }

    @Test func realDatesParseAsTheFormatterReadsThem() {
        let formatter = ISO8601DateFormatter()
        // Every day of 2024 (a leap year) and 2026 at a few times and zones.
        for year in [2024, 2026] {
            var day = formatter.date(from: "\(year)-01-01T00:00:00Z")!
            while Calendar(identifier: .gregorian).component(.year, from: day) == year {
                for (time, zone) in [("00:00:00", "Z"), ("08:30:15", "+01:00"), ("23:59:59", "-09:30")] {
                    let ymd = formatter.string(from: day).prefix(10)
                    let text = "\(ymd)T\(time)\(zone)"
                    #expect(date(text) == formatter.date(from: text), "\(text)")
                }
                day += 86_400
            }
        }
        #expect(date("2026-02-17T08:00:00.250Z")?.timeIntervalSince1970 == 1_771_315_200.25)
        #expect(date("1970-01-01T00:00:00Z")?.timeIntervalSince1970 == 0)
        #expect(date("9999-12-31T23:59:59Z")?.timeIntervalSince1970 == 253_402_300_799)
    }

    @Test func datesThatDoNotExistAreRefusedByName() {
        #expect(reason("2026-02-30T08:00:00Z") == "\"2026-02-30T08:00:00Z\" is not a date: February 2026 has 28 days")
        #expect(reason("2026-02-29T08:00:00Z") == "\"2026-02-29T08:00:00Z\" is not a date: February 2026 has 28 days")
        #expect(reason("2100-02-29T08:00:00Z")?.contains("February 2100 has 28 days") == true)
        #expect(date("2000-02-29T08:00:00Z") != nil)
        #expect(reason("2026-13-01T08:00:00Z")?.contains("there is no month 13") == true)
        #expect(reason("2026-04-31T08:00:00Z")?.contains("April 2026 has 30 days") == true)
        #expect(reason("2026-04-01T24:00:00Z")?.contains("is not a time of day") == true)
        #expect(reason("2026-04-01T08:60:00Z")?.contains("is not a time of day") == true)
        #expect(reason("2026-04-01T08:00:00+25:00")?.contains("zone offset") == true)
        #expect(reason("2026-04-01T08:00:00")?.hasPrefix("expected an ISO 8601 time with a zone") == true)
        #expect(reason("2026-04-01")?.hasPrefix("expected an ISO 8601 time with a zone") == true)
        // A long value is shown as an excerpt, never whole.
        let long = String(repeating: "9", count: 5000)
        #expect(reason(long)!.count < 200)
    }
}
