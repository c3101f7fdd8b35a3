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
        LostWork.violations(
            in: history,
            presses: [
                .init(action: "press_workout", label: "press", invariant: PromptOwedRule.descriptor.name, name: "workout"),
                .init(action: "press_emergency", label: "press", invariant: EmergencyUnlockRule.descriptor.name, name: "emergency"),
            ],
            taps: [
                .init(role: PushinRun.host, action: "onboard", inputAction: PushinKeys.onboardAction, invariant: PromptOwedRule.descriptor.name,
                      consequence: "no shields, no unlocks, no notification prompt")
            ])
    }
}
