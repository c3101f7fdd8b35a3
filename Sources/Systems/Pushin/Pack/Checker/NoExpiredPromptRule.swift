import HarnessKit
import History

/// "Expiration: 5 minutes from creation" and `notification_expires_at`: no prompt for a signal
/// after it expired (the user pressed the shield minutes ago and is long gone).
enum NoExpiredPromptRule {
    static let descriptor = InvariantDescriptor(
        name: "no-prompt-after-expiry",
        promise: "No prompt is shown for a workout signal after its notification_expires_at.",
        source: "seed 002, App Group keys: 'notification_expires_at // 5-minute expiration'; Expiration & Cleanup: 'Expiration: 5 minutes from creation'")

    static func judge(_ run: PushinRun) -> RuleOutcome {
        var outcome = RuleOutcome(descriptor.name, subjectKind: "signal")
        for p in run.prompts {
            guard let s = run.signal(p.id) else { continue }
            outcome.checkedCount += 1
            if p.t > s.expiresAt + 0.001 {
                outcome.fail(
                    p.id, "a \(p.kind.rawValue) prompt for \(p.id) at t=\(p.t), \(Int(p.t - s.expiresAt)) s after the signal expired (t=\(s.expiresAt))",
                    [s.line, run.index.hostStates.last { $0.mono <= p.mono }, p.line])
            }
        }
        return outcome
    }
}
