import Foundation
import ScreenTimeModel
import OSFiles

/// Harness side of `system/deviceactivity/` (EMULATED-IOS.md §7.3): the registrations the OS
/// evaluates with `ScheduleRules`.
public enum DeviceActivityReader {
    public static func registrations(on device: EmulatedDevice) -> OSReadout<ActivityRegistrationRecord> {
        do {
            let (records, errors) = try device.area(OSPaths.deviceActivity).readAll(ActivityRegistrationRecord.self)
            return OSReadout(records: records.map(\.record).sorted { $0.activity < $1.activity }, errors: errors.map(\.description))
        } catch {
            return OSReadout(errors: [error.description])
        }
    }
}
