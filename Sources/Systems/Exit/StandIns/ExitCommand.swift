import AppGroup
import ArgumentParser
import Exit
import Foundation
import StandInKit
import SystemKit

/// `sth-exit <role>`: seed 004's host app and its three extensions, one role per process, started
/// by the harness as iOS would (EMULATED-IOS.md §7). Thin shells: inputs become machine events (the
/// host, hardened extensions) or calls into the seed's own classes (as-written extensions).
public struct ExitCommand: PlainLaunchable {
    public static let configuration = CommandConfiguration(
        commandName: "sth-exit", abstract: "Exit (seed 004) stand-ins: the host app and its extensions.",
        subcommands: [HostCommand.self, MonitorCommand.self, ShieldActionCommand.self, ShieldConfigurationCommand.self])

    public init() {}

    /// The command for `args` when they are in a plain form (`PlainLaunchable.launch` runs it), else nil.
    public static func plainCommand(_ args: [String]) -> ParsableCommand? {
        guard let role = args.first else { return nil }
        let rest = Array(args.dropFirst())
        switch role {
        case HostCommand.configuration.commandName: return rest.isEmpty ? HostCommand() : nil
        case MonitorCommand.configuration.commandName: return MonitorCommand.plainCommand(rest)
        case ShieldActionCommand.configuration.commandName: return ShieldActionCommand.plainCommand(rest)
        case ShieldConfigurationCommand.configuration.commandName: return ShieldConfigurationCommand.plainCommand(rest)
        default: return nil
        }
    }
}

func context(_ role: String) -> StandInContext {
    do { return try StandInContext(process: role, appGroup: ExitKeys.appGroup) } catch {
        StandInContext.fail(role, "\(error)")
    }
}

/// The host as a process: `AppRunner` runs the loop; this only turns inputs into `ExitHost` events.
public final class ExitHostAdapter: AppAdapter {
    var machine: ExitHost
    let context: StandInContext

    init(variant: ExitVariant, context: StandInContext) {
        machine = ExitHost(variant: variant)
        self.context = context
    }

    public var observedNotifications: [String] { [] }

    public func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        let t = now.timeIntervalSince1970
        // `Calendar.current`'s day: the device's zone now (a move shows at once).
        let day = LocalDay.of(t, in: context.clock.timeZone)
        switch input {
        case .launched:
            return machine.handle(.launched(now: t, day: day, store: store(), privateStore: context.privateSnapshot()))
        case .becameActive:
            return machine.handle(.becameActive(now: t, day: day, store: store()))
        case .enteredBackground:
            return machine.handle(.enteredBackground)
        case .timer(ExitHost.pollTimer):
            return machine.handle(.pollTick(now: t, day: day, store: store()))
        case .significantTimeChange:
            return machine.handle(.significantTimeChange(now: t, day: day, store: store()))
        case .user(let m):
            switch m.action {
            case ExitKeys.selectAppsAction: return machine.handle(.selectApps(m.list))
            case ExitKeys.breathingDoneAction: return machine.handle(.breathingDone(now: t, day: day, store: store()))
            case ExitKeys.breathingAbandonedAction: return machine.handle(.breathingAbandoned(now: t, day: day, store: store()))
            default: return [.trace("inbox_malformed", ["seq": String(m.seq), "why": "unknown action \(m.action)"])]
            }
        default:
            // Nothing else reaches the seed's app (deep links, notifications, HTTP).
            return []
        }
    }
}

struct HostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "host", abstract: "The host app; runs until SIGTERM.")

    func run() throws {
        let ctx = context(ExitRoles.host)
        do { try AppRunner(context: ctx, adapter: ExitHostAdapter(variant: ctx.variant(as: ExitVariant.self), context: ctx)).run() } catch {
            StandInContext.fail(ExitRoles.host, "\(error)")
        }
    }
}
