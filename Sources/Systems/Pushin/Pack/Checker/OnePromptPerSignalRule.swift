import HarnessKit
import History

/// "Never two for one `pending_notification_id`" (seed: "Enhanced App Group signaling with
/// deduplication tokens"; `if newId == lastId { return false }`): at most one prompt per signal,
/// counting notifications shown (a second delivery of one identifier is a second banner) and
/// in-app prompts alike. And no prompt without a workout signal: an emergency unlock, or nothing,
/// must not prompt ("Maintain completionHandler(.close) for emergency unlocks").
///
/// An in-app prompt is the app's screen: a host killed at the instant it showed one (before it
/// could record that it did) took the prompt with it, and showing it again once relaunched is the
/// prompt the user sees — not a second one. A notification stays in Notification Center whatever
/// becomes of the app, so every delivery counts.
enum OnePromptPerSignalRule {
    static let descriptor = InvariantDescriptor(
        name: "one-prompt-per-signal",
        promise: "Each workout signal gets at most one prompt, and every prompt belongs to a workout signal the shield extension wrote.",
        source: "seed 002, Shield Action Extension: 'deduplication tokens'; Deduplication Logic: 'Don't schedule if same ID already processed'")

    static func judge(_ run: PushinRun, _ history: [HistoryEvent]) -> RuleOutcome {
        var outcome = RuleOutcome(descriptor.name, subjectKind: "signal")
        var byId: [String: [PushinRun.Prompt]] = [:]
        for p in run.prompts where !(p.kind == .inApp && diedWithTheApp(p, history)) { byId[p.id, default: []].append(p) }
        for (id, prompts) in byId.sorted(by: { $0.key < $1.key }) {
            outcome.checkedCount += 1
            guard let s = run.signal(id) else {
                // A workout press's own call added it and died before its signal landed (H9): the
                // press's prompt, once.
                if run.workoutCallAdds[id] != nil {
                    if prompts.count > 1 { outcome.fail(id, "workout notification \(id) got \(prompts.count) prompts", prompts.prefix(4).map { Optional($0.line) }) }
                    continue
                }
                outcome.fail(id, "a \(prompts[0].kind.rawValue) prompt for \(id), which no workout shield action signalled", [prompts[0].line])
                continue
            }
            if prompts.count > 1 {
                let kinds = prompts.map { "\($0.kind.rawValue) at t=\($0.t)" }.joined(separator: ", ")
                outcome.fail(id, "workout signal \(id) got \(prompts.count) prompts: \(kinds)", [s.line] + prompts.prefix(4).map { Optional($0.line) })
            }
        }
        return outcome
    }

    /// The process that showed the in-app prompt `p` was killed at that same device instant.
    static func diedWithTheApp(_ p: PushinRun.Prompt, _ events: [HistoryEvent]) -> Bool {
        events.contains {
            $0.isHarnessLine("exit") && $0["childPid"] == String(p.line.pid) && $0["status"] != "exit 0" && $0.t == p.t && $0.mono > p.mono
        }
    }
}
