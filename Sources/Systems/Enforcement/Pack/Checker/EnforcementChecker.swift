import Enforcement
import Foundation
import HarnessKit
import History

/// Judges a seed 001 run from its merged history alone (the SQLite mirror too: the pack's evidence
/// lines, written after the run, are history lines).
public enum EnforcementChecker {
    public static let name = "Enforcement"

    public static let reshieldLatency = LatencySeriesDescriptor(
        name: "reshield-latency", what: "device time from a grant's end -> its app shielded again (clamped at 60 s)")
    public static let overrideEndLatency = LatencySeriesDescriptor(
        name: "override-end-latency", what: "device time from an override's end -> the shields following the formula for every app it changed (clamped at 60 s)")

    public static func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: name, reason: "the history has no run_finished line")
        }
        let run = EnforcementRun(history)
        let (reshield, samples, excluded) = GrantEndRule.judge(run)
        let (overrideEnd, overrideSamples, overrideExcluded) = OverrideEndRule.judge(run)
        let outcomes = [
            FormulaRule.judge(run), reshield, overrideEnd, GrantUsableRule.judge(run), NoFlapRule.judge(run), MirrorRule.judge(run), ShieldContentRule.judge(run),
            ChecklistRule.judge(run), CoreRules.noStoreCorrupt(history), CoreRules.runSettles(history),
        ]
        var report = CheckReport(
            checker: name, decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations),
            latencies: [
                reshieldLatency.series(samplesNanos: samples, excluded: excluded),
                overrideEndLatency.series(samplesNanos: overrideSamples, excluded: overrideExcluded),
            ])
        let lost = lostWork(run)
        if !lost.isEmpty { report.lostByOS = lost }
        return report
    }
}

/// `shields-match-formula`: at every user action and at the run's end, each app whose expected
/// state has been still for a minute is shielded exactly when the formula says so. An app whose
/// last change was its grant's end is left to `grant-end-reshields`, one whose last change was an
/// override's end to `override-end-applied` (each owns that bound).
enum FormulaRule {
    static func judge(_ run: EnforcementRun) -> RuleOutcome {
        var outcome = RuleOutcome(EnforcementInvariant.shieldsMatchFormula.rawValue, subjectKind: "app")
        var failed = Set<String>()
        let samples = run.events.filter { $0.isHarnessLine("user_action") } + [run.finished].compactMap { $0 }
        for sample in samples {
            let t = sample.t
            let actual = run.osShielded(beforeMono: sample.mono)
            for app in run.apps where !failed.contains(app) {
                guard run.isSettled(app, at: t) else { continue }
                let want = run.expected(app, atT: t)
                let change = run.lastChange(of: app, atOrBefore: t)
                if want, let c = change, GrantEndRule.isGrantEnd(run, app: app, at: c) { continue }
                if let c = change, OverrideEndRule.isOverrideEnd(run, at: c) { continue }
                // A change the monitor's callback was lost for is due at the next fallback trigger
                // (15 device minutes at most).
                var late = ""
                if let c = change {
                    let due = Due.of(run, change: c, activityPrefix: "")
                    if !due.why.isEmpty, due.at.map({ t < $0 }) ?? true { continue }
                    if !due.why.isEmpty { late = "; " + due.why }
                }
                outcome.checkedCount += 1
                guard want != actual.contains(app) else { continue }
                failed.insert(app)
                let r = run.rules(atT: t)
                outcome.fail(
                    app,
                    "at t=\(t) (\(sample.isHarnessLine("run_finished") ? "the run's end" : sample["action"] ?? "a user action")) \(app) should be "
                        + (want ? "shielded" : "unshielded") + " (effective mode \(r.effectiveMode(at: t, timeZone: run.timeZone)?.id ?? "none"), "
                        + "active grants \(r.grantedApps(at: t).sorted()), rules still since \(run.lastChange(of: app, atOrBefore: t).map { "t=\($0)" } ?? "the start")) "
                        + "but the OS had shields \(actual.sorted())" + late,
                    [run.states.last { $0.event.t <= t }?.event, run.shields.change(before: sample.mono), sample])
            }
        }
        return outcome
    }
}

/// `grant-end-reshields` and the `reshield-latency` series.
enum GrantEndRule {
    static func isGrantEnd(_ run: EnforcementRun, app: String, at t: Double) -> Bool {
        run.states.contains { $0.rules.grants.contains { $0.app == app && $0.endsTs == t } }
    }

