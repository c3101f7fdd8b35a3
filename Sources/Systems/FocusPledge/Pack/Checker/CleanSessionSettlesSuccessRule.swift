import HarnessKit
import History

extension FocusPledgeChecker {
    /// `clean-session-settles-success`: a session without completed violations whose active
    /// interval ended before the history did is settled, and its first settlement is SUCCESS — or the
    /// server's stale job's FAILURE `no_heartbeat` (Resilience 4). With only maybe-violations
    /// (extension killed mid-callback) or a manual stop, any resolution is right, but it must be settled.
    enum CleanSessionSettlesSuccessRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.cleanSessionSettlesSuccess.rawValue, subjectKind: "session")
            for session in run.sessions where session.violations.isEmpty {
                guard let endT = session.activeEndT, endT < run.lastT else { continue }
                outcome.checkedCount += 1
                let lines = session.startEvents + [session.stopAction]
                    + session.maybeViolations.prefix(2).flatMap { [$0.delivered, $0.outcomeEvent] }
                guard let settlement = session.settlements.first else {
                    outcome.fail(session.sessionId, "\(describe(session)) ended at t=\(endT), never settled", lines)
                    continue
                }
                guard !isAcceptable(settlement, for: session) else { continue }
                outcome.fail(
                    session.sessionId, "\(describe(session)) settled \(settlement.summary)",
                    lines + [
                        run.firstHostLine("settle_requested", sessionId: session.sessionId),
                        settlement.serverSettled, settlement.ledger,
                    ])
            }
            return outcome
        }

        static func isAcceptable(_ settlement: LedgerSettlement, for session: FocusSession) -> Bool {
            if !session.maybeViolations.isEmpty || session.wasStoppedByUser || !session.violationsLostByOS.isEmpty
                || session.hasUnshieldedUse
            {
                return settlement.isSuccess || settlement.isFailure
            }
            return settlement.isSuccess || settlement.isStaleJobFailure
        }

        private static func describe(_ session: FocusSession) -> String {
            if session.wasStoppedByUser { return "session stopped by the user" }
            if !session.maybeViolations.isEmpty { return "session with only maybe-violations" }
            if !session.violationsLostByOS.isEmpty { return "session whose violations iOS lost" }
            if session.hasUnshieldedUse { return "session in which a blocked app was used unshielded" }
            return "clean session (no violation)"
        }
    }
}
