import AppGroup
import ArgumentParser
import Enforcement
import EnforcementStore
import Foundation
import StandInKit
import SystemKit

/// `sth-enforcement <role>`: seed 001's host app and its three extensions, one role per process,
/// started by the harness as iOS would (EMULATED-IOS.md §7). Thin shells: inputs become machine events.
public struct EnforcementCommand: PlainLaunchable {
    public static let configuration = CommandConfiguration(
        commandName: "sth-enforcement", abstract: "Seed 001 (the v1.1 iOS enforcement spec) stand-ins: the host app and its extensions.",
        subcommands: [HostCommand.self, MonitorCommand.self, ShieldActionCommand.self, ShieldConfigurationCommand.self])

    public init() {}

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
    do { return try StandInContext(process: role, appGroup: EnforcementKeys.appGroup) } catch {
        StandInContext.fail(role, "\(error)")
    }
}

/// The host as a process: `AppRunner` runs the loop; this turns inputs into `EnforcementHost`
/// events and, when the machine asks for it, writes the App Group's selection into the SQLite
/// mirror (the one piece of I/O the effect vocabulary does not carry).
public final class EnforcementHostAdapter: AppAdapter {
    var machine: EnforcementHost
    let context: StandInContext
    /// Opened on first use: a process that never mirrors never creates the database.
    var mirror: SelectionMirror?

    init(variant: EnforcementVariant, context: StandInContext) {
        machine = EnforcementHost(variant: variant)
        self.context = context
    }

    public var observedNotifications: [String] { [] }

    /// `<device root>/sandboxes/host/Library/Application Support/enforcement.sqlite`.
    public static func databasePath(deviceRoot: String) -> String {
        deviceRoot + "/sandboxes/\(EnforcementRoles.host)/\(EnforcementKeys.databaseDirectory)/\(EnforcementKeys.databaseFile)"
    }

    public func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        let t = now.timeIntervalSince1970
        let tz = context.clock.timeZone
        let effects: [Effect]
        switch input {
        case .launched:
            effects = machine.handle(.launched(now: t, timeZone: tz, store: store()))
        case .becameActive:
            effects = machine.handle(.becameActive(now: t, timeZone: tz, store: store()))
        case .timer(EnforcementHost.mirrorTimer):
            effects = machine.handle(.mirrorDue)
        case .user(let m):
            switch m.action {
            case EnforcementKeys.selectAppsAction:
                effects = machine.handle(.selectApps(m.list))
            case EnforcementKeys.enableModeAction:
                guard let id = m["mode"], let precedence = m["precedence"].flatMap(Int.init), let startsIn = m["startsInMinutes"].flatMap(Int.init),
                    let length = m["lengthMinutes"].flatMap(Int.init), (0...1439).contains(startsIn), (1...1440).contains(length)
                else {
                    return [.trace("inbox_malformed", [
                        "seq": String(m.seq), "why": "enable_mode needs mode, precedence, startsInMinutes 0...1439, lengthMinutes 1...1440",
                    ])]
                }
                let mode = Mode.starting(
                    id: id, name: m["name"] ?? id, apps: m.list, inMinutes: startsIn, lengthMinutes: length, precedence: precedence, now: t, timeZone: tz)
                effects = machine.handle(.enableMode(mode, now: t, timeZone: tz, store: store()))
            case EnforcementKeys.createGrantAction:
                guard let app = m["app"], let minutes = m["minutes"].flatMap(Int.init), minutes > 0 else {
                    return [.trace("inbox_malformed", ["seq": String(m.seq), "why": "create_grant needs app and minutes > 0"])]
                }
                effects = machine.handle(.createGrant(app: app, minutes: minutes, now: t, timeZone: tz, store: store()))
            case EnforcementKeys.setOverrideAction:
                guard let mode = m["mode"], let state = m["state"], state == "on" || state == "off", let minutes = m["minutes"].flatMap(Int.init), minutes > 0
                else {
                    return [.trace("inbox_malformed", ["seq": String(m.seq), "why": "set_override needs mode, state on|off and minutes > 0"])]
                }
                effects = machine.handle(.setOverride(mode: mode, on: state == "on", minutes: minutes, now: t, timeZone: tz, store: store()))
            default:
                return [.trace("inbox_malformed", ["seq": String(m.seq), "why": "unknown action \(m.action)"])]
            }
        default:
            // The spec reacts to nothing else (background, deep links, notifications).
            return []
        }
        guard machine.mirrorRequested else { return effects }
        return mirrorSelection(store()) + effects
    }

    /// Replaces the mirror's rows with the App Group's selection; a crash point before the write
    /// (`step:sqlite.selected_app`, a kind the failpoints know), the outcome traced.
    func mirrorSelection(_ store: [String: PropertyListValue]) -> [Effect] {
        let ids = Rules(store: store).selection
        do {
            try CrashPoints.pass("step:sqlite.selected_app")
            if mirror == nil { mirror = try SelectionMirror(path: Self.databasePath(deviceRoot: context.root.path)) }
            try mirror!.replace(with: ids)
            return [.trace("selection_mirrored", ["apps": ids.joined(separator: ",")])] + machine.handle(.mirrored)
        } catch {
            return [.trace("database_error", ["error": "\(error)"])] + machine.handle(.mirrorFailed)
        }
    }
}

struct HostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: EnforcementRoles.host, abstract: "The host app; runs until SIGTERM.")

    func run() throws {
        let ctx = context(EnforcementRoles.host)
        do {
            try AppRunner(context: ctx, adapter: EnforcementHostAdapter(variant: ctx.variant(as: EnforcementVariant.self), context: ctx)).run()
        } catch {
            StandInContext.fail(EnforcementRoles.host, "\(error)")
        }
    }
}
