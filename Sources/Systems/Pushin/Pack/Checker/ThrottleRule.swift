import HarnessKit
import History
import Pushin

/// "Throttle: max 1 notification per minute" (`if now - lastTime < 60 { return false }`): two
/// workout notifications iOS showed are at least 60 device seconds apart.
enum ThrottleRule {
    static let descriptor = InvariantDescriptor(
        name: "one-notification-per-minute",
        promise: "Workout notifications are shown at most once per 60 seconds.",
        source: "seed 002, Deduplication Logic: '// Throttle: max 1 notification per minute'")

    static func judge(_ run: PushinRun) -> RuleOutcome {
        var outcome = RuleOutcome(descriptor.name, subjectKind: "notification")
        let shown = run.prompts.filter { $0.kind == .notification }
        outcome.checkedCount = shown.count
        for (a, b) in zip(shown, shown.dropFirst()) where b.t - a.t < PushinKeys.throttleSeconds - 0.001 {
            outcome.fail(b.id, "notification \(b.id) was shown \(b.t - a.t) s after \(a.id) (the throttle is 60 s)", [a.line, b.line])
        }
        return outcome
    }
}
