import HarnessKit
import History

extension FocusPledgeChecker {
    /// `failure-while-host-dead-settled-after-relaunch` (Resilience 1): a completed violation
    /// delivered while no host process ran is settled FAILURE by the client (origin `client`), after
    /// the host's next spawn — or by the stale job, if the host stayed away past its threshold. If the host was never spawned again the seed promises nothing.
    enum FailureWhileHostDeadRule {
        static let clientOrigin = "client"

        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.failureWhileHostDeadSettledAfterRelaunch.rawValue, subjectKind: "session")
            for session in run.sessions {
                // The first such violation per session decides: later ones are settled by the same settlement.
                let dead = session.violations.first { run.hostLives.alive(atMono: $0.delivered.mono) == nil }
                guard let dead, let relaunch = run.hostLives.nextSpawn(afterMono: dead.delivered.mono) else { continue }
                outcome.checkedCount += 1
                let death = run.hostLives.last { ($0.exit?.mono ?? .max) <= dead.delivered.mono }?.exit
                let lines = [session.hostStarted, death, dead.delivered, dead.outcomeEvent, relaunch.spawn]
                guard let problem = problem(session.settlements.first, relaunch: relaunch) else { continue }
                let settlement = session.settlements.first
                outcome.fail(
                    session.sessionId,
                    "violation at t=\(dead.delivered.t) while the host was dead; "
                        + "relaunched (pid \(relaunch.pid)), \(problem)",
                    lines + [settlement?.serverSettled, settlement?.ledger])
            }
            return outcome
        }

        /// Nil if the settlement keeps the promise, else what is wrong with it.
        static func problem(_ settlement: LedgerSettlement?, relaunch: ProcessLifetime) -> String? {
            guard let settlement else { return "but the session was never settled" }
            guard settlement.isFailure else { return "but settled \(settlement.summary)" }
            // The stale job's FAILURE is the seed's other promise (Resilience 4) when the host stayed
            // away longer than the threshold; whether it was earned is `stale-settlement-earned`'s.
            if settlement.isStaleJobFailure { return nil }
            guard settlement.origin == clientOrigin else { return "but not by the relaunched host: \(settlement.summary)" }
            if let mono = settlement.mono, mono < relaunch.spawn.mono {
                return "but settled before the relaunch: \(settlement.summary)"
            }
            return nil
        }
    }
}
