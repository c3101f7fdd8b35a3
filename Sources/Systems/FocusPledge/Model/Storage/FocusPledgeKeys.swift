/// Every name seed 000 (FocusPledge, "iOS Native Bridge Specification") puts on the wire between
/// its processes: the App Group, the shared-defaults keys, the DeviceActivity activity names and
/// the Darwin notification. Stand-ins and checkers must use these, never spell them again.
public enum FocusPledgeKeys {
    /// Seed: "Identifier: `group.com.focuspledge.shared`". Also the defaults suite name
    /// (`UserDefaults(suiteName: "group.com.focuspledge.shared")`).
    public static let appGroupId = "group.com.focuspledge.shared"
    public static let suiteName = appGroupId

    // MARK: The seed's "Shared Storage Keys" table

    public static let activeSessionId = "focuspledge_active_session_id"  // String
    public static let sessionStartTime = "focuspledge_session_start_time"  // Double, Unix seconds
    public static let sessionEndTime = "focuspledge_session_end_time"  // Double, Unix seconds
    public static let sessionFailed = "focuspledge_session_failed"  // Bool
    public static let failureReason = "focuspledge_failure_reason"  // String
    public static let failureTimestamp = "focuspledge_failure_timestamp"  // Double, Unix seconds
    public static let failureAppBundleId = "focuspledge_failure_app_bundle_id"  // String
    public static let blockedAppsTokens = "focuspledge_blocked_apps_tokens"  // Data (JSON [String] here)

    // MARK: Keys only the hardened variant writes
    //
    // iOS's UserDefaults writes one key at a time: a process that dies between two `set`s leaves
    // the first (the `torn_write` field fault). So hardened keeps each record it must read whole
    // under ONE key and never writes two keys at once (README, H1).

    /// The active session, whole (Data: JSON `{sessionId, startTime, endTime}`, Unix seconds).
    public static let sessionRecord = "focuspledge_session"
    /// A failure, whole and bound to its session (Data: JSON `{sessionId, reason, timestamp,
    /// appBundleId?}`). Without the session id a late callback of an old session fails whatever
    /// session is active now.
    public static let failureRecord = "focuspledge_failure"
    /// The id of the session whose DeviceActivity interval ended (String), written by the monitor
    /// extension so that a host that was dead at the end can settle SUCCESS on relaunch.
    public static let sessionEnded = "focuspledge_session_ended"
    /// Sessions the host concluded and the server has not confirmed yet (Data: JSON
    /// `[PendingSettlement]`, oldest first): the durable outbox a relaunch settles from, so the
    /// next session can start at once while an earlier one is still being settled.
    public static let unsettled = "focuspledge_unsettled"

    /// The eight keys of the seed's table, in its order.
    public static let seedKeys: [String] = [
        activeSessionId, sessionStartTime, sessionEndTime, sessionFailed,
        failureReason, failureTimestamp, failureAppBundleId, blockedAppsTokens,
    ]
    /// Every key either variant may write.
    public static let allKeys: [String] = seedKeys + [sessionRecord, failureRecord, sessionEnded, unsettled]

    // MARK: Other names

    /// Darwin notification the extensions post after writing a failure (not in the seed, which
    /// only polls; both variants post it so a running host learns of a failure at once).
    public static let failureNotification = "com.focuspledge.failure"
    /// Seed: `DeviceActivityName("focuspledge_\(sessionId)")`.
    public static let activityNamePrefix = "focuspledge_"
    /// Seed: "Channel Name `com.focuspledge/screen_time`" (informational; no MethodChannel here).
    public static let methodChannel = "com.focuspledge/screen_time"

    /// Seed: `markSessionFailed(reason: "app_opened", ...)` in both extensions.
    public static let appOpenedReason = "app_opened"
    /// Seed (Dart): `reason: reason ?? 'native_violation'`.
    public static let fallbackFailureReason = "native_violation"

    /// The event name a monitor callback is traced under when iOS gives none (the seed registers
    /// no `DeviceActivityEvent`, so on iOS — and in the emulated OS — it never fires).
    public static let thresholdEventName = "blocked_app_opened"

    public static func activityName(sessionId: String) -> String {
        activityNamePrefix + sessionId
    }

    /// The session id inside an activity name `focuspledge_<sessionId>`, or nil for a foreign name.
    public static func sessionId(fromActivity activity: String) -> String? {
        guard activity.hasPrefix(activityNamePrefix) else { return nil }
        let id = String(activity.dropFirst(activityNamePrefix.count))
        return id.isEmpty ? nil : id
    }
}

/// The user's taps inside the host app (the MethodChannel calls the Flutter UI makes), as the
/// emulated OS delivers them (`AppMessage.action`).
public enum FocusPledgeActions {
    /// `presentAppPicker`: the selection in `AppMessage.list`.
    public static let selectApps = "select_apps"
    /// `startNativeSession`: fields `sessionId`, `durationMinutes`.
    public static let startSession = "start_session"
    /// `stopNativeSession`: field `sessionId`.
    public static let stopSession = "stop_session"
}
