import HarnessKit
import History
import Pushin
import SystemKit

/// "A tap on the notification or on START_WORKOUT ends on the workout screen, cold or warm"
/// (Deep Linking Architecture: `pushin://workout`, "AppDelegate URL handling for cold starts",
/// "SceneDelegate URL handling for warm starts", the Flutter bridge's `navigateToWorkout`); LATER
/// ("destructive", no `.foreground`) does not. Judged when the host ran after the tap.
enum TapOpensWorkoutRule {
    static let descriptor = InvariantDescriptor(
        name: "tap-opens-workout",
        promise: "A tap on the workout notification or START_WORKOUT shows the workout screen; LATER does not.",
        source: "seed 002, Deep Link Processing: 'pushin://workout' → navigateToWorkoutSelection(); Notification Category: START_WORKOUT .foreground, LATER .destructive")

    static func judge(_ run: PushinRun) -> RuleOutcome {
        var outcome = RuleOutcome(descriptor.name, subjectKind: "tap")
        for tap in run.taps {
            guard let id = tap["identifier"], let action = tap["action"] else { continue }
            let opens = action == NotificationResponse.defaultAction || action == PushinKeys.startWorkoutAction
            let screen = run.workoutScreens.first { $0.mono > tap.mono && $0["id"] == id }
            if opens {
                if screen != nil {
                    outcome.checkedCount += 1
                    continue
                }
                guard run.hostLines.contains(where: { $0.mono > tap.mono }) else { continue }
                outcome.checkedCount += 1
                outcome.fail(id, "a tap (\(action)) on notification \(id) never showed the workout screen, though Pushin ran after it", [tap])
            } else if action == PushinKeys.laterAction {
                outcome.checkedCount += 1
                if let screen { outcome.fail(id, "LATER on notification \(id) showed the workout screen", [tap, screen]) }
            }
        }
        return outcome
    }
}
