import Exit
import HarnessKit
import History

/// §2.1 `last_intervention_count` "Today's completed interventions": every non-zero value the
/// host writes equals the number of its unlock writes (one per completed exercise) since the
/// latest daily reset, this one included. A count that lags lost an update. (Whether a reset was
/// due is the reset rule's to judge — a day that comes again after a move west is not new; zero is
/// what a reset writes.)
enum CountMatchesDayRule {
    static func judge(_ run: ExitRun) -> RuleOutcome {
        var outcome = RuleOutcome(ExitInvariant.countMatchesDay.rawValue, subjectKind: "write")
        for w in run.index.writes(suite: ExitKeys.appGroup, by: ExitRoles.host) {
            guard let n = w[ExitKeys.lastInterventionCount].flatMap(Int.init), n != 0 else { continue }
            let e = w.line
            outcome.checkedCount += 1
            let reset = run.resets.last { $0.mono < e.mono }
            let unlocks = run.unlocks.filter { $0.line.mono <= e.mono && $0.line.mono > (reset?.mono ?? .min) }
            guard unlocks.count != n else { continue }
            outcome.fail(
                "\(run.day(e))@t=\(Int(e.t))",
                "the host wrote last_intervention_count = \(n) at t=\(e.t); exercises completed since "
                    + (reset.map { "the reset of \(run.day($0)) at t=\($0.t)" } ?? "the start") + ": \(unlocks.count)",
                [e, reset, unlocks.last?.line, unlocks.dropLast().last?.line])
        }
        return outcome
    }
}
