import Foundation
import ScreenTimeModel
import OSFiles

/// Apple's `DeviceActivitySchedule`: when to monitor, as date components evaluated in the
/// device's time zone (EMULATED-IOS.md §7.3 for the rules: an end earlier than the start wraps past
/// midnight; 15 minutes ≤ interval ≤ one week).
public struct DeviceActivitySchedule: Sendable, Equatable {
    public let intervalStart: DateComponents
    public let intervalEnd: DateComponents
    public let repeats: Bool
    public let warningTime: DateComponents?

    public init(intervalStart: DateComponents, intervalEnd: DateComponents, repeats: Bool, warningTime: DateComponents? = nil) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
        self.warningTime = warningTime
    }

    /// Apple's `nextInterval`: the interval ongoing now, else the next one; nil when the
    /// components match no such date. "Now" and the time zone are the device's.
    public var nextInterval: DateInterval? {
        guard let spec = try? spec() else { return nil }
        let device = try? EmulatedDevice.current()
        return ScheduleRules.nextInterval(of: spec, at: device?.now() ?? Date(), timeZone: device?.timeZone ?? .current)
    }

    func spec() throws(ScheduleError) -> ScheduleSpec {
        func convert(_ c: DateComponents, _ name: String) throws(ScheduleError) -> ScheduleComponents {
            do { return try ScheduleComponents(c) } catch { throw .invalidDateComponents("\(name): \(error)") }
        }
        return ScheduleSpec(
            intervalStart: try convert(intervalStart, "intervalStart"), intervalEnd: try convert(intervalEnd, "intervalEnd"),
            repeats: repeats, warningTime: try warningTime.map { c throws(ScheduleError) in try convert(c, "warningTime") })
    }

    init(_ s: ScheduleSpec) {
        self.init(
            intervalStart: s.intervalStart.dateComponents, intervalEnd: s.intervalEnd.dateComponents, repeats: s.repeats,
            warningTime: s.warningTime?.dateComponents)
    }
}
