import PropertyList
import Foundation

/// The pack's variants: `as-written` (seed 001's text, literally) comes first.
public enum EnforcementVariant: String, CaseIterable, Sendable {
    case asWritten = "as-written"
    case hardened
}

/// The process roles (one executable, `sth-enforcement <role>`).
public enum EnforcementRoles {
    public static let host = "host"
    public static let monitor = "monitor-extension"
    public static let shieldAction = "shield-action-extension"
    public static let shieldConfiguration = "shield-configuration-extension"
}

/// Seed 001 names no keys; these are the pack's (README A1). Every value the extensions read is
/// a JSON `Data` blob the host writes in one atomic write.
public enum EnforcementKeys {
    public static let appGroup = "group.com.earnedaccess.shared"
    /// "Store selection data under App Group container (native)": the picked apps (bundle ids
    /// stand in for the selection's opaque tokens), JSON `[String]`.
    public static let selection = "selection_tokens"
    /// The modes with their schedules and precedence, JSON `[Mode]`.
    public static let modes = "modes"
    /// "Active grants come from `unlock_grant_current` + ends_ts > now": JSON `[Grant]`, one per app.
    public static let grants = "unlock_grant_current"
    /// The user's overrides of modes (A7), JSON `[Override]`, one per mode.
    public static let overrides = "mode_overrides"

    /// The user's taps in the host (inbox actions).
    public static let selectAppsAction = "select_apps"
    public static let enableModeAction = "enable_mode"
    public static let createGrantAction = "create_grant"
    public static let setOverrideAction = "set_override"

    /// DeviceActivity names: one repeating schedule per mode, one one-off schedule per grant.
    public static func modeActivity(_ mode: String) -> String { "mode.\(mode)" }
    /// Hardened (H8): the mode's second schedule, a minute behind the first.
    public static func modeSecondChanceActivity(_ mode: String) -> String { "mode.\(mode).again" }
    /// As-written: one activity per grant (its id); hardened: one per app (H2).
    public static func grantActivity(_ id: String) -> String { "grant.\(id)" }
    /// Hardened only (H7): one one-off schedule per mode, ending at its override's end.
    public static func overrideActivity(_ mode: String) -> String { "override.\(mode)" }

    /// Shield UI text (seed 001 "Shield UI content (v1.1)").
    public static let shieldTitle = "App is blocked"
    public static let nextStepEarnedAccess = "Open Earned Access to unlock"
    public static let nextStepFocus = "Or start a Focus session to earn credits"
    public static let closeButton = "Close app"

    /// The SQLite mirror's file, in the host's private sandbox (`sandboxes/host/`).
    public static let databaseDirectory = "Library/Application Support"
    public static let databaseFile = "enforcement.sqlite"
}
