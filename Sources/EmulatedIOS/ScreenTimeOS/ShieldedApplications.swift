import AppGroup
import Foundation
import ScreenTimeModel

extension ManagedSettingsReader {
    /// The bundle ids any ManagedSettings store shields by name (`shield.applications`), read from
    /// `system/managedsettings/<store>.json` (EMULATED-IOS.md §7.2) through the device root's one
    /// harness-side `EmulatedDevice`; empty when the root's notify center cannot be opened.
    public static func shieldedApplications(deviceRoot: DeviceRoot) -> Set<String> {
        guard let device = OSDevices.device(for: deviceRoot) else { return [] }
        return shieldUnion(on: device).union.applications
    }
}
