import Exit
import HarnessKit
import History

/// The user's work that never reached the app (CheckerKit's `LostWork`), listed beside the
/// verdict (`report.json`'s `lostByOS`) so a PASS never hides it: a "Begin Breathing" press none
/// of whose ShieldAction calls completed (iOS dropped or killed them; its calls carry the press's
/// `episode`), and an exercise tap (done / abandoned) the host never took (`user_input`) before
/// the user's next tap of that kind. No rule blames the app for these; `unlock-grants-access`
/// judges only exercises the host finished, so a lost "done" is said here.
extension ExitChecker {
    static func lostWork(_ run: ExitRun) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        for lost in LostWork.unansweredPresses(in: run.events, actions: ["press_shield"], label: "episode") {
            let press = lost.press, episode = press["episode"] ?? "?"
            out.append(InvariantViolation(
                invariant: ExitInvariant.tapServed.rawValue, subject: .init(kind: "press", id: "\(episode)@t=\(Int(press.t))"),
                explanation: "the Begin Breathing press of episode \(episode) at t=\(press.t): no ShieldAction call of it completed"
                    + " (\(lost.calls.count) call(s)\(lost.why.isEmpty ? "" : ": " + lost.why.map(\.event).joined(separator: ", ")))",
                relevantEvents: RelevantEvents.pick([press] + lost.why.prefix(3).map { Optional($0) } + lost.calls.prefix(2).map { Optional($0.delivered) })))
        }
        for kind in [ExitKeys.breathingDoneAction, ExitKeys.breathingAbandonedAction] {
            for tap in LostWork.untakenTaps(in: run.events, role: ExitRoles.host, action: kind, matching: ["episode"]) {
                out.append(InvariantViolation(
                    invariant: kind == ExitKeys.breathingDoneAction ? ExitInvariant.unlockGrantsAccess.rawValue : ExitInvariant.tapServed.rawValue,
                    subject: .init(kind: "tap", id: "\(kind) \(tap["episode"] ?? "?")@t=\(Int(tap.t))"),
                    explanation: "the user's \(kind) tap of episode \(tap["episode"] ?? "?") at t=\(tap.t) never reached the host (no user_input)",
                    relevantEvents: RelevantEvents.pick([tap, run.events.last { $0.isHarnessLine("exit") && $0["target"] == ExitRoles.host && $0.mono < tap.mono }])))
            }
        }
        return out
    }
}
