import Foundation

/// A `DeviceActivitySchedule` as the app builds it: date components evaluated by the OS in the
/// device's time zone (EMULATED-IOS.md §7.3). Seed 000 passes `DateComponents(hour:minute:)`; a
/// machine that wants an exact absolute interval uses `Effect.startMonitoring(activity:start:end:repeats:)`.
public struct MonitoringSchedule: Sendable, Equatable {
    public var intervalStart: DateComponents
    public var intervalEnd: DateComponents
    public var repeats: Bool
    public var warningTime: DateComponents?

    public init(intervalStart: DateComponents, intervalEnd: DateComponents, repeats: Bool, warningTime: DateComponents? = nil) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
        self.warningTime = warningTime
    }
}

/// A `DeviceActivityEvent`: the applications (bundle ids) whose cumulative frontmost use within an
/// interval counts toward `threshold`.
public struct MonitoringEvent: Sendable, Equatable {
    public var applications: [String]
    public var threshold: DateComponents

    public init(applications: [String], threshold: DateComponents) {
        self.applications = applications
        self.threshold = threshold
    }
}

/// An effect that was carried out and failed: what the app's code would have seen thrown.
public struct EffectFailure: Sendable, Equatable {
    public var effect: Effect
    public var error: String

    public init(effect: Effect, error: String) {
        self.effect = effect
        self.error = error
    }
}
