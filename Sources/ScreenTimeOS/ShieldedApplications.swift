import AppGroup
import Foundation
import ScreenTimeModel
import ScreenTimeOS

/// The harness's view of ManagedSettings as the runner reads it today: every store's shielded
/// applications as bundle ids. The stores themselves are the app-facing `ManagedSettings` module's
/// (`system/managedsettings/<store>.json`, EMULATED-IOS.md §7.2); this reads them through
/// `ScreenTimeOS` and keeps the runner's call unchanged until the OS model reads them directly.
public enum ManagedSettingsStore {
    /// The bundle ids any store shields by name (`shield.applications`).
    public static func shieldedApplications(deviceRoot: DeviceRoot) -> Set<String> {
        guard let device = SystemDevices.device(for: deviceRoot) else { return [] }
        return ManagedSettingsReader.shieldUnion(on: device).union.applications
    }
}
