import Exit
import HarnessKit
import History

/// The user's work that never reached the app, listed beside the verdict (`report.json`'s
/// `lostByOS`) so a PASS never hides it (DESIGN.md "No pass by lost work"): a "Begin Breathing"
/// press none of whose ShieldAction calls completed (iOS dropped or killed them; a press with no
/// shield on screen is no press), and an exercise tap (done / abandoned) the host never took
/// (`user_input`) before the user's next tap of that kind. No rule blames the app for these;
/// `unlock-grants-access` judges only exercises the host finished, so a lost "done" is said here.
enum LostWork {
    static func list(_ run: ExitRun) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        let users = run.events.filter { $0.isHarnessLine("user_action") }
        let calls = CallbackDelivery.deliveries(in: run.events).filter { $0.callback == "shieldAction" }
        for press in users where press["action"] == "press_shield" {
            // iOS carries the press's label (`episode`) on its calls: a duplicate answered is an answer.
            let mine = calls.filter { $0.delivered["episode"] == press["episode"] && $0.delivered.mono > press.mono }
            guard !mine.contains(where: \.isCompleted) else { continue }
            // No shield on screen, no press: whether it should have been there is the rules' to judge.
            if mine.isEmpty, run.events.contains(where: { $0.isHarnessLine("shield_button_unavailable") && $0["episode"] == press["episode"] && $0.mono > press.mono }) { continue }
            let why = run.events.filter {
                $0.process == HistoryEvent.harnessProcessName && $0["episode"] == press["episode"] && $0.mono > press.mono
                    && ["callback_dropped", "callback_failed", "callback_not_delivered", "shield_action_lost"].contains($0.event)
                    && ($0["callback"] ?? "shieldAction") == "shieldAction"
            }
            out.append(InvariantViolation(
                invariant: ExitInvariant.tapServed.rawValue, subject: .init(kind: "press", id: "\(press["episode"] ?? "?")@t=\(Int(press.t))"),
                explanation: "the Begin Breathing press of episode \(press["episode"] ?? "?") at t=\(press.t): no ShieldAction call of it completed"
                    + " (\(mine.count) call(s)\(why.isEmpty ? "" : ": " + why.map(\.event).joined(separator: ", ")))",
                relevantEvents: RelevantEvents.pick([press] + why.prefix(3).map { Optional($0) } + mine.prefix(2).map { Optional($0.delivered) })))
        }
        for kind in [ExitKeys.breathingDoneAction, ExitKeys.breathingAbandonedAction] {
            let taps = users.filter { $0["action"] == kind }
            for (i, tap) in taps.enumerated() {
                let until = taps.dropFirst(i + 1).first?.mono ?? .max
                let taken = run.events.contains {
                    $0.isLine(of: ExitRoles.host, "user_input") && $0["action"] == kind && $0["episode"] == tap["episode"] && $0.mono > tap.mono && $0.mono < until
                }
                guard !taken else { continue }
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
