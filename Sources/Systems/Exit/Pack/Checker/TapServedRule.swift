import Exit
import HarnessKit
import History

/// §8.1 "Shield button tap sets flag, main app detects within 2 seconds" and "Force quit main
/// app during intervention doesn't break state". A tap waits from the moment its flag landed
/// until the host traces the end of an exercise after it (`intervention_finished`). While it
/// waits, every foreground period of the host that lasts 2 s past the later of its start and the
/// tap must have the intervention on screen by then — shown by the incarnation running then (a
/// force-quit process's screen is gone). Periods the nemesis held the host stopped in are not
/// judged; nor is a tap made while the host never comes to the foreground again (it waits).
enum TapServedRule {
    static func judge(_ run: ExitRun) -> (RuleOutcome, [Int64]) {
        var outcome = RuleOutcome(ExitInvariant.tapServed.rawValue, subjectKind: "tap")
        var samples: [Int64] = []
        let shown = run.events.filter { $0.isLine(of: ExitRoles.host, "intervention_shown") }
        let finished = run.events.filter { $0.isLine(of: ExitRoles.host, "intervention_finished") }
        for (i, tap) in run.taps.enumerated() {
            let id = "\(i + 1)@t=\(Int(tap.t))"
            let waitsUntil = finished.first { $0.mono > tap.mono }
            var judged = false
            var measured = false
            for p in run.foreground {
                let from = max(p.start.t, tap.t)
                let deadline = from + ExitKeys.detectWithinSeconds
                // Over before the deadline, or the tap was served before it began.
                guard run.endT(of: p) >= deadline, p.end.map({ $0.mono > tap.mono }) ?? true else { continue }
                if let w = waitsUntil, w.t < deadline { break }
                let fromMono = max(p.start.mono, tap.mono)
                let deadlineMono = run.mono(atOrAfter: deadline)
                if run.hostStopped(from: fromMono, to: deadlineMono) { continue }
                judged = true
                let pid = run.hostPid(atMono: deadlineMono)
                let seen = shown.first { $0.mono > tap.mono && $0.t <= deadline && $0.pid == pid }
                if let seen {
                    if !measured {
                        samples.append(Int64(max(0, seen.t - from) * 1e9))
                        measured = true
                    }
                    continue
                }
                let lastShown = shown.last { $0.mono > tap.mono && $0.t <= deadline }
                outcome.fail(
                    id,
                    "the tap of t=\(tap.t) was waiting, the host was in the foreground from t=\(from) past t=\(deadline), and its running process (pid \(pid.map(String.init) ?? "?")) had not shown the intervention"
                        + (lastShown.map { " (an earlier process showed it at t=\($0.t): the force quit lost it)" } ?? ""),
                    [tap, p.start, lastShown, run.events.first { $0.isLine(of: ExitRoles.host, "breathing_without_intervention") && $0.mono > tap.mono }])
                break
            }
            if judged { outcome.checkedCount += 1 }
        }
        return (outcome, samples)
    }
}
