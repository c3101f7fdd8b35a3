import HarnessKit
import History

/// "Change `completionHandler(.close)` to `completionHandler(.none)` for workout actions; Maintain
/// `completionHandler(.close)` for emergency unlocks": every answered workout press wrote a signal
/// and answered `.none` (a variant cannot pass the prompt rules by never signalling); every
/// emergency press answered `.close` and wrote no signal. A call iOS lost (no answer) is not judged.
enum ShieldAnswerRule {
    static let descriptor = InvariantDescriptor(
        name: "shield-press-answered",
        promise: "A workout press writes a signal and answers .none; an emergency press writes none and answers .close.",
        source: "seed 002, Shield Action Extension (Modified): 'completionHandler(.none) for workout actions', 'completionHandler(.close) for emergency unlocks'")

    static func judge(_ run: PushinRun) -> RuleOutcome {
        var outcome = RuleOutcome(descriptor.name, subjectKind: "press")
        for c in run.calls {
            guard let r = c.responded else { continue }
            outcome.checkedCount += 1
            let response = r["response"] ?? "?"
            let subject = c.begin["delivery"] ?? String(c.pid)
            switch c.action {
            case "primaryButtonPressed":
                if c.signalIds.count != 1 || response != "none" {
                    outcome.fail(subject, "a workout press wrote \(c.signalIds.count) signal(s) and answered .\(response)", [c.begin, r])
                }
            case "secondaryButtonPressed":
                if !c.signalIds.isEmpty || response != "close" {
                    outcome.fail(subject, "an emergency press wrote \(c.signalIds.count) workout signal(s) and answered .\(response)", [c.begin, r])
                }
            default:
                outcome.fail(subject, "a shield press with unknown action \(c.action)", [c.begin])
            }
        }
        return outcome
    }
}
