import HarnessKit
import History

/// "Every workout shield action leads to a workout prompt — none lost": a signal is answered when
/// the user gets a prompt (a notification iOS shows, or the in-app prompt) between the signal and
/// its `notification_expires_at` ("Expiration: 5 minutes from creation"), for it or for a later
/// signal (the seed keeps one `pending_notification_id`: a later press supersedes an earlier one,
/// and one prompt answers both) — or a later press's notification whose signal's write was lost. Not judged: a signal whose expiry is after the run, and — when iOS
/// did not allow notifications, so only the in-app prompt can answer ("Permission Denied") — one
/// during which the user never opened Pushin. A host suspended by iOS is no excuse: the seed
/// promises "notify and guide" while the user is in the blocked app.
enum PromptOwedRule {
    static let descriptor = InvariantDescriptor(
        name: "workout-press-prompted",
        promise: "Every workout shield action leads to a workout prompt (notification, or the in-app prompt when notifications are not allowed) before its signal expires.",
        source: "seed 002, System Overview: 'notify and guide'; App Group keys: notification_expires_at '5-minute expiration'; Permission Denied: 'Show in-app notification or banner'")

    static func judge(_ run: PushinRun) -> (RuleOutcome, samples: [String: [Int64]]) {
        var outcome = RuleOutcome(descriptor.name, subjectKind: "signal")
        var samples: [String: [Int64]] = [:]
        for s in run.signals {
            if let end = run.finished, s.expiresAt > end.t { continue }
            // A later press's notification answers too when the App Group write of its signal was
            // lost (a torn write): the user was shown a workout prompt after this press all the same.
            let answering = Set(run.signals.filter { $0.mono >= s.mono }.map(\.id))
                .union(run.workoutCallAdds.filter { $0.value >= s.mono }.map(\.key))
            if let p = run.prompts.first(where: { $0.mono >= s.mono && $0.t <= s.expiresAt && answering.contains($0.id) }) {
                outcome.checkedCount += 1
                let series = PushinChecker.series(forHostState: run.hostState(at: s.mono))
                samples[series, default: []].append(Int64(((p.t - s.t) * 1e9).rounded()))
                continue
            }
            let granted = run.notificationsGranted(at: s.mono)
            let opened = run.hostForeground(from: s.mono, until: s.expiresAt)
            if !granted && opened == nil { continue }
            outcome.checkedCount += 1
            let state = run.hostState(at: s.mono)
            let how = granted ? "notifications were allowed" : "notifications were not allowed and Pushin was opened at \(opened.map { String($0.t) } ?? "?")"
            outcome.fail(
                s.id,
                "workout signal \(s.id) (shield press at t=\(s.t)) got no prompt before it expired at t=\(s.expiresAt); \(how); Pushin was \(state) at the press",
                [run.calls.first { $0.pid == s.pid }?.begin, s.line, run.index.hostStates.last { $0.mono <= s.mono }, opened])
        }
        return (outcome, samples)
    }
}
