import HarnessKit
import History
import Pushin

/// The user's work that never reached the app (CheckerKit's `LostWork`), listed beside the
/// verdict (`report.json`'s `lostByOS`) so a PASS never hides it: a shield press none of whose
/// shield-action calls completed (iOS dropped or killed them; its calls carry the press's `press`)
/// — `shield-press-answered` and `workout-press-prompted` judge only calls that answered and
/// signals that landed —, and an onboarding tap the host never took (`user_input`), without which
/// notifications are never asked for and `workout-press-prompted` excuses signals.
extension PushinChecker {
    static func lostWork(_ history: [HistoryEvent]) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        for lost in LostWork.unansweredPresses(in: history, actions: ["press_workout", "press_emergency"], label: "press") {
            let press = lost.press, workout = press["action"] == "press_workout", id = press["press"] ?? "?"
            let why: String = lost.why.isEmpty ? "" : ": " + lost.why.map(\.event).joined(separator: ", ")
            let kind: String = workout ? "workout" : "emergency"
            let cited: [HistoryEvent?] = [press] + lost.why.prefix(3).map { Optional($0) } + lost.calls.prefix(2).map { Optional($0.delivered) }
            out.append(InvariantViolation(
                invariant: workout ? PromptOwedRule.descriptor.name : EmergencyUnlockRule.descriptor.name,
                subject: .init(kind: "press", id: "\(id)@t=\(Int(press.t))"),
                explanation: "the \(kind) press \(id) at t=\(press.t): no shield-action call of it completed (\(lost.calls.count) call(s)\(why))",
                relevantEvents: RelevantEvents.pick(cited)))
        }
        for tap in LostWork.untakenTaps(in: history, role: PushinRun.host, action: "onboard", inputAction: PushinKeys.onboardAction) {
            out.append(InvariantViolation(
                invariant: PromptOwedRule.descriptor.name, subject: .init(kind: "tap", id: "onboard@t=\(Int(tap.t))"),
                explanation: "the user's onboarding tap at t=\(tap.t) never reached the host (no user_input): no shields, no unlocks, no notification prompt",
                relevantEvents: RelevantEvents.pick([tap])))
        }
        return out
    }
}
