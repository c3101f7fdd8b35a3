import ArgumentParser
import DeviceActivity
import Exit
import Foundation
import ManagedSettings
import ManagedSettingsUI
import Seed004
import StandInKit
import SystemKit

// Seed 004's extensions as iOS runs them. As-written: the seed's own classes (Sources/Systems/SeedCode/
// Seed004, `Seed004Principals`), untouched. Hardened: principal classes that hand each call to
// the pure machines of `ExitExtensions.swift`.

typealias Environment = ExtensionEnvironment<ExitVariant>

/// Hardened monitor principal.
final class HardenedMonitorExtension: DeviceActivityMonitor {
    let env: Environment

    init(_ env: Environment) {
        self.env = env
        super.init()
    }

    override func intervalDidStart(for activity: DeviceActivityName) {
        env.perform(HardenedMonitor.handle(.intervalDidStart(activity: activity.rawValue), now: env.now.timeIntervalSince1970, store: env.store()))
    }

    override func intervalDidEnd(for activity: DeviceActivityName) {
        env.perform(HardenedMonitor.handle(.intervalDidEnd(activity: activity.rawValue), now: env.now.timeIntervalSince1970, store: env.store()))
    }

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        env.perform(HardenedMonitor.handle(
            .eventDidReachThreshold(event: event.rawValue, activity: activity.rawValue), now: env.now.timeIntervalSince1970, store: env.store()))
    }
}

/// Hardened shield-action principal.
final class HardenedShieldActionExtension: ShieldActionDelegate {
    let env: Environment

    init(_ env: Environment) {
        self.env = env
        super.init()
    }

    override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        // The token as the app can keep it: its Codable form (opaque, comparable with the app's selection).
        let token = (try? JSONEncoder().encode(application)).flatMap { String(data: $0, encoding: .utf8) }?
            .trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? ""
        env.perform(HardenedShieldAction.handle(action: action, token: token, now: env.now.timeIntervalSince1970), completionHandler: completionHandler)
    }
}

/// Hardened shield-configuration principal.
final class HardenedShieldConfigurationExtension: ShieldConfigurationDataSource {
    let env: Environment

    init(_ env: Environment) {
        self.env = env
        super.init()
    }

    override func configuration(shielding application: Application) -> ShieldConfiguration {
        let text = HardenedShieldConfiguration.text(now: env.now.timeIntervalSince1970, store: env.store())
        return ShieldConfiguration(
            title: .init(text: text.title, color: .white),
            subtitle: text.subtitle.map { .init(text: $0, color: .white) },
            primaryButtonLabel: text.primaryButton.map { .init(text: $0, color: .white) })
    }

    override func configuration(shielding application: Application, in category: ActivityCategory) -> ShieldConfiguration {
        configuration(shielding: application)
    }
}

struct MonitorCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(commandName: ExitRoles.monitor, abstract: "The DeviceActivityMonitor extension: one callback, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .deviceActivityMonitor)
        let ctx = context(ExitRoles.monitor)
        let env = Environment(context: ctx, delivery: call.delivery)
        let principal: DeviceActivityMonitor = env.variant == .asWritten ? Seed004Principals.monitor() : HardenedMonitorExtension(env)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .monitor(principal))
    }
}

struct ShieldActionCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(commandName: ExitRoles.shieldAction, abstract: "The ShieldAction extension: one button press, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldAction)
        let ctx = context(ExitRoles.shieldAction)
        let env = Environment(context: ctx, delivery: call.delivery)
        let principal: ShieldActionDelegate = env.variant == .asWritten ? Seed004Principals.shieldAction() : HardenedShieldActionExtension(env)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .shieldAction(principal))
    }
}

struct ShieldConfigurationCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(
        commandName: ExitRoles.shieldConfiguration, abstract: "The ShieldConfiguration extension: one shield, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldConfiguration)
        let ctx = context(ExitRoles.shieldConfiguration)
        let env = Environment(context: ctx, delivery: call.delivery)
        let principal: ShieldConfigurationDataSource =
            env.variant == .asWritten ? Seed004Principals.shieldConfiguration() : HardenedShieldConfigurationExtension(env)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .shieldConfiguration(principal))
    }
}
