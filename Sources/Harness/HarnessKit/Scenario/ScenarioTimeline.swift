import AppGroup
import Foundation

/// What a scenario's dates and offsets must satisfy before anything runs: a
/// start that is a real date the device clock can hold, a run that ends before the clock's last
/// second, and reboots, revocations and time-zone moves inside the run. A run that broke one of
/// these used to hang at the clock's bound (`clock_error`, then a 5 s wait per step), run on a
/// rolled-over date (2026-02-30 as March 2), or end UNDECIDED after it started.
public enum ScenarioTimeline {
    /// The device clock's seconds (PROTOCOL.md §2): 1970-01-01T00:00:00Z … 9999-12-31T23:59:59Z.
    public static let clockSeconds = DeviceClock.Configuration.unixSecondsRange

    /// Device seconds a run may go on past its plan (duration + settle): the wall bound on an
    /// overrun (`LiveRun.overrunWallNanos`, 60 s) at the scenario's rate, plus a day for
    /// virtual time's last steps and the checker's look past the end.
    public static func slackSeconds(rate: Double) -> Double { 86_400 + 60 * rate }

    public typealias InvalidDate = ISO8601Date.Invalid

    /// `ISO8601Date.parse` (AppGroup): a strict ISO 8601 time with a zone, every field in range —
    /// February 30 is refused, not rolled over to March 2. The date, or why not (no more than an
    /// 80-character excerpt of `text`).
    public static func parseDate(_ text: String) -> Result<Date, InvalidDate> { ISO8601Date.parse(text) }

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

    /// In the proleptic Gregorian calendar, as the scenario wrote it (`ISO8601DateFormatter` shows
    /// years before 1583 in the Julian one: `0001-01-01` came back as `0001-01-03`).
    static func format(_ unixSeconds: Double) -> String {
        guard unixSeconds.isFinite, abs(unixSeconds) < 1e12 else { return String(unixSeconds) }
        return ISO8601Date.format(Date(timeIntervalSince1970: unixSeconds))
    }
}
