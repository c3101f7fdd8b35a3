import AppGroup
import Foundation
import ScreenTimeModel
import ScreenTimeOS

/// A registration reduced to absolute device times, as the runner's OS evaluates it today.
public struct DeviceActivitySchedule: Codable, Equatable, Sendable {
    public var intervalStart: Date
    public var intervalEnd: Date
    public var repeats: Bool

    public init(intervalStart: Date, intervalEnd: Date, repeats: Bool) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
    }
}

/// One registration as the runner sees it: its first interval.
public struct DeviceActivityRegistration: Codable, Equatable, Sendable {
    public var activity: String
    public var schedule: DeviceActivitySchedule
    public var registeredBy: Int32
}

/// The harness's view of DeviceActivity as the runner reads it today. Registrations are the
/// app-facing `DeviceActivity` module's (`system/deviceactivity/<activity>.json`, date components,
/// PROTOCOL.md §7.3); this gives each one's first interval (`nextInterval` at registration) as
/// absolute device times, so the runner's call is unchanged until the OS model evaluates the
/// components itself with `ScheduleRules`.
public enum DeviceActivityCenter {
    public static func registrations(deviceRoot: DeviceRoot) -> [DeviceActivityRegistration] {
        guard let device = SystemDevices.device(for: deviceRoot) else { return [] }
        return DeviceActivityReader.registrations(on: device).records.map { r in
            DeviceActivityRegistration(
                activity: r.activity,
                schedule: DeviceActivitySchedule(intervalStart: r.firstInterval.start, intervalEnd: r.firstInterval.end, repeats: r.schedule.repeats),
                registeredBy: r.registeredBy.pid)
        }
    }
}
