import AppGroup
import DeviceActivity
import FocusPledge
import Foundation
import ManagedSettings
import ManagedSettingsUI
import StandInKit
import SystemKit

// Seed 000's extensions as iOS runs them, hardened: the principal classes below subclass Apple's
// `DeviceActivityMonitor`, `ShieldActionDelegate` and `ShieldConfigurationDataSource`, read like
// the seed's Swift, and hand every decision to the pure machines (`MonitorExtension`,
// `FocusPledge.ShieldActionExtension`, `ShieldConfigurationExtension`). As-written runs the seed's
// own classes instead (`Principals`, Sources/Systems/SeedCode/Seed000), except the shield-configuration
// extension, which the seed does not have (README, A12). `FrameworkExtension.run` makes the one
// call iOS makes and traces the answer.

/// The core's extension environment with this pack's variants.
typealias ExtensionEnvironment = StandInKit.ExtensionEnvironment<Variant>

/// Seed 000, "DeviceActivity Monitor Extension", hardened (H5, H6).
final class HardenedMonitorExtension: DeviceActivityMonitor {
    let env: ExtensionEnvironment

    init(_ env: ExtensionEnvironment) {
        self.env = env
        super.init()
    }

    // Called when monitoring interval starts
    override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)

        // Session monitoring has started
        // Optionally log or set a flag
        decide(.intervalDidStart(activity: activity.rawValue))
    }

    // Called when monitoring interval ends
    override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)

        // Session monitoring has ended (time expired)
        // Remove shields in host app via stopNativeSession
        decide(.intervalDidEnd(activity: activity.rawValue, now: env.now, store: env.store()))
    }

    // Called when user attempts to use a shielded app
    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)

        // User violated session by opening blocked app
        // Write failure to App Group
        decide(.eventDidReachThreshold(event: event.rawValue, activity: activity.rawValue, now: env.now, store: env.store()))
    }

    private func decide(_ event: MonitorExtension.Event) {
        var machine = MonitorExtension(variant: env.variant)
        env.perform(machine.handle(event))
    }
}

/// Seed 000, "Alternative: ShieldActionExtension (Optional)", hardened (H5, H6).
final class HardenedShieldActionExtension: ShieldActionDelegate {
    let env: ExtensionEnvironment

    init(_ env: ExtensionEnvironment) {
        self.env = env
        super.init()
    }

    override func handle(
        action: ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        // User tapped on a shielded app
        // Log violation with app token (can be mapped to bundle ID)
        var machine = FocusPledge.ShieldActionExtension(variant: env.variant)
        let effects = machine.handle(.handle(
            action: action,
            appBundleId: Application(token: application).bundleIdentifier,  // if available (nil outside a configuration extension)
            now: env.now, store: env.store()))

        // Return .none to keep shield active (user cannot bypass) — the machine's `.respond`.
        env.perform(effects, completionHandler: completionHandler)
    }
}

/// Not in seed 000 (README, A12): as-written shows the system's default shield; hardened records
/// the violation when the shield is shown (H2).
final class ShieldConfigurationExtension: ShieldConfigurationDataSource {
    let env: ExtensionEnvironment

    init(_ env: ExtensionEnvironment) {
        self.env = env
        super.init()
    }

    override func configuration(shielding application: Application) -> ShieldConfiguration {
        var machine = FocusPledge.ShieldConfigurationExtension(variant: env.variant)
        env.perform(machine.handle(.configuration(appBundleId: application.bundleIdentifier, now: env.now, store: env.store())))
        switch env.variant {
        case .asWritten:
            return ShieldConfiguration()
        case .hardened:
            return ShieldConfiguration(
                title: .init(text: "Focus session in progress", color: .white),
                subtitle: .init(text: "Opening this app ends your pledge as failed.", color: .white),
                primaryButtonLabel: .init(text: "Close", color: .white))
        }
    }

    override func configuration(shielding application: Application, in category: ActivityCategory) -> ShieldConfiguration {
        configuration(shielding: application)
    }
}
