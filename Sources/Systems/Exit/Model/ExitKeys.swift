import PropertyList

/// The pack's variants: `as-written` (seed 004 literally) comes first.
public enum ExitVariant: String, CaseIterable, Sendable {
    case asWritten = "as-written"
    case hardened
}

/// Seed 004's names: the App Group (§1.1) and its keys (§2.1, Appendix A).
public enum ExitKeys {
    /// §1.1 "group.com.exit.app".
    public static let appGroup = "group.com.exit.app"

    public static let clarityScore = "clarity_score"
    public static let screenTimeToday = "screen_time_today"
    public static let monitoredApps = "monitored_apps"
    public static let unlockTimestamp = "unlock_timestamp"
    public static let interventionRequested = "intervention_requested"
    public static let blockedApp = "blocked_app"
    public static let lastInterventionCount = "last_intervention_count"
    public static let userLevel = "user_level"
    public static let dailyResetFlag = "daily_reset_flag"
    public static let entropyAccumulated = "entropy_accumulated"
    public static let consciousDayFlag = "conscious_day_flag"
    public static let extensionHeartbeat = "extension_heartbeat"
    public static let debugLogs = "debug_logs"
    /// What a daily reset writes (A5): `daily_reset_flag` "Signals midnight rollover occurred" and
    /// the two daily counters (`screen_time_today`, `last_intervention_count` "Today's …") back to 0.
    public static let dailyResetValues: [(key: String, value: PropertyListValue)] = [
        (dailyResetFlag, .bool(true)), (screenTimeToday, .integer(0)), (lastInterventionCount, .integer(0)),
    ]

    /// §3.3: "allow 60s access".
    public static let unlockWindowSeconds = 60.0
    /// §6.1: "if now - lastHeartbeat > 300 { // 5 minutes".
    public static let heartbeatStaleSeconds = 300.0
    /// §3.2 / §7.1: "Poll every second" while active; "Increase polling interval to 5 seconds" in the background.
    public static let foregroundPollSeconds = 1.0
    public static let backgroundPollSeconds = 5.0
    /// §8.1: "Shield button tap sets flag, main app detects within 2 seconds".
    public static let detectWithinSeconds = 2.0

    /// The user's taps in the host (inbox actions).
    public static let selectAppsAction = "select_apps"
    public static let breathingDoneAction = "breathing_done"
    public static let breathingAbandonedAction = "breathing_abandoned"

    /// The DeviceActivity schedule the host registers (not in the seed: README A3), and the
    /// hardened one-shot schedules whose end re-shields after an unlock (H3).
    public static let dailyActivity = "exit_daily"
    public static let unlockActivities = ["exit_unlock", "exit_unlock_backup"]
}

/// Seed 004's key registry (§2.1 "All shared keys must be documented here", and Appendix A's
/// "complete key reference"): each key and the processes the seed says write it.
public enum ExitRegistry {
    /// Writers as the seed names them.
    public enum Writer: String, Sendable, CaseIterable {
        case mainApp = "Main App"
        case shieldAction = "ShieldAction"
        case shieldConfiguration = "ShieldConfig"
        case monitor = "DeviceActivityMonitor"
    }

    /// §2.1's table, then Appendix A's keys §2.1 leaves out, with the writer the section that
    /// writes them names: `entropy_accumulated` (§5.3's monitor), `extension_heartbeat` (§6.1,
    /// "Extension"), `debug_logs` (§8.2, "in extensions"), `conscious_day_flag` (no writer shown:
    /// the Main App, which keeps the daily keys).
    public static let writers: [String: Set<Writer>] = [
        ExitKeys.clarityScore: [.mainApp],
        ExitKeys.screenTimeToday: [.mainApp],
        ExitKeys.monitoredApps: [.mainApp],
        ExitKeys.unlockTimestamp: [.mainApp],
        ExitKeys.interventionRequested: [.shieldAction],
        ExitKeys.blockedApp: [.shieldAction],
        ExitKeys.lastInterventionCount: [.mainApp],
        ExitKeys.userLevel: [.mainApp],
        ExitKeys.dailyResetFlag: [.mainApp],
        ExitKeys.entropyAccumulated: [.monitor],
        ExitKeys.consciousDayFlag: [.mainApp],
        ExitKeys.extensionHeartbeat: [.monitor, .shieldAction, .shieldConfiguration],
        ExitKeys.debugLogs: [.monitor, .shieldAction, .shieldConfiguration],
    ]

    /// The §2.1 row that lets `writer` write `key`; nil = the registry does not allow it.
    public static func allows(_ writer: Writer, toWrite key: String) -> Bool {
        writers[key]?.contains(writer) ?? false
    }
}

/// The user's levels (§2.1 "npc/glitch/hacker/main_character/oracle").
public enum ExitLevel {
    public static let all = ["npc", "glitch", "hacker", "main_character", "oracle"]

    /// Not in the seed (README A6): a level per 20 points of clarity.
    public static func level(clarity: Int) -> String { all[max(0, min(all.count - 1, clarity / 20))] }

    /// Not in the seed (README A6): clarity grows 10 points per completed intervention today, from 50.
    public static func clarity(completedToday: Int) -> Int { max(0, min(100, 50 + 10 * completedToday)) }
}

/// The role names (the history's `process`), the stand-ins' subcommands.
public enum ExitRoles {
    public static let host = "host"
    public static let monitor = "monitor-extension"
    public static let shieldAction = "shield-action-extension"
    public static let shieldConfiguration = "shield-configuration-extension"

    /// The registry's writer a role is (§2.1's "Written By").
    public static func writer(_ role: String) -> ExitRegistry.Writer? {
        switch role {
        case host: .mainApp
        case monitor: .monitor
        case shieldAction: .shieldAction
        case shieldConfiguration: .shieldConfiguration
        default: nil
        }
    }
}