    /// Every grant the host wrote, once (first write), in order.
    static func grants(_ run: EnforcementRun) -> [(grant: Grant, written: HistoryEvent)] {
        var seen = Set<String>()
        var out: [(Grant, HistoryEvent)] = []
        for (e, r) in run.states where e.event == "grant_created" {
            for g in r.grants where !seen.contains(g.id) {
                seen.insert(g.id)
                out.append((g, e))
            }
        }
        return out
    }

    static func judge(_ run: EnforcementRun) -> (RuleOutcome, [Int64], [String: Int]) {
        var outcome = RuleOutcome(EnforcementInvariant.grantEndReshields.rawValue, subjectKind: "grant")
        var samples: [Int64] = []
        var excluded: [String: Int] = [:]
        let all = grants(run)
        let S = EnforcementRun.settleSeconds
        for (g, written) in all {
            let e = g.endsTs
            if all.contains(where: { $0.grant.app == g.app && $0.grant.id != g.id && $0.grant.startTs >= g.startTs && $0.grant.startTs < e }) {
                excluded["replaced", default: 0] += 1
                continue
            }
            guard e + S <= run.end else {
                excluded["ends after the run", default: 0] += 1
                continue
            }
            guard run.expected(g.app, atT: e) else {
                excluded["not blocked at its end", default: 0] += 1
                continue
            }
            // When the OS had the app shielded again at or after the end.
            let after = run.shields.changes.filter { $0.t >= e && $0.mono > written.mono }
            let before = run.shields.changes.last { $0.t < e && $0.mono > written.mono }
            var back: HistoryEvent?
            if let before, (before["apps"] ?? "").split(separator: ",").contains(Substring(g.app)) { back = before }
            if back == nil { back = after.first { ($0["apps"] ?? "").split(separator: ",").contains(Substring(g.app)) } }
            let r = back.map { max($0.t, e) }
            // The formula let go of the app before it came back (a mode ended, another grant): from
            // then on the app may stay unshielded, so only the time before that is judged.
            let letGo = run.changeInstants.first { $0 > e && $0 < (r ?? run.end) && !run.expected(g.app, atT: $0) }
            guard let (deadline, late) = Due.deadline(run, change: e, activityPrefix: "grant.", back: r) else {
                excluded["callback lost, not due within the run", default: 0] += 1
                continue
            }
            // Let go of within the time the app had to shield it: nothing left to judge.
            if let letGo, letGo <= deadline {
                excluded["formula changed first", default: 0] += 1
                continue
            }
            let why = "its grant ended at t=\(e)" + late
            outcome.checkedCount += 1
            if let r, letGo == nil { samples.append(Int64((r - e) * 1e9)) }
            if let r, r <= deadline { continue }
            let refused = run.events.first { $0.process == EnforcementRoles.host && $0.event == "monitoring_error" && $0.mono > written.mono && $0.t <= e }
            let until = letGo.map { " (until the formula let go of it at t=\($0))" } ?? (r == nil ? " (to the run's end)" : " (shielded again at t=\(r!))")
            outcome.fail(
                g.id,
                "\(g.app) was still unshielded \(Int((letGo ?? r ?? run.end) - e)) s after \(why)" + until
                    + (refused.map { "; the host's one-off schedule was refused: \($0["error"] ?? "")" } ?? ""),
                [written, refused, back, run.finished])
        }
        return (outcome, samples, excluded)
    }

}

