import AppGroup
import ArgumentParser
import Foundation
import ManagedSettings
import Pushin
import Seed002
import StandInKit
import SystemKit

/// `sth-pushin host-app | shield-action-extension`: seed 002's two processes, started by the
/// harness as iOS would. Each is a thin shell: inputs become machine events (or the seed's own
/// Swift runs), effects go to the one interpreter.
public struct PushinCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sth-pushin", abstract: "Pushin (seed 002): the host app and the shield-action extension.",
        subcommands: [HostAppCommand.self, ShieldActionExtensionCommand.self])

    public init() {}
}

func context(_ role: String) -> StandInContext {
    do { return try StandInContext(process: role, appGroup: PushinKeys.appGroup) } catch {
        StandInContext.fail(role, "\(error)")
    }
}

struct HostAppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "host-app", abstract: "The host app; runs until SIGTERM.")

    func run() throws {
        let ctx = context("host-app")
        do { try AppRunner(context: ctx, adapter: HostAppAdapter(variant: ctx.variant(as: PushinVariant.self))).run() } catch {
            StandInContext.fail("host-app", "\(error)")
        }
    }
}

/// `ios/ShieldAction/ShieldActionExtension.swift` as iOS instantiates it. The primary button is the
/// workout action, the secondary the emergency unlock (A8). As-written, a workout action runs the
/// seed's own "Signal Flow 1" (`seed002ShieldExtensionSignal`, Sources/Systems/SeedCode/Seed002) on the App
/// Group suite and answers `.none` ("Change `completionHandler(.close)` to `completionHandler(.none)`
/// for workout actions"); everything else goes to the pure `ShieldActionMachine`.
final class PushinShieldActionExtension: ShieldActionDelegate {
    let env: ExtensionEnvironment<PushinVariant>

    init(_ env: ExtensionEnvironment<PushinVariant>) {
        self.env = env
        super.init()
    }

    override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        let machine = ShieldActionMachine(variant: env.variant)
        switch (action, env.variant) {
        case (.primaryButtonPressed, .asWritten):
            // The seed's code, as written: four `set` calls and `synchronize()`.
            seed002ShieldExtensionSignal(store: env.context.defaults)
            completionHandler(.none)
        case (.primaryButtonPressed, .hardened):
            let granted = HostAppAdapter.notificationStatus()
            env.perform(
                machine.workout(
                    id: UUID().uuidString, now: env.now.timeIntervalSince1970, store: env.store(),
                    notificationsGranted: HostApp.granted(granted), badge: 1),
                completionHandler: completionHandler)
        case (.secondaryButtonPressed, _):
            env.perform(machine.emergencyUnlock(store: env.store()), completionHandler: completionHandler)
        }
    }
}

struct ShieldActionExtensionCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(
        commandName: "shield-action-extension", abstract: "The shield-action extension: one button press, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldAction)
        let ctx = context("shield-action-extension")
        let env = ExtensionEnvironment<PushinVariant>(context: ctx, delivery: call.delivery)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .shieldAction(PushinShieldActionExtension(env)))
    }
}
