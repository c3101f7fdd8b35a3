import AppGroup
import Foundation

/// Where the framework shims meet the emulated OS (the harness): `<root>/system/`.
/// The shims write requests here and post a Darwin notification; only the harness reads it.
public enum EmulatedOSPaths {
    public static let managedSettings = "system/managedsettings"
    public static let deviceActivity = "system/deviceactivity"
    public static func inbox(_ process: String) -> String { "system/inbox/\(process)" }

    public static let managedSettingsChanged = "system.managedsettings.changed"
    public static let deviceActivityChanged = "system.deviceactivity.changed"
    public static func inboxPosted(_ process: String) -> String { "system.inbox.\(process)" }
}
