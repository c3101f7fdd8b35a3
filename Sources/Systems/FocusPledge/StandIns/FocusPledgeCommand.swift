import ArgumentParser
import FocusPledge
import Foundation
import StandInKit
import SystemKit

/// `sth-focuspledge <role>`: seed 000's host app and extensions, one role per process, started by
/// the harness as iOS would (EMULATED-IOS.md §7).
public struct FocusPledgeCommand: PlainLaunchable {
    public static let configuration = CommandConfiguration(
        commandName: "sth-focuspledge",
        abstract: "FocusPledge (seed 000) stand-ins: the host app and its extensions.",
        subcommands: [
            HostAppCommand.self, MonitorExtensionCommand.self, ShieldActionExtensionCommand.self, ShieldConfigurationExtensionCommand.self,
        ])

    public init() {}

    /// The command for `args` when they are in a plain form (`PlainLaunchable.launch` runs it), else nil.
    public static func plainCommand(_ args: [String]) -> ParsableCommand? {
        guard let role = args.first else { return nil }
        let rest = Array(args.dropFirst())
        switch role {
        case HostAppCommand.configuration.commandName: return rest.isEmpty ? HostAppCommand() : nil
        case MonitorExtensionCommand.configuration.commandName: return MonitorExtensionCommand.plainCommand(rest)
        case ShieldActionExtensionCommand.configuration.commandName: return ShieldActionExtensionCommand.plainCommand(rest)
        case ShieldConfigurationExtensionCommand.configuration.commandName: return ShieldConfigurationExtensionCommand.plainCommand(rest)
        default: return nil
        }
    }
}

func context(_ role: String) -> StandInContext {
    do { return try StandInContext(process: role, appGroup: FocusPledgeKeys.appGroupId, suite: FocusPledgeKeys.suiteName) } catch {
        StandInContext.fail(role, "\(error)")
    }
}

struct HostAppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "host-app", abstract: "The Flutter app and its NativeBridge; runs until SIGTERM.")

    func run() throws {
        let ctx = context("host-app")
        do {
            let adapter = HostAppAdapter(
                variant: ctx.variant(as: Variant.self), timeZone: { ctx.clock.timeZone }, screenTime: AsWrittenAuthorization.status,
                askAsWritten: AsWrittenAuthorization.ask)
            try AppRunner(context: ctx, adapter: adapter).run()
        } catch {
            StandInContext.fail("host-app", "\(error)")
        }
    }
}

struct MonitorExtensionCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(commandName: "monitor-extension", abstract: "DeviceActivityMonitorExtension: one callback, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .deviceActivityMonitor)
        let ctx = context("monitor-extension")
        let env = ExtensionEnvironment(context: ctx, delivery: call.delivery)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .monitor(Principals.monitor(env)))
    }
}

struct ShieldActionExtensionCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(commandName: "shield-action-extension", abstract: "ShieldActionExtension: one button press, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldAction)
        let ctx = context("shield-action-extension")
        let env = ExtensionEnvironment(context: ctx, delivery: call.delivery)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .shieldAction(Principals.shieldAction(env)))
    }
}

struct ShieldConfigurationExtensionCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "shield-configuration-extension", abstract: "ShieldConfigurationExtension: one shield's look, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldConfiguration)
        let ctx = context("shield-configuration-extension")
        let env = ExtensionEnvironment(context: ctx, delivery: call.delivery)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .shieldConfiguration(ShieldConfigurationExtension(env)))
    }
}
