import Foundation
import ScreenTimeModel
import SystemFiles

/// Harness side of `system/deviceactivity/` (EMULATED-IOS.md §7.3): the registrations the OS
/// evaluates with `ScheduleRules`.
public enum DeviceActivityReader {
    public static func registrations(on device: EmulatedDevice) -> SystemReadout<ActivityRegistrationRecord> {
        do {
            let (records, errors) = try device.area(SystemPaths.deviceActivity).readAll(ActivityRegistrationRecord.self)
            return SystemReadout(records: records.map(\.record).sorted { $0.activity < $1.activity }, errors: errors.map(\.description))
        } catch {
            return SystemReadout(errors: [error.description])
        }
    }
}
