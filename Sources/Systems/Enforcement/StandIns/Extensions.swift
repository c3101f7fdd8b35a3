import ArgumentParser
import DeviceActivity
import Enforcement
import Foundation
import ManagedSettings
import ManagedSettingsUI
import StandInKit
import SystemKit

// Seed 001's extensions as iOS runs them: principal classes that hand each call to the pure
// functions of `EnforcementExtensions.swift` (the seed has no code of its own to run).

typealias Environment = ExtensionEnvironment<EnforcementVariant>

final class MonitorExtension: DeviceActivityMonitor {
    let env: Environment

    init(_ env: Environment) {
        self.env = env
        super.init()
    }

    func call(_ callback: String, _ activity: DeviceActivityName) {
        env.perform(EnforcementMonitor.handle(
            callback: callback, activity: activity.rawValue, now: env.now.timeIntervalSince1970, timeZone: env.context.clock.timeZone,
            store: env.store(), variant: env.variant))
    }

    override func intervalDidStart(for activity: DeviceActivityName) { call("intervalDidStart", activity) }
    override func intervalDidEnd(for activity: DeviceActivityName) { call("intervalDidEnd", activity) }
    override func intervalWillEndWarning(for activity: DeviceActivityName) { call("intervalWillEndWarning", activity) }
}

final class ShieldActionExtension: ShieldActionDelegate {
    let env: Environment

    init(_ env: Environment) {
        self.env = env
        super.init()
    }

    override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        env.perform(
            EnforcementShieldAction.handle(action: action, now: env.now.timeIntervalSince1970, timeZone: env.context.clock.timeZone, store: env.store()),
            completionHandler: completionHandler)
    }
}

final class ShieldConfigurationExtension: ShieldConfigurationDataSource {
    let env: Environment

    init(_ env: Environment) {
        self.env = env
        super.init()
    }

    override func configuration(shielding application: Application) -> ShieldConfiguration {
        let text = EnforcementShieldConfiguration.text(now: env.now.timeIntervalSince1970, timeZone: env.context.clock.timeZone, store: env.store())
        return ShieldConfiguration(
            title: .init(text: text.title, color: .white), subtitle: .init(text: text.subtitle, color: .white),
            primaryButtonLabel: .init(text: text.primaryButton, color: .white),
            secondaryButtonLabel: text.secondaryButton.map { .init(text: $0, color: .white) })
    }

    override func configuration(shielding application: Application, in category: ActivityCategory) -> ShieldConfiguration {
        configuration(shielding: application)
    }
}

struct MonitorCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(commandName: EnforcementRoles.monitor, abstract: "The DeviceActivityMonitor extension: one callback, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .deviceActivityMonitor)
        let ctx = context(EnforcementRoles.monitor)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .monitor(MonitorExtension(Environment(context: ctx, delivery: call.delivery))))
    }
}

struct ShieldActionCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(commandName: EnforcementRoles.shieldAction, abstract: "The ShieldAction extension: one button press, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldAction)
        let ctx = context(EnforcementRoles.shieldAction)
        try FrameworkExtension.run(
            c, delivery: call.delivery, context: ctx, principal: .shieldAction(ShieldActionExtension(Environment(context: ctx, delivery: call.delivery))))
    }
}

struct ShieldConfigurationCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(
        commandName: EnforcementRoles.shieldConfiguration, abstract: "The ShieldConfiguration extension: one shield, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldConfiguration)
        let ctx = context(EnforcementRoles.shieldConfiguration)
        try FrameworkExtension.run(
            c, delivery: call.delivery, context: ctx,
            principal: .shieldConfiguration(ShieldConfigurationExtension(Environment(context: ctx, delivery: call.delivery))))
    }
}
