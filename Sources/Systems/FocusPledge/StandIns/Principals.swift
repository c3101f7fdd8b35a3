import DeviceActivity
import FocusPledge
import ManagedSettings
import Seed000
import StandInKit

/// Which principal object iOS instantiates for an extension call, per variant. As-written: seed
/// 000's own classes, compiled from the seed's text (Sources/Systems/SeedCode/Seed000, with only the edits
/// Sources/Systems/SeedCode/EDITS.md lists) — their App Group writes are the seed's `AppGroupStorage`'s
/// `UserDefaults(suiteName:)` calls, traced as `defaults_set` (the pack asks for it). Hardened: ours,
/// handing each call to the pure machines (Extensions.swift).
enum Principals {
    static func monitor(_ env: ExtensionEnvironment) -> DeviceActivityMonitor {
        switch env.variant {
        case .asWritten: Seed000Principals.monitor()
        case .hardened: HardenedMonitorExtension(env)
        }
    }

    static func shieldAction(_ env: ExtensionEnvironment) -> ShieldActionDelegate {
        switch env.variant {
        case .asWritten: Seed000Principals.shieldAction()
        case .hardened: HardenedShieldActionExtension(env)
        }
    }
}
