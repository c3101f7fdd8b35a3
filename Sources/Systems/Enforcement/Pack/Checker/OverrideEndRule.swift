import Enforcement
import HarnessKit
import History

/// `override-end-applied` and the `override-end-latency` series. When an override ends the mode's
/// schedule takes over again — a mode becomes active or stops being so, "or overrides change" —
/// so every app whose expected state the end changed follows within a minute; when iOS lost the
/// callback made for it (hardened's `override.<mode>` activity) or the nemesis held it, within a
/// minute of the next fallback trigger ("app foreground", "mode boundary triggers", "next shield
/// event") or of the held call running. The spec schedules nothing at an override's end, so
/// as-written has no callback there to lose: nothing moves its deadline (`Due`).
enum OverrideEndRule {
    /// True when some override the host wrote ends at `t` (the formula's change there is this
    /// rule's to judge, as a grant's end is `grant-end-reshields`').
    static func isOverrideEnd(_ run: EnforcementRun, at t: Double) -> Bool {
        run.states.contains { $0.rules.overrides.contains { $0.endsTs == t } }
    }

    /// Every override the host wrote, once (first write), in order.
    static func overrides(_ run: EnforcementRun) -> [(override: Override, written: HistoryEvent)] {
        var seen = Set<String>()
        var out: [(Override, HistoryEvent)] = []
        for (e, r) in run.states where e.event == "override_set" {
            for o in r.overrides where !seen.contains(o.id) {
                seen.insert(o.id)
                out.append((o, e))
            }
        }
        return out
    }

    static func apps(_ e: HistoryEvent?) -> Set<String> { Set((e?["apps"] ?? "").split(separator: ",").map(String.init)) }

    static func judge(_ run: EnforcementRun) -> (RuleOutcome, [Int64], [String: Int]) {
        var outcome = RuleOutcome(EnforcementInvariant.overrideEndApplied.rawValue, subjectKind: "override")
        var samples: [Int64] = []
        var excluded: [String: Int] = [:]
        let all = overrides(run)
        let S = EnforcementRun.settleSeconds
        for (o, written) in all {
            let e = o.endsTs
            // One override per mode: a later one written before this one's end replaces it.
            if all.contains(where: { $0.override.mode == o.mode && $0.written.mono > written.mono && $0.written.t < e }) {
                excluded["replaced", default: 0] += 1
                continue
            }
            guard e + S <= run.end else {
                excluded["ends after the run", default: 0] += 1
                continue
            }
            // The apps whose expected state the end changes (the rules as of then, a second before and at it).
            let rules = run.rules(atT: e)
            let before = Set(rules.shieldedApps(at: e - 1, timeZone: run.timeZone))
            let after = Set(rules.shieldedApps(at: e, timeZone: run.timeZone))
            let changed = before.symmetricDifference(after).sorted()
            guard !changed.isEmpty else {
                excluded["changes no shield", default: 0] += 1
                continue
            }
            let agrees = { (shields: Set<String>) in changed.allSatisfy { shields.contains($0) == after.contains($0) } }
            // When the OS's shields first followed: the set in force at the end, else the first change after it.
            let inForce = run.shields.changes.last { $0.t <= e }
            let back = agrees(apps(inForce)) ? inForce : run.shields.changes.first { $0.t > e && agrees(apps($0)) }
            let r = back.map { max($0.t, e) }
            // The formula moved those apps again before the shields followed: nothing left to judge.
            if run.changeInstants.contains(where: { c in c > e && c < (r ?? run.end) && changed.contains { run.expected($0, atT: c) != after.contains($0) } }) {
                excluded["formula changed first", default: 0] += 1
                continue
            }
            guard let (deadline, late) = Due.deadline(run, change: e, activityPrefix: EnforcementKeys.overrideActivity(""), back: r) else {
                excluded["callback lost, not due within the run", default: 0] += 1
                continue
            }
            let why = "the override of \(o.mode) (\(o.on ? "on" : "off")) ended at t=\(e)" + late
            outcome.checkedCount += 1
            if let r { samples.append(Int64((r - e) * 1e9)) }
            if let r, r <= deadline { continue }
            let want = changed.map { "\($0) " + (after.contains($0) ? "shielded" : "unshielded") }.joined(separator: ", ")
            let fixer = back.flatMap { b in run.events.last { $0.event == "reconcile" && $0.mono < b.mono } }
            outcome.fail(
                o.id,
                "the shields did not follow the formula (\(want)) until \(Int((r ?? run.end) - e)) s after \(why)"
                    + (r == nil ? " (to the run's end)" : " (at t=\(r!), \(fixer.map { "reconciled by \($0.process) why=\($0["why"] ?? "")" } ?? "a shield change"))"),
                [written, inForce, fixer, back, run.finished])
        }
        return (outcome, samples, excluded)
    }
}
