import Foundation

/// `system/deviceactivity-refused/<ms>-<uuid>.json`: a `startMonitoring` the framework refused
/// (EMULATED-IOS.md §7.3). On iOS the OS itself refuses, so it knows; here the framework files the
/// refusal for the OS, which records it and deletes the file — a monitoring error reaches the
/// history even when the app swallows it.
public struct MonitoringRefusalRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    public var activity: String
    /// `MonitoringError`'s case: `intervalTooShort`, `intervalTooLong`, `invalidDateComponents`,
    /// `excessiveActivities`, `unauthorized`.
    public var error: String
    public var detail: String
    public var refusedAt: Date
    public var refusedBy: WriterRecord

    public init(activity: String, error: String, detail: String, refusedAt: Date, refusedBy: WriterRecord) {
        self.version = Self.currentVersion
        self.activity = activity
        self.error = error
        self.detail = detail
        self.refusedAt = refusedAt
        self.refusedBy = refusedBy
    }
}
