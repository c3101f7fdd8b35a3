import Foundation

extension FileManager {
    /// Apple's `containerURL(forSecurityApplicationGroupIdentifier:)` (Darwin-only in Foundation):
    /// the group's container in this process's device root, nil unless the process is entitled
    /// (`APP_GROUPS`), as on iOS (PROTOCOL.md §3).
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        AppGroupEnvironment.current?.containerURL(forSecurityApplicationGroupIdentifier: groupIdentifier)
    }
}
