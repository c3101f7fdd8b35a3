import Foundation

/// A user action placed at a local time of day (`at: "23:50"`, optionally `every: day`), turned
/// into device offsets from `clock.start` in the scenario's time zone — and, after each of
/// `os.timeZoneChanges`, in the zone the device moved to (the user lives by the phone's clock).
/// Packs read it with `ScenarioSection.localTimeSchedule(at:every:)` and call `offsets(within:)`
/// when they plan.
public struct LocalTimeSchedule: Sendable, Equatable {
    public var hour: Int
    public var minute: Int
    /// Every day at that time; else only the first occurrence.
    public var daily: Bool
    public var start: Date
    public var timeZone: String
    public var timeZoneChanges: [Scenario.TimeZoneChange]

    /// At most this many occurrences (a year of days).
    public static let maxOccurrences = 366

    public init(hour: Int, minute: Int, daily: Bool, start: Date, timeZone: String, timeZoneChanges: [Scenario.TimeZoneChange] = []) {
        self.hour = hour
        self.minute = minute
        self.daily = daily
        self.start = start
        self.timeZone = timeZone
        self.timeZoneChanges = timeZoneChanges.sorted { $0.atSeconds < $1.atSeconds }
    }

    /// `"HH:MM"` (24-hour clock), or nil.
    public static func parseTime(_ text: String) -> (hour: Int, minute: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0..<24).contains(h), (0..<60).contains(m)
        else { return nil }
        return (h, m)
    }

    /// The zone in force `offset` seconds after the start.
    func zone(at offset: Double) -> TimeZone {
        let id = timeZoneChanges.last { Double($0.atSeconds) <= offset }?.timeZone ?? timeZone
        return TimeZone(identifier: id) ?? TimeZone(identifier: "UTC")!
    }

    /// Device offsets (seconds after the start) in `[0, seconds]`, ascending. A time that does not
    /// exist on a spring-forward day is the first instant after the gap; a repeated one (fall
    /// back) its first occurrence — as DeviceActivity schedules match (EMULATED-IOS.md §7.3).
    public func offsets(within seconds: Double) -> [Double] {
        var out: [Double] = []
        var after = start.addingTimeInterval(-0.001)
        // Each turn either adds an occurrence or moves past a zone change: bounded.
        var turns = 0
        while out.count < Self.maxOccurrences, turns < Self.maxOccurrences + timeZoneChanges.count + 1 {
            turns += 1
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone(at: after.timeIntervalSince(start))
            guard
                let next = calendar.nextDate(
                    after: after, matching: DateComponents(hour: hour, minute: minute, second: 0), matchingPolicy: .nextTime,
                    repeatedTimePolicy: .first, direction: .forward)
            else { break }
            // A zone change between `after` and `next` moves the wall clock: match again from the
            // change, in the new zone.
            let offset = next.timeIntervalSince(start)
            if let change = timeZoneChanges.first(where: { Double($0.atSeconds) > after.timeIntervalSince(start) && Double($0.atSeconds) < offset }) {
                after = start.addingTimeInterval(Double(change.atSeconds))
                continue
            }
            guard offset <= seconds else { break }
            out.append(offset)
            guard daily else { break }
            after = next.addingTimeInterval(60)
        }
        return out
    }
}

extension ScenarioSection {
    /// `<at>: "HH:MM"` and optional `<every>: day` of this mapping as a schedule in the scenario's
    /// time zone; nil when `<at>` is absent.
    public func localTimeSchedule(at atKey: String = "at", every everyKey: String = "every") throws(ScenarioError) -> LocalTimeSchedule? {
        guard let atValue = self[atKey] else {
            if let e = self[everyKey] { throw e.error("\(e.path): needs \(qualified(atKey)) (a local time \"HH:MM\")") }
            return nil
        }
        let text = try atValue.string()
        guard let (h, m) = LocalTimeSchedule.parseTime(text) else {
            throw atValue.error("\(atValue.path): expected a local time \"HH:MM\" (24-hour clock), got '\(text)'")
        }
        var daily = false
        if let e = self[everyKey] {
            let word = try e.string()
            guard word == "day" else { throw e.error("\(e.path): expected 'day', got '\(word)'") }
            daily = true
        }
        guard let clock = fields.clock else { throw error("\(path): local times need the scenario's clock") }
        return LocalTimeSchedule(hour: h, minute: m, daily: daily, start: clock.start, timeZone: clock.timeZone, timeZoneChanges: fields.timeZoneChanges)
    }
}
