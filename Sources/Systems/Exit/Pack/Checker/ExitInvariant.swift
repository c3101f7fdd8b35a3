import Exit
import HarnessKit

/// What seed 004 (Exit) promises, one case per promise, each quoting the seed. (`no-store-corrupt`
/// and `run-settles` are the core's.)
public enum ExitInvariant: String, CaseIterable, Codable, Sendable {
    case keyRegistry = "key-registry"
    case tapServed = "tap-served"
    case unlockInWindow = "unlock-in-window"
    case unlockGrantsAccess = "unlock-grants-access"
    case dailyReset = "daily-reset-once-per-day"
    case countMatchesDay = "count-matches-day"
    case heartbeatNoFalseAlarm = "heartbeat-no-false-alarm"

    public var descriptor: InvariantDescriptor { promise.bounded(by: boundSeconds) }

    /// The shortest device-time bound each rule judges by (`InvariantDescriptor.boundSeconds`).
    var boundSeconds: Double? {
        switch self {
        case .tapServed: ExitKeys.detectWithinSeconds
        case .unlockInWindow: UnlockWindowRule.toleranceSeconds
        case .dailyReset: DailyResetRule.withinSeconds
        case .keyRegistry, .unlockGrantsAccess, .countMatchesDay, .heartbeatNoFalseAlarm: nil
        }
    }

    var promise: InvariantDescriptor {
        switch self {
        case .keyRegistry:
            InvariantDescriptor(
                name: rawValue, promise: "Every App Group write is to a key of the registry, by a process the registry lists as its writer.",
                source: "§2.1: \"All shared keys must be documented here to prevent collisions\" (the table's Written By; Appendix A)")
        case .tapServed:
            InvariantDescriptor(
                name: rawValue,
                promise: "A \"Begin Breathing\" tap is served: whenever the host is in the foreground while the tap waits, the intervention is on screen within 2 s — also after a force quit mid-exercise — until the user finishes it.",
                source: "§8.1: \"Shield button tap sets flag, main app detects within 2 seconds\"; \"Force quit main app during intervention doesn't break state\"")
        case .unlockInWindow:
            InvariantDescriptor(
                name: rawValue,
                promise: "A monitored app is unshielded, and a shield says \"Access Granted — Ns remaining\", only inside the 60 s after an unlock (N the seconds left).",
                source: "§3.3: \"if now - unlockTime < 60 { let remaining = Int(60 - (now - unlockTime))\"")
        case .unlockGrantsAccess:
            InvariantDescriptor(
                name: rawValue, promise: "After a completed exercise the user can use the app inside the 60 s window (it is not shielded).",
                source: "§3.3: \"User completed breathing, allow 60s access\"; §8.1: \"Unlock timestamp grants 60-second access window\"")
        case .dailyReset:
            InvariantDescriptor(
                name: rawValue,
                promise: "The daily counters are reset once per local day, before the host shows the new day (within 5 s of coming to the foreground).",
                source: "§2.1: daily_reset_flag \"Signals midnight rollover occurred\"; §8.1: \"Midnight rollover doesn't corrupt shared data\"")
        case .countMatchesDay:
            InvariantDescriptor(
                name: rawValue, promise: "last_intervention_count, whenever the host writes it, is the number of exercises completed since the day's reset (no update lost).",
                source: "§2.1: last_intervention_count \"Today's completed interventions\"; §8.1 \"doesn't corrupt shared data\"")
        case .heartbeatNoFalseAlarm:
            InvariantDescriptor(
                name: rawValue,
                promise: "The host decides the extension crashed (reinitializeExtensions) only when its last call did die before it finished.",
                source: "§6.1: \"if now - lastHeartbeat > 300 { // Extension may be crashed, reinitialize\"")
        }
    }
}
