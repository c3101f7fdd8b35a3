import History

/// The user's work that never reached the app, found in the history alone, for a pack to list
/// beside its verdict (`report.json`'s `lostByOS`) so a PASS never hides it (no pass
/// by lost work): shield presses iOS never got an answer to, and taps the app never took in.
public enum LostWork {
    /// A shield press none of whose shield-action calls completed.
    public struct Press: Sendable {
        public let press: HistoryEvent
        /// Its calls (none completed).
        public let calls: [CallbackDelivery]
        /// The harness's lines saying why (dropped, failed, not delivered, the answer lost).
        public let why: [HistoryEvent]
    }

    /// Presses (`user_action` whose `action` is in `actions`) none of whose shield-action calls
    /// completed. A press's calls are those carrying its `label` field (iOS carries a press's label
    /// on its calls: a duplicate answered is an answer) or, with `label` nil, the calls before the
    /// user's next action. A press with no call and no shield on screen
    /// (`shield_button_unavailable`) is no press: whether the shield should have been there is the
    /// rules' to judge.
    public static func unansweredPresses(in events: [HistoryEvent], actions: Set<String>, label: String?) -> [Press] {
        let users = events.filter { $0.isHarnessLine("user_action") }
        let calls = CallbackDelivery.deliveries(in: events).filter { $0.callback == "shieldAction" }
        var out: [Press] = []
        for (i, press) in users.enumerated() where actions.contains(press["action"] ?? "") {
            let next = label == nil ? users.dropFirst(i + 1).first?.mono ?? .max : .max
            func mine(_ e: HistoryEvent) -> Bool { e.mono > press.mono && e.mono < next && (label.map { e[$0] == press[$0] } ?? true) }
            let answered = calls.filter { mine($0.delivered) }
            guard !answered.contains(where: \.isCompleted) else { continue }
            if answered.isEmpty, events.contains(where: { $0.isHarnessLine("shield_button_unavailable") && mine($0) }) { continue }
            let why = events.filter {
                $0.process == HistoryEvent.harnessProcessName && mine($0) && ($0["callback"] ?? "shieldAction") == "shieldAction"
                    && ["callback_dropped", "callback_failed", "callback_not_delivered", "shield_action_lost"].contains($0.event)
            }
            out.append(Press(press: press, calls: answered, why: why))
        }
        return out
    }

    /// Taps (`user_action` whose `action` is `action`) that `role` never took in — no `user_input`
    /// of `inputAction` (default: the same name) whose `matching` fields equal the tap's — before
    /// the user's next tap of that kind.
    public static func untakenTaps(
        in events: [HistoryEvent], role: String, action: String, inputAction: String? = nil, matching: [String] = []
    ) -> [HistoryEvent] {
        let taps = events.filter { $0.isUserAction(action) }
        return taps.enumerated().compactMap { i, tap in
            let until = taps.dropFirst(i + 1).first?.mono ?? .max
            let taken = events.contains { input in
                input.isLine(of: role, "user_input") && input["action"] == (inputAction ?? action) && input.mono > tap.mono && input.mono < until
                    && matching.allSatisfy { key in input[key] == tap[key] }
            }
            return taken ? nil : tap
        }
    }
}
