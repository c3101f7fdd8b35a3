import HarnessKit
import History

extension FocusPledgeChecker {
    /// The user breaking a pledge (`open_blocked_app` / `press_shield_button`) and what iOS showed:
    /// the shield (`shield_shown`), or the app itself (`app_in_use`: it was not shielded).
    struct UserViolation: Sendable {
        var action: HistoryEvent
        /// `shield_shown` or `app_in_use` for this action; nil if iOS recorded neither.
        var response: HistoryEvent?

        var sessionId: String? { action.sessionIdField }
        var app: String? { action["app"] }
        var t: Double { action.t }
        var shielded: Bool { response?.event == "shield_shown" }
        var unshielded: Bool { response?.event == "app_in_use" }

        static let actions: Set<String> = ["open_blocked_app", "press_shield_button"]

        /// Every violating user action, with the first `shield_shown` / `app_in_use` the harness
        /// recorded for its session after it and before the user's next action.
        static func all(in events: [HistoryEvent]) -> [UserViolation] {
            var out: [UserViolation] = []
            var open: Int?
            for event in events where event.isHarnessLine("user_action") || event.isHarnessLine("shield_shown")
                || event.isHarnessLine("app_in_use")
            {
                if event.isHarnessLine("user_action") {
                    if let a = event["action"], actions.contains(a) {
                        out.append(UserViolation(action: event))
                        open = out.count - 1
                    } else {
                        open = nil
                    }
                    continue
                }
                guard let i = open, out[i].response == nil, event.sessionIdField == out[i].sessionId else { continue }
                out[i].response = event
            }
            return out
        }
    }
}
