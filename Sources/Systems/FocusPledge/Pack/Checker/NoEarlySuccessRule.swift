import HarnessKit
import History

extension FocusPledgeChecker {
    /// `no-early-success` (Testing Checklist, "Time expiry — Wait for session duration to elapse —
    /// session ends naturally"; Resilience 3, "Store session_end_time as Unix timestamp (UTC) … we
    /// validate end time server-side"): a SUCCESS is settled no earlier than the pledge's planned
    /// end, in device time, whatever the local clock or time zone did.
    enum NoEarlySuccessRule {
        /// The ledger's time is whole milliseconds.
        static let toleranceSeconds = 0.001

        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.noEarlySuccess.rawValue, subjectKind: "session")
            for session in run.sessions {
                guard let end = session.pledgeEndT else { continue }
                for s in session.settlements where s.isSuccess {
                    guard let t = s.deviceT else { continue }
                    outcome.checkedCount += 1
                    guard t + toleranceSeconds < end else { continue }
                    outcome.fail(
                        session.sessionId, "settled SUCCESS at t=\(t), \(Int(end - t)) s before the pledge's end at t=\(end)",
                        session.startEvents + [s.serverSettled, s.ledger])
                }
            }
            return outcome
        }
    }
}
