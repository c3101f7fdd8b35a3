import AppGroup
import FocusPledge
import Foundation
import History

#if canImport(Glibc)
import Glibc
#endif

/// One extension callback, as iOS runs it: a fresh process, one callback, then exit.
/// `--callback intervalDidStart|intervalDidEnd|eventDidReachThreshold --activity A [--event E]`
/// (monitor) or `--action primary|secondary --app BUNDLE` (shield action), plus `--delivery N`,
/// the harness's id for this delivery (traced, so the history ties effects to deliveries).
public enum ExtensionRunner {
    public static func options(_ args: [String], process: String) -> [String: String] {
        var out: [String: String] = [:]
        var i = 0
        while i < args.count {
            let k = args[i]
            guard k.hasPrefix("--"), i + 1 < args.count else { StandInContext.fail(process, "bad argument \(k)") }
            out[String(k.dropFirst(2))] = args[i + 1]
            i += 2
        }
        return out
    }

    static func perform(_ effects: [Effect], ctx: StandInContext) {
        for e in effects {
            switch e {
            case .setDefaults(let writes, let atomic): ctx.apply(writes, atomic: atomic)
            case .postNotification(let name):
                do { try ctx.center.post(name) } catch { ctx.trace.log("notify_error", ["name": name, "error": "\(error)"]) }
            case .trace(let name, let fields): ctx.trace.log(name, fields)
            case .respond(let r): ctx.trace.log("responded", ["response": r.rawValue])
            default: ctx.trace.log("unexpected_effect", ["effect": "\(e)"])
            }
        }
    }

    public static func monitor(arguments: [String]) -> Never {
        let o = options(arguments, process: "monitor-extension")
        let ctx: StandInContext
        do { ctx = try StandInContext(process: "monitor-extension") } catch { StandInContext.fail("monitor-extension", "\(error)") }
        guard let callback = o["callback"], let activity = o["activity"] else { StandInContext.fail("monitor-extension", "--callback and --activity are required") }
        let delivery = o["delivery"] ?? ""
        ctx.trace.log("callback_begin", ["callback": callback, "activity": activity, "delivery": delivery])
        var m = MonitorExtension(variant: ctx.variant)
        let event: MonitorExtension.Event
        switch callback {
        case "intervalDidStart": event = .intervalDidStart(activity: activity)
        case "intervalDidEnd": event = .intervalDidEnd(activity: activity, now: ctx.clock.now(), store: ctx.snapshot())
        case "eventDidReachThreshold":
            event = .eventDidReachThreshold(event: o["event"] ?? "blocked_app_opened", activity: activity, now: ctx.clock.now(), store: ctx.snapshot())
        default: StandInContext.fail("monitor-extension", "unknown callback \(callback)")
        }
        perform(m.handle(event), ctx: ctx)
        ctx.trace.log("callback_end", ["callback": callback, "delivery": delivery])
        exit(0)
    }

    public static func shieldAction(arguments: [String]) -> Never {
        let o = options(arguments, process: "shield-action-extension")
        let ctx: StandInContext
        do { ctx = try StandInContext(process: "shield-action-extension") } catch { StandInContext.fail("shield-action-extension", "\(error)") }
        guard let app = o["app"] else { StandInContext.fail("shield-action-extension", "--app is required") }
        let action: ShieldActionExtension.Action = o["action"] == "secondary" ? .secondaryButtonPressed : .primaryButtonPressed
        let delivery = o["delivery"] ?? ""
        ctx.trace.log("callback_begin", ["callback": "shieldAction", "app": app, "delivery": delivery])
        var m = ShieldActionExtension(variant: ctx.variant)
        perform(m.handle(.handle(action: action, application: app, now: ctx.clock.now(), store: ctx.snapshot())), ctx: ctx)
        ctx.trace.log("callback_end", ["callback": "shieldAction", "delivery": delivery])
        exit(0)
    }
}
