import FocusPledge
import HarnessKit
import History

extension FocusPledgeChecker {
    /// `failure-reason-recorded` (Shared Storage Keys, `focuspledge_failure_reason` "Reason (e.g.,
    /// "app_opened", "no_heartbeat")", written by the extension and read by the host): a session
    /// the host settled FAILURE because of a violation carries the extension's reason `app_opened`
    /// — not the Dart fallback `native_violation` of a flag without its reason, nor another one.
    enum FailureReasonRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.failureReasonRecorded.rawValue, subjectKind: "session")
            for session in run.sessions where !session.violations.isEmpty && !session.wasStoppedByUser {
                guard let first = session.settlements.first, first.isFailure, first.origin == FailureWhileHostDeadRule.clientOrigin else {
                    continue
                }
                outcome.checkedCount += 1
                guard first.reason != FocusPledgeKeys.appOpenedReason else { continue }
                outcome.fail(
                    session.sessionId, "violation settled FAILURE with reason \(first.reason ?? "nil"), not \(FocusPledgeKeys.appOpenedReason)",
                    session.startEvents + session.violations.prefix(2).flatMap { [$0.delivered, $0.outcomeEvent] }
                        + [first.serverSettled, first.ledger])
            }
            return outcome
        }
    }
}
