import Foundation

/// When the warning callbacks of a schedule fall (Apple, `init(intervalStart:intervalEnd:repeats:warningTime:)`:
/// "If the components specify a longer time interval than the schedule's interval, the system
/// clamps the warning callbacks for each event's threshold to the start time of the interval").
public struct ScheduleWarnings: Equatable, Sendable {
    /// `intervalWillStartWarning`: `warningTime` before the start.
    public var willStart: Date
    /// `intervalWillEndWarning`: `warningTime` before the end, never before the start.
    public var willEnd: Date

    public init(willStart: Date, willEnd: Date) {
        self.willStart = willStart
        self.willEnd = willEnd
    }

    /// nil when the schedule has no warning time.
    public static func of(_ interval: DateInterval, warningTime: ScheduleComponents?) throws -> ScheduleWarnings? {
        guard let warningTime else { return nil }
        let w = try warningTime.durationSeconds()
        return ScheduleWarnings(
            willStart: interval.start.addingTimeInterval(-w),
            willEnd: max(interval.start, interval.end.addingTimeInterval(-w)))
    }

    /// `eventWillReachThresholdWarning`: the cumulative use (seconds) within the interval at which
    /// it fires — `warningTime` before the threshold, clamped to the interval's start (0).
    public static func eventWarningUseSeconds(threshold: ScheduleComponents, warningTime: ScheduleComponents?) throws -> Double? {
        guard let warningTime else { return nil }
        return max(0, try threshold.durationSeconds() - warningTime.durationSeconds())
    }
}
