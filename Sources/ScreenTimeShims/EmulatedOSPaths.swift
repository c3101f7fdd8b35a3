import AppGroup
import Foundation
import ScreenTimeModel

/// Where the runner meets the emulated OS: `<root>/system/` (the full list is
/// `ScreenTimeModel.SystemPaths`, EMULATED-IOS.md §7).
public enum EmulatedOSPaths {
    public static let managedSettings = SystemPaths.managedSettings
    public static let deviceActivity = SystemPaths.deviceActivity
    public static func inbox(_ process: String) -> String { SystemPaths.inbox(process) }

    public static let managedSettingsChanged = SystemPaths.managedSettingsChanged
    public static let deviceActivityChanged = SystemPaths.deviceActivityChanged
    public static func inboxPosted(_ process: String) -> String { SystemPaths.inboxPosted(process) }
}
