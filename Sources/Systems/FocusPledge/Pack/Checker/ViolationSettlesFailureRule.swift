import HarnessKit
import History

extension FocusPledgeChecker {
    /// `violation-settles-failure`: a session with a completed violation is settled, and its first
    /// settlement (journal order) is FAILURE. More than one settlement is `no-double-settlement`'s.
    enum ViolationSettlesFailureRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.violationSettlesFailure.rawValue, subjectKind: "session")
            for session in run.sessions where !session.violations.isEmpty {
                outcome.checkedCount += 1
                let first = session.violations[0]
                let what = "\(session.violations.count) completed violation(s), "
                    + "first \(first.callback ?? "?") at t=\(first.delivered.t)"
                let lines = session.startEvents + session.userViolations.prefix(1).flatMap { [$0.action, $0.response] }
                    + session.violations.prefix(2).flatMap { [$0.delivered, $0.outcomeEvent] }
                guard let settlement = session.settlements.first else {
                    outcome.fail(session.sessionId, "\(what), but the session was never settled", lines)
                    continue
                }
                guard !settlement.isFailure else { continue }
                outcome.fail(
                    session.sessionId, "\(what), but settled \(settlement.summary)",
                    lines + [
                        run.firstHostLine("settle_requested", sessionId: session.sessionId),
                        settlement.serverSettled, settlement.ledger,
                    ])
            }
            return outcome
        }
    }
}