/// `grant-app-usable`, judged from the user's side: each grant the user made (`create_grant`)
/// leaves its app unshielded from a minute after the host had it to its end (a later grant of the
/// app replaces it). The host's grant (`grant_created`) dates it; a grant the host took in and
/// recorded no grant for — killed between the App Group write and its trace, say — is judged from
/// the tap: the user was not told it failed. Excused (listed by the core) when the tap died with
/// the host before anything came of it; a tap that never reached the host is lost work
/// (`EnforcementLostWork`). A grant the host made with no tap of the user's is judged as written.
enum GrantUsableRule {
    static func judge(_ run: EnforcementRun) -> RuleOutcome {
        var outcome = RuleOutcome(EnforcementInvariant.grantAppUsable.rawValue, subjectKind: "grant")
        let all = GrantEndRule.grants(run)
        let S = EnforcementRun.settleSeconds
        var judged = Set<String>()
        /// Whether `app` was shielded in `[from, until)` (the set in force at `from`, every change
        /// after `after` up to `until`): the first shielding line.
        func shielded(_ app: String, after: Int64, from: Double, until: Double) -> HistoryEvent? {
            let inForce = run.shields.change(before: after + 1)
            let lines = ([inForce].compactMap { $0 } + run.shields.changes.filter { $0.mono > after && $0.t < until })
            let relevant = lines.filter { $0.t >= from } + [lines.last { $0.t < from }].compactMap { $0 }
            return relevant.first { ($0["apps"] ?? "").split(separator: ",").contains(Substring(app)) }
        }
        func judgeWritten(_ g: Grant, _ written: HistoryEvent) {
            let from = written.t + S
            // `unlock_grant_current` holds one grant per app: a later one for the app replaces it.
            let next = all.filter { $0.grant.app == g.app && $0.written.mono > written.mono }.map(\.written.t).min()
            let until = min(g.endsTs, next ?? g.endsTs)
            guard from < until else { return }
            outcome.checkedCount += 1
            if let bad = shielded(g.app, after: written.mono, from: from, until: until) {
                let shown = run.events.first { $0.isHarnessLine("shield_shown") && $0["app"] == g.app && $0.t >= from && $0.t < until }
                outcome.fail(
                    g.id, "\(g.app) was shielded at t=\(max(bad.t, from)) inside its grant (written t=\(written.t), ends t=\(g.endsTs))",
                    [written, bad, shown])
            }
        }
        let lostTaps = run.index.lostTaps
        let taps = run.events.filter { $0.isUserAction(EnforcementKeys.createGrantAction) }
        for (i, tap) in taps.enumerated() {
            guard let app = tap["app"], let minutes = tap["minutes"].flatMap(Double.init) else { continue }
            let nextTap = taps[(i + 1)...].first { $0["app"] == app }
            let before = nextTap?.mono ?? .max
            if let (g, written) = all.first(where: { $0.grant.app == app && $0.written.mono > tap.mono && $0.written.mono < before }) {
                judged.insert(g.id)
                judgeWritten(g, written)
                continue
            }
            // No grant recorded for it: one the host never took in is lost work, listed apart.
            guard let input = run.events.first(where: {
                $0.isLine(of: EnforcementRoles.host, "user_input") && $0["action"] == EnforcementKeys.createGrantAction && $0["app"] == app
                    && $0.mono > tap.mono && $0.mono < before
            }) else { continue }
            let from = input.t + S, until = min(tap.t + minutes * 60, nextTap?.t ?? .infinity)
            guard from < until else { continue }
            outcome.checkedCount += 1
            if lostTaps.contains(where: {
                $0.action == EnforcementKeys.createGrantAction && $0["app"] == app && $0.line.mono > tap.mono && $0.line.mono < before && $0.beforeAnyEffect
            }) { continue }
            if let bad = shielded(app, after: input.mono, from: from, until: until) {
                outcome.fail(
                    "\(app)@t=\(Int(tap.t))",
                    "the user's \(Int(minutes))-minute grant of \(app) at t=\(tap.t): the host took it in (t=\(input.t)) and recorded no grant, and \(app) was shielded at t=\(max(bad.t, from))",
                    [tap, input, lostTaps.first { $0.line.mono > tap.mono && $0.line.mono < before }?.line, bad])
            }
        }
        for (g, written) in all where !judged.contains(g.id) { judgeWritten(g, written) }
        return outcome
    }
}

/// `shields-no-flap`: a change of the OS's shield set never moves an app away from the formula
/// while its expected state has been still for a minute.
enum NoFlapRule {
    static func judge(_ run: EnforcementRun) -> RuleOutcome {
        var outcome = RuleOutcome(EnforcementInvariant.noFlap.rawValue, subjectKind: "app")
        var failed = Set<String>()
        var previous = Set<String>()
        for change in run.shields.changes {
            let now = Set((change["apps"] ?? "").split(separator: ",").map(String.init))
            defer { previous = now }
            for app in previous.symmetricDifference(now).sorted() where !failed.contains(app) {
                guard run.isSettled(app, at: change.t) else { continue }
                outcome.checkedCount += 1
                let want = run.expected(app, atT: change.t)
                guard want != now.contains(app), want == previous.contains(app) else { continue }
                failed.insert(app)
                let writer = run.events.last { $0.event == "shields_set" && $0.mono < change.mono }
                outcome.fail(
                    app, "at t=\(change.t) the shields moved \(app) to " + (now.contains(app) ? "shielded" : "unshielded")
                        + " though the formula (still for a minute) says " + (want ? "shielded" : "unshielded"),
                    [writer, change])
            }
        }
        return outcome
    }
}

