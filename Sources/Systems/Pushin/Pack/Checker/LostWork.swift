import HarnessKit
import History
import Pushin

/// The user's work that never reached the app, listed beside the verdict (`report.json`'s
/// `lostByOS`) so a PASS never hides it (DESIGN.md "No pass by lost work"): a shield press none
/// of whose shield-action calls completed (iOS dropped or killed them; a press with no
/// shield on screen is no press) — `shield-press-answered` and `workout-press-prompted` judge only calls that answered
/// and signals that landed —, and an onboarding tap the host never took (`user_input`), without
/// which notifications are never asked for and `workout-press-prompted` excuses signals.
enum LostWork {
    static func list(_ history: [HistoryEvent], _ run: PushinRun) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        let users = history.filter { $0.isHarnessLine("user_action") }
        let calls = CallbackDelivery.deliveries(in: history).filter { $0.callback == "shieldAction" }
        for press in users where press["action"] == "press_workout" || press["action"] == "press_emergency" {
            // iOS carries the press's label (`press`) on its calls: a duplicate answered is an answer.
            let mine = calls.filter { $0.delivered["press"] == press["press"] && $0.delivered.mono > press.mono }
            guard !mine.contains(where: \.isCompleted) else { continue }
            // No shield on screen, no press: whether it should have been there is the rules' to judge.
            if mine.isEmpty, history.contains(where: { $0.isHarnessLine("shield_button_unavailable") && $0["press"] == press["press"] && $0.mono > press.mono }) { continue }
            let why = history.filter {
                $0.process == HistoryEvent.harnessProcessName && $0["press"] == press["press"] && $0.mono > press.mono
                    && ["callback_dropped", "callback_failed", "callback_not_delivered", "shield_action_lost"].contains($0.event)
                    && ($0["callback"] ?? "shieldAction") == "shieldAction"
            }
            let workout = press["action"] == "press_workout"
            out.append(InvariantViolation(
                invariant: workout ? PromptOwedRule.descriptor.name : EmergencyUnlockRule.descriptor.name,
                subject: .init(kind: "press", id: "\(press["press"] ?? "?")@t=\(Int(press.t))"),
                explanation: "the \(workout ? "workout" : "emergency") press \(press["press"] ?? "?") at t=\(press.t): no shield-action call of it completed"
                    + " (\(mine.count) call(s)\(why.isEmpty ? "" : ": " + why.map(\.event).joined(separator: ", ")))",
                relevantEvents: RelevantEvents.pick([press] + why.prefix(3).map { Optional($0) } + mine.prefix(2).map { Optional($0.delivered) })))
        }
        let onboards = users.filter { $0["action"] == "onboard" }
        for (i, tap) in onboards.enumerated() {
            let until = onboards.dropFirst(i + 1).first?.mono ?? .max
            guard !history.contains(where: { $0.isLine(of: PushinRun.host, "user_input") && $0["action"] == PushinKeys.onboardAction && $0.mono > tap.mono && $0.mono < until })
            else { continue }
            out.append(InvariantViolation(
                invariant: PromptOwedRule.descriptor.name, subject: .init(kind: "tap", id: "onboard@t=\(Int(tap.t))"),
                explanation: "the user's onboarding tap at t=\(tap.t) never reached the host (no user_input): no shields, no unlocks, no notification prompt",
                relevantEvents: RelevantEvents.pick([tap])))
        }
        return out
    }
}
