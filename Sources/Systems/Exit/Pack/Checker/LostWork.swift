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
        LostWork.violations(
            in: run.events,
            presses: [.init(action: "press_shield", label: "episode", invariant: ExitInvariant.tapServed.rawValue, name: "Begin Breathing")],
            taps: [
                .init(role: ExitRoles.host, action: ExitKeys.breathingDoneAction, matching: ["episode"], invariant: ExitInvariant.unlockGrantsAccess.rawValue),
                .init(role: ExitRoles.host, action: ExitKeys.breathingAbandonedAction, matching: ["episode"], invariant: ExitInvariant.tapServed.rawValue),
            ])
    }
}
