/// Where the app-facing frameworks and the emulated OS meet: `<device-root>/system/`
/// (EMULATED-IOS.md §7). Every file here is replaced by temp + rename and followed by a post of its
/// area's Darwin notification; names starting with `.` are temp files or locks, never records.
public enum OSPaths {
    // MARK: Directories (relative to the device root)

    public static let managedSettings = "system/managedsettings"
    public static let deviceActivity = "system/deviceactivity"
    /// Refused `startMonitoring` calls, filed by the framework for the OS (`MonitoringRefusalRecord`).
    public static let deviceActivityRefusals = "system/deviceactivity-refused"
    public static let authorization = "system/authorization"
    public static let notifications = "system/notifications"
    public static let pendingNotifications = "system/notifications/pending"
    public static let notificationRemovals = "system/notifications/removals"
    public static func inbox(_ process: String) -> String { "system/inbox/\(process)" }

    // MARK: File names

    /// `system/authorization/`: the OS's answer and the app's request.
    public static let familyControlsStatus = "familycontrols.json"
    public static let familyControlsRequest = "familycontrols-request.json"
    /// `system/notifications/`.
    public static let notificationAuthorization = "authorization.json"
    public static let notificationAuthorizationRequest = "authorization-request.json"
    public static let notificationCategories = "categories.json"
    public static let deliveredNotifications = "delivered.json"
    public static let badge = "badge.json"
    /// Stores, activities and notification requests are files named by `OSFileName.encode`.

    /// A record file: `<something>.json`, not a temp file, lock or quarantined file.
    public static func isRecordName(_ name: String) -> Bool { name.hasSuffix(".json") && !name.hasPrefix(".") && name.count > 5 }


    // MARK: Darwin notification names

    public static let managedSettingsChanged = "system.managedsettings.changed"
    public static let deviceActivityChanged = "system.deviceactivity.changed"
    public static let authorizationChanged = "system.authorization.changed"
    public static let notificationsChanged = "system.notifications.changed"
    public static func inboxPosted(_ process: String) -> String { "system.inbox.\(process)" }

    // MARK: Limits (TIGER_STYLE: every file read has a bound)

    /// One record (a store's settings, a registration, a notification request).
    public static let maxRecordBytes = 1 << 20
    /// A directory listing of records.
    public static let maxRecordsPerDirectory = 4096
}
