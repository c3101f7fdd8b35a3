import Enforcement
import HarnessKit
import History

/// When the shields are due to follow a change of the formula at `c`: a minute after it — unless
/// the monitor callback made for it did not run then, for a reason the app cannot help:
/// * the nemesis held the extension (`deferredUntil`): a minute after it ran;
/// * it waited for the extension's previous call to return (`callback_queued`: an extension takes
///   one call at a time, EMULATED-IOS.md §10.1 — e.g. behind a call the nemesis held): a minute after
///   it ran;
/// * iOS lost it (dropped, held back by a field fault, killed at launch or mid-call): a minute
///   after the spec's next fallback trigger — "app foreground", "mode boundary triggers", "next
///   shield event" — but never more than `lostCallbackBoundSeconds` after the change: the seed's
///   triggers all wait for something else to happen (the user, a mode's boundary), so a loss left
///   standing past the bound is the app's design, a finding, not iOS's (README, "Checker
///   assumptions") — unless the app had callbacks of its own coming within the bound (each one
///   reconciles the whole formula) and iOS lost every one of them too: then no process of the
///   app's could act, and the next trigger is awaited as before. When the bound falls after the
///   run's end, nothing is judged.
/// A registration the app's own call made fail (the emulated iOS refused it) excuses nothing.
struct Due {
    /// nil: not due within the run (a lost callback, and the run ended before a fallback trigger or the bound).
    var at: Double?
    /// Why later than a minute after the change (empty: not later).
    var why: String
    /// The line that explains a later due time.
    var cause: HistoryEvent?

    static let monitorCallbacks: Set<String> = ["intervalDidStart", "intervalDidEnd", "intervalWillEndWarning"]
    /// How long a loss of iOS's is excused when no fallback trigger comes: 15 device minutes,
    /// Apple's shortest DeviceActivity interval — any app can have a callback of its own that soon
    /// without the user (hardened's H5 has one a minute after a grant's end).
    static let lostCallbackBoundSeconds = 15.0 * 60
    static let lostLines: Set<String> = ["callback_dropped", "callback_held", "callback_not_delivered"]

    static func of(_ run: EnforcementRun, change c: Double, activityPrefix: String) -> Due {
        let S = EnforcementRun.settleSeconds
        var due = Due(at: c + S, why: "", cause: nil)
        let inWindow = { (e: HistoryEvent) in e.t >= c - 1 && e.t <= c + S }
        let matching = { (activity: String?) in (activity ?? "").hasPrefix(activityPrefix) }
        let calls = run.deliveries.filter {
            e in (e.madeAt >= c - 1 && e.madeAt <= c + S) && monitorCallbacks.contains(e.callback ?? "") && matching(e.activity)
        }
        // Held by the nemesis, or waiting behind the extension's previous call: due a minute after
        // the call ran.
        for d in calls {
            if let until = d.delivered["deferredUntil"].flatMap(Double.init), until + S > (due.at ?? 0) {
                due = Due(at: until + S, why: "the nemesis held the monitor's \(d.callback ?? "callback") until t=\(until)", cause: d.delivered)
            }
            if let queued = d.queued, d.delivered.t + S > (due.at ?? 0) {
                due = Due(
                    at: d.delivered.t + S,
                    why: "the monitor's \(d.callback ?? "callback") waited for its delivery \(queued["behind"] ?? "?") to return "
                        + "(an extension takes one call at a time) and ran at t=\(d.delivered.t)",
                    cause: queued)
            }
        }
        let lost = run.events.first { $0.process == HistoryEvent.harnessProcessName && lostLines.contains($0.event) && inWindow($0) && matching($0["activity"]) }
            ?? calls.first { if case .failed = $0.outcome { return true } else { return false } }.flatMap(\.outcomeEvent)
        guard let lost else { return due }
        let bound = c + lostCallbackBoundSeconds
        let trigger = fallback(run, after: c)
        if let trigger, trigger.t <= bound {
            return Due(
                at: max(due.at ?? 0, trigger.t + S),
                why: "iOS lost the monitor's callback (\(lost.event), t=\(lost.t)) and the next fallback trigger was \(describe(trigger)) at t=\(trigger.t)",
                cause: lost)
        }
        let minutes = Int(lostCallbackBoundSeconds / 60)
        // The app's other chances within the bound: every monitor callback iOS made after the lost
        // one (any activity's reconciles the whole formula, A4). All lost as well: iOS's doing.
        let later = run.deliveries.filter { d in
            d.delivered.mono > lost.mono && d.delivered.t <= bound && monitorCallbacks.contains(d.callback ?? "")
        }
        if !later.isEmpty, !later.contains(where: \.isCompleted) {
            let every = "iOS lost the monitor's callback (\(lost.event), t=\(lost.t)) and every one of the \(later.count) the app had within \(minutes) minutes after it"
            guard let trigger else { return Due(at: nil, why: every, cause: lost) }
            return Due(at: max(due.at ?? 0, trigger.t + S), why: every + "; the next fallback trigger was \(describe(trigger)) at t=\(trigger.t)", cause: lost)
        }
        let at = max(due.at ?? 0, bound + S)
        guard at <= run.end else {
            return Due(at: nil, why: "iOS lost the monitor's callback (\(lost.event)); the run ended within the \(minutes)-minute bound", cause: lost)
        }
        return Due(
            at: at,
            why: "iOS lost the monitor's callback (\(lost.event), t=\(lost.t)) and no fallback trigger came within \(minutes) device minutes "
                + "(the bound on that excuse: the seed's triggers wait for the user or a mode's boundary)",
            cause: lost)
    }

    /// The deadline for shields that followed a change at `c` at `back` (nil: never): a minute
    /// after the change, or `of`'s later time when the callback made for it was held or lost and the
    /// shields were late; with the reason, as "; …" to add to an explanation (empty: on time).
    /// nil: nothing to judge yet — the callback lost and no fallback trigger before the run ended.
    static func deadline(_ run: EnforcementRun, change c: Double, activityPrefix: String, back: Double?) -> (at: Double, why: String)? {
        let S = EnforcementRun.settleSeconds
        let due = of(run, change: c, activityPrefix: activityPrefix)
        guard !due.why.isEmpty, back.map({ $0 > c + S }) ?? true else { return (c + S, "") }
        guard let at = due.at else { return nil }
        return (at, "; " + due.why)
    }

    /// The first fallback trigger at or after `t`: the host in the foreground, a mode boundary's
    /// callback completed, a shield button's callback completed.
    static func fallback(_ run: EnforcementRun, after t: Double) -> HistoryEvent? {
        let foreground = run.events.first { $0.t >= t && $0.isHarnessLine("host_state") && $0["state"] == "foreground" }
        let calls = run.deliveries.filter { d in
            guard d.delivered.t >= t, d.isCompleted else { return false }
            return (d.activity ?? "").hasPrefix("mode.") || d.callback == "shieldAction"
        }.compactMap(\.outcomeEvent)
        return ([foreground].compactMap { $0 } + calls).min { $0.mono < $1.mono }
    }

    static func describe(_ e: HistoryEvent) -> String {
        e.event == "host_state" ? "the host in the foreground" : "\(e["callback"] ?? "a callback") completed"
    }
}
