import DeviceActivity
import ManagedSettings
import ManagedSettingsUI

// Not seed text: how the Exit app's extensions would name the seed's classes as their principal
// classes (their Info.plists' NSExtensionPrincipalClass). The classes are the seed's, unchanged;
// this file only hands them to the harness's stand-ins (Sources/Systems/Exit/StandIns), which run
// them as iOS does. Listed in EDITS.md ("Context").

/// The extension principals of seed 004, as written.
public enum Seed004Principals {
    /// §3.3 "Shield Extension (checks timestamp)": `Seed004UnlockShield`, the 60 s window and the
    /// locked configuration. (§3.1's fragment, `Seed004ClarityShield`, reads `clarity_score` and
    /// returns the default configuration: it decides nothing the user sees.)
    public static func shieldConfiguration() -> ShieldConfigurationDataSource { Seed004UnlockShield() }

    /// §3.2 "ShieldAction Extension (button handler)".
    public static func shieldAction() -> ShieldActionDelegate { Seed004ShieldActionExtension() }

    /// §5.3's `ExitDeviceActivityMonitor`, with §6.1's "Extension (periodic)" heartbeat after each
    /// of its callbacks: an extension runs only while iOS calls it, so its callbacks are the only
    /// times it can write.
    public static func monitor() -> DeviceActivityMonitor { Seed004HeartbeatMonitor() }
}

/// §5.3's monitor, each callback followed by §6.1's block (`seed004Heartbeat()`: the seed shows
/// the extension's write and the main app's check as one block; run here, its check half finds
/// the heartbeat it just wrote fresh and does nothing).
final class Seed004HeartbeatMonitor: ExitDeviceActivityMonitor {
    override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)
        seed004Heartbeat()
    }

    override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        seed004Heartbeat()
    }

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)
        seed004Heartbeat()
    }
}
