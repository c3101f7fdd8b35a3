/// How the page colours an event, from its name alone: generic families of the core's vocabulary
/// (docs/PROTOCOL.md), never a system's own words — every other event is a plain marker whose
/// fields are in its tooltip.
public enum EventFamily: String, CaseIterable, Sendable {
    case lifecycle, signal, fault, callbackDelivered, callbackLost, callbackDuplicated, callbackHeld, callbackOther
    case shield, notification, user, heartbeat, log, logError, other

    public static func of(_ event: String, fields: [String: String] = [:]) -> EventFamily {
        switch event {
        case "spawn", "exit", "launched", "started", "terminated", "stopped", "reboot", "run_started", "run_finished", "quiesce":
            return .lifecycle
        case "signal": return .signal
        case "callback_delivered", "callback_begin", "callback_started", "callback_completed", "callback_end": return .callbackDelivered
        case "callback_dropped", "callback_failed", "shield_action_lost": return .callbackLost
        case "callback_duplicated": return .callbackDuplicated
        case "callback_held", "callback_released": return .callbackHeld
        case "heartbeat": return .heartbeat
        // The app's own log (Logger, os_log): errors and faults stand out from its chatter.
        case "os_log": return fields["level"] == "error" || fields["level"] == "fault" ? .logError : .log
        case "user_action", "user_input", "user_input_done", "user_retry", "user_tap_lost", "app_in_use", "app_left": return .user
        default: break
        }
        if event.hasPrefix("callback_") { return .callbackOther }
        if event.hasPrefix("fault_") || event.hasSuffix("_fault_armed") || event.hasSuffix("_fault") { return .fault }
        if event.hasPrefix("shield") { return .shield }
        if event.hasPrefix("notification_") { return .notification }
        return .other
    }

    /// Which of a lane's three marker rows it sits in: process lifetimes on top, the OS's calls in
    /// the middle, everything the processes and the user did below.
    public var row: Int {
        switch self {
        case .lifecycle, .signal, .fault: return 0
        case .callbackDelivered, .callbackLost, .callbackDuplicated, .callbackHeld, .callbackOther: return 1
        case .shield, .notification, .user, .heartbeat, .log, .logError, .other: return 2
        }
    }

    public var colour: String {
        switch self {
        case .lifecycle: return "#37474f"
        case .signal: return "#e65100"
        case .fault: return "#ff9800"
        case .callbackDelivered: return "#1e88e5"
        case .callbackLost: return "#c62828"
        case .callbackDuplicated: return "#8e24aa"
        case .callbackHeld: return "#00897b"
        case .callbackOther: return "#64b5f6"
        case .shield: return "#d81b60"
        case .notification: return "#00acc1"
        case .user: return "#43a047"
        case .heartbeat: return "#b0bec5"
        case .log: return "#7e57c2"
        case .logError: return "#b71c1c"
        case .other: return "#9e9e9e"
        }
    }

    public var label: String {
        switch self {
        case .lifecycle: return "spawn / exit / launch"
        case .signal: return "signal (kill, term, stop, cont)"
        case .fault: return "fault armed / skipped"
        case .callbackDelivered: return "callback delivered / run"
        case .callbackLost: return "callback dropped / failed"
        case .callbackDuplicated: return "callback duplicated"
        case .callbackHeld: return "callback held / released (late, batched)"
        case .callbackOther: return "other callback_*"
        case .shield: return "shields"
        case .notification: return "notification_*"
        case .user: return "user"
        case .heartbeat: return "heartbeat"
        case .log: return "app log (Logger, os_log)"
        case .logError: return "app log: error / fault"
        case .other: return "other (fields in tooltip)"
        }
    }
}
