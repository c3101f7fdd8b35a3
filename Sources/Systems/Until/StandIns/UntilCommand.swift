import ArgumentParser
import Foundation
import Seed003
import StandInKit
import SystemKit
import Until

/// `sth-until host-app | monitor-extension`: seed 003's processes, started by the harness as iOS
/// would (EMULATED-IOS.md §7). As-written runs the seed's own Swift; hardened the pack's machines.
public struct UntilCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sth-until", abstract: "Until (seed 003) stand-ins: the React Native host app and the DeviceActivity monitor extension.",
        subcommands: [HostAppCommand.self, MonitorExtensionCommand.self])

    public init() {}
}

func context(_ role: String) -> StandInContext {
    do { return try StandInContext(process: role, appGroup: UntilKeys.appGroup) } catch {
        StandInContext.fail(role, "\(error)")
    }
}

struct HostAppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "host-app", abstract: "The React Native app and its ScreenTimeModule; runs until SIGTERM.")

    func run() throws {
        let ctx = context("host-app")
        let adapter: AppAdapter
        switch ctx.variant(as: UntilVariant.self) {
        case .asWritten: adapter = AsWrittenHostAdapter()
        case .hardened: adapter = HardenedHostAdapter(privateStore: { ctx.privateSnapshot() })
        }
        do { try AppRunner(context: ctx, adapter: adapter).run() } catch {
            StandInContext.fail("host-app", "\(error)")
        }
    }
}

struct MonitorExtensionCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor-extension", abstract: "UntilDeviceActivityMonitor: one callback, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .deviceActivityMonitor)
        let ctx = context("monitor-extension")
        let principal: DeviceActivityMonitor
        switch ctx.variant(as: UntilVariant.self) {
        // The seed's class, as written (Seed003, seed lines 86-162).
        case .asWritten: principal = makeUntilDeviceActivityMonitor()
        case .hardened: principal = HardenedMonitorExtension(ExtensionEnvironment<UntilVariant>(context: ctx, delivery: call.delivery))
        }
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .monitor(principal))
    }
}
