import ScreenTimeModel
import SystemFiles

/// Harness side of `system/managedsettings/` (PROTOCOL.md §7.2): every store's settings, and what
/// they shield together.
public enum ManagedSettingsReader {
    public static func stores(on device: EmulatedDevice) -> SystemReadout<ManagedSettingsStoreRecord> {
        do {
            let (records, errors) = try device.area(SystemPaths.managedSettings).readAll(ManagedSettingsStoreRecord.self)
            return SystemReadout(records: records.map(\.record), errors: errors.map(\.description))
        } catch {
            return SystemReadout(errors: [error.description])
        }
    }

    /// The union of every store's shield, as bundle ids, category ids and domains.
    public static func shieldUnion(on device: EmulatedDevice) -> (union: ShieldUnion, errors: [String]) {
        let s = stores(on: device)
        return (ShieldUnion(s.records.map(\.shield)), s.errors)
    }
}
