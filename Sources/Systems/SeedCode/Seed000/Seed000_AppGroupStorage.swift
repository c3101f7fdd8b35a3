// Seed 000 (000_9dddb9b948cad8a0.txt), lines 119-192: Swift Helper Class (AppGroupStorage).
// Between BEGIN and END the seed's text verbatim, except the edits listed in Sources/Systems/SeedCode/EDITS.md
// (each marked `// EDIT` at the end of its line, or by a `// EDIT: removed` line).

// ---- BEGIN seed 000 lines 119-192 ----
// EDIT: removed seed line 119 (platform): import Foundation

class AppGroupStorage {
    static let shared = AppGroupStorage()
    private let userDefaults: UserDefaults?

    private init() {
        userDefaults = UserDefaults(suiteName: "group.com.focuspledge.shared")
    }

    // MARK: - Session State

    func setActiveSession(id: String, startTime: Date, endTime: Date) {
        userDefaults?.set(id, forKey: "focuspledge_active_session_id")
        userDefaults?.set(startTime.timeIntervalSince1970, forKey: "focuspledge_session_start_time")
        userDefaults?.set(endTime.timeIntervalSince1970, forKey: "focuspledge_session_end_time")
        userDefaults?.set(false, forKey: "focuspledge_session_failed")
        userDefaults?.synchronize()
    }

    func getActiveSessionId() -> String? {
        return userDefaults?.string(forKey: "focuspledge_active_session_id")
    }

    func getSessionEndTime() -> Date? {
        guard let timestamp = userDefaults?.double(forKey: "focuspledge_session_end_time"),
              timestamp > 0 else { return nil }
        return Date(timeIntervalSince1970: timestamp)
    }

    func clearActiveSession() {
        userDefaults?.removeObject(forKey: "focuspledge_active_session_id")
        userDefaults?.removeObject(forKey: "focuspledge_session_start_time")
        userDefaults?.removeObject(forKey: "focuspledge_session_end_time")
        userDefaults?.removeObject(forKey: "focuspledge_session_failed")
        userDefaults?.removeObject(forKey: "focuspledge_failure_reason")
        userDefaults?.removeObject(forKey: "focuspledge_failure_timestamp")
        userDefaults?.removeObject(forKey: "focuspledge_failure_app_bundle_id")
        userDefaults?.synchronize()
    }

    // MARK: - Failure Detection

    func markSessionFailed(reason: String, appBundleId: String? = nil) {
        userDefaults?.set(true, forKey: "focuspledge_session_failed")
        userDefaults?.set(reason, forKey: "focuspledge_failure_reason")
        userDefaults?.set(Date().timeIntervalSince1970, forKey: "focuspledge_failure_timestamp")
        if let bundleId = appBundleId {
            userDefaults?.set(bundleId, forKey: "focuspledge_failure_app_bundle_id")
        }
        userDefaults?.synchronize()
    }

    func checkSessionFailed() -> (failed: Bool, reason: String?, timestamp: Date?, appBundleId: String?) {
        let failed = userDefaults?.bool(forKey: "focuspledge_session_failed") ?? false
        let reason = userDefaults?.string(forKey: "focuspledge_failure_reason")
        let timestamp = userDefaults?.double(forKey: "focuspledge_failure_timestamp")
        let appBundleId = userDefaults?.string(forKey: "focuspledge_failure_app_bundle_id")

        let date = timestamp != nil && timestamp! > 0 ? Date(timeIntervalSince1970: timestamp!) : nil
        return (failed, reason, date, appBundleId)
    }

    // MARK: - Blocked Apps

    func saveBlockedAppsTokens(_ data: Data) {
        userDefaults?.set(data, forKey: "focuspledge_blocked_apps_tokens")
        userDefaults?.synchronize()
    }

    func getBlockedAppsTokens() -> Data? {
        return userDefaults?.data(forKey: "focuspledge_blocked_apps_tokens")
    }
}
// ---- END seed 000 lines 119-192 ----