/// `sqlite-mirror-agrees`: the evidence lines of the database and the App Group after the run.
enum MirrorRule {
    static func judge(_ run: EnforcementRun) -> RuleOutcome {
        var outcome = RuleOutcome(EnforcementInvariant.mirrorAgrees.rawValue)
        let db = run.events.last { $0.isHarnessLine("sqlite_mirror") }
        let group = run.events.last { $0.isHarnessLine("app_group_selection") }
        guard let db, let group else { return outcome }
        // Nothing selected and no database: nothing to mirror yet.
        if db["exists"] != "true" && (group["apps"] ?? "").isEmpty { return outcome }
        outcome.checkedCount = 1
        var problems: [String] = []
        if db["exists"] != "true" { problems.append("the database does not exist") }
        if db["exists"] == "true" && db["integrity"] != "ok" { problems.append("integrity_check says \(db["integrity"] ?? "")") }
        if db["exists"] == "true" && db["journalMode"] != "wal" { problems.append("journal mode \(db["journalMode"] ?? "") (not wal)") }
        if db["apps"] != group["apps"] {
            problems.append("it mirrors [\(db["apps"] ?? "")] but the App Group's selection is [\(group["apps"] ?? "")]")
        }
        if !problems.isEmpty {
            let last = run.events.last { $0.isLine(of: EnforcementRoles.host, "selection_saved") }
            let mirrored = run.events.last { $0.isLine(of: EnforcementRoles.host, "selection_mirrored") }
            outcome.fail(nil, "the SQLite mirror after the run: " + problems.joined(separator: "; "), [last, mirrored, db, group])
        }
        return outcome
    }
}

/// `shield-content`: every `shield_configuration` the extension returned.
enum ShieldContentRule {
    static func judge(_ run: EnforcementRun) -> RuleOutcome {
        var outcome = RuleOutcome(EnforcementInvariant.shieldContent.rawValue, subjectKind: "shield")
        for e in run.events where e.isLine(of: EnforcementRoles.shieldConfiguration, "shield_configuration") {
            outcome.checkedCount += 1
            let subtitle = e["subtitle"] ?? ""
            var problems: [String] = []
            if e["title"] != EnforcementKeys.shieldTitle { problems.append("title \"\(e["title"] ?? "")\"") }
            if !subtitle.contains(EnforcementKeys.nextStepEarnedAccess) || !subtitle.contains(EnforcementKeys.nextStepFocus) {
                problems.append("no next step in \"\(subtitle)\"")
            }
            if e["primaryButton"] != EnforcementKeys.closeButton { problems.append("primary button \"\(e["primaryButton"] ?? "")\"") }
            if let mode = run.rules(beforeMono: e.mono).effectiveMode(at: e.t, timeZone: run.timeZone), !subtitle.contains("Blocked by \(mode.name)") {
                problems.append("the blocking mode \(mode.name) is not named")
            }
            if !problems.isEmpty { outcome.fail(e["delivery"] ?? "?", "the shield's content: " + problems.joined(separator: "; "), [e]) }
        }
        return outcome
    }
}

/// `checklist-steps`: the checklist scenario's opens (their `step` label names the line), judged
/// by what iOS did next with that app.
enum ChecklistRule {
    static func judge(_ run: EnforcementRun) -> RuleOutcome {
        var outcome = RuleOutcome(EnforcementInvariant.checklist.rawValue, subjectKind: "step")
        for open in run.events where open.isUserAction("open_app") {
            guard let step = open["step"], let n = step.first, "357".contains(n), let app = open["app"] else { continue }
            guard let next = run.events.first(where: {
                $0.mono > open.mono && $0.process == HistoryEvent.harnessProcessName && ($0.event == "app_in_use" || $0.event == "shield_shown") && $0["app"] == app
            }) else { continue }
            // Judged where the rules the host recorded agree with the step. A tap the host never
            // took (no grant, no mode written) is not judged here: it is listed in `lostByOS`
            // (LostWork), never passed over in silence.
            let shielded = run.rules(beforeMono: open.mono).shieldedApps(at: open.t, timeZone: run.timeZone).contains(app)
            guard shielded == (n != "5") else { continue }
            // A re-shield whose monitor callback iOS lost is due at the next fallback trigger.
            if let c = run.lastChange(of: app, atOrBefore: open.t) {
                let due = Due.of(run, change: c, activityPrefix: "")
                if !due.why.isEmpty, due.at.map({ open.t < $0 }) ?? true { continue }
            }
            outcome.checkedCount += 1
            let want = n == "5" ? "app_in_use" : "shield_shown"
            if next.event != want {
                outcome.fail(
                    String(n), "step \(step): \(app) " + (want == "shield_shown" ? "opened instead of showing its shield" : "showed its shield instead of opening"),
                    [run.events.last { $0.isLine(of: EnforcementRoles.host, "grant_created") && $0.mono < open.mono }, open, next])
            }
        }
        return outcome
    }
}
