import AppGroup
import ArgumentParser
import Foundation
import ManagedSettings
import Rally
import StandInKit
import SystemKit

/// `sth-rally player | returner`: the example's two processes, started by the harness as iOS
/// would. Each is a thin shell: inputs become machine events, effects go to the one interpreter.
public struct RallyCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sth-rally", abstract: "Rally (the example pack): the player app and the returner extension.",
        subcommands: [PlayerCommand.self, ReturnerCommand.self])

    public init() {}
}

func context(_ role: String) -> StandInContext {
    do { return try StandInContext(process: role, appGroup: RallyKeys.appGroup) } catch {
        StandInContext.fail(role, "\(error)")
    }
}

/// The player as a process: `AppRunner` runs the loop; this only translates inputs into events.
final class PlayerAdapter: AppAdapter {
    var machine: Player

    init(variant: RallyVariant) { machine = Player(variant: variant) }

    var observedNotifications: [String] { [RallyKeys.returnedNotification] }

    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        switch input {
        case .launched:
            return machine.handle(.launched(store: store()))
        case .user(let m) where m.action == RallyKeys.serveAction:
            guard let ball = m["ball"].flatMap(Int.init) else { return [.trace("inbox_malformed", ["seq": String(m.seq)])] }
            return machine.handle(.serve(ball: ball))
        case .notification(RallyKeys.returnedNotification):
            return machine.handle(.returnNotified(store: store()))
        default:
            // The spec reacts to nothing else (lifecycle, deep links, timers, …).
            return []
        }
    }
}

struct PlayerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "player", abstract: "The player app; runs until SIGTERM.")

    func run() throws {
        let ctx = context("player")
        do { try AppRunner(context: ctx, adapter: PlayerAdapter(variant: ctx.variant(as: RallyVariant.self))).run() } catch {
            StandInContext.fail("player", "\(error)")
        }
    }
}

/// The returner's principal class, as iOS instantiates it: a `ShieldActionDelegate` subclass that
/// hands the call to the pure `Returner` and its effects to the interpreter.
final class ReturnerExtension: ShieldActionDelegate {
    let env: ExtensionEnvironment<RallyVariant>

    init(_ env: ExtensionEnvironment<RallyVariant>) {
        self.env = env
        super.init()
    }

    override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        env.perform(Returner().handle(action: action, store: env.store()), completionHandler: completionHandler)
    }
}

struct ReturnerCommand: FrameworkCallCommand {
    static let configuration = CommandConfiguration(commandName: "returner", abstract: "The shield-action extension: one button press, then exit.")
    @OptionGroup var call: FrameworkCallOptions

    func run() throws {
        let c = try call.call(for: .shieldAction)
        let ctx = context("returner")
        let env = ExtensionEnvironment<RallyVariant>(context: ctx, delivery: call.delivery)
        try FrameworkExtension.run(c, delivery: call.delivery, context: ctx, principal: .shieldAction(ReturnerExtension(env)))
    }
}
