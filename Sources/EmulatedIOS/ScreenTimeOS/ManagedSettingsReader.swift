import ScreenTimeModel
import OSFiles

/// Harness side of `system/managedsettings/` (EMULATED-IOS.md §7.2): every store's settings, and what
/// they shield, block and restrict together.
public enum ManagedSettingsReader {
    public static func stores(on device: EmulatedDevice) -> OSReadout<ManagedSettingsStoreRecord> {
        do {
            let (records, errors) = try device.area(OSPaths.managedSettings).readAll(ManagedSettingsStoreRecord.self)
            return OSReadout(records: records.map(\.record), errors: errors.map(\.description))
        } catch {
            return OSReadout(errors: [error.description])
        }
    }

    /// The union of every store's shield, as bundle ids, category ids and domains.
    public static func shieldUnion(on device: EmulatedDevice) -> (union: ShieldUnion, errors: [String]) {
        let s = stores(on: device)
        return (ShieldUnion(s.records.map(\.shield)), s.errors)
    }

    /// What every store says together, every group (rules: `ManagedSettingsUnion`). A store
    /// whose file does not decode counts for nothing and is in `errors`.
    public static func union(on device: EmulatedDevice) -> (union: ManagedSettingsUnion, errors: [String]) {
        let s = stores(on: device)
        return (ManagedSettingsUnion(s.records), s.errors)
    }

    /// Bundle ids of the applications some store blocks (`application.blockedApplications`): the
    /// user cannot open them. Sorted; application tokens that do not decode are in `unknownTokens`.
    public static func blockedApplications(on device: EmulatedDevice) -> (bundleIdentifiers: [String], unknownTokens: [String], errors: [String]) {
        let (u, errors) = union(on: device)
        return (u.blockedApplications.sorted(), u.unknownTokens.sorted(), errors)
    }
}
