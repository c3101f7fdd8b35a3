import HarnessKit
import History

extension FocusPledgeChecker {
    /// `no-double-settlement`: every session id appears in the server's journal at most once.
    enum NoDoubleSettlementRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.noDoubleSettlement.rawValue, subjectKind: "session")
            for (sessionId, settlements) in run.settlements.sorted(by: { $0.key < $1.key }) {
                outcome.checkedCount += 1
                guard settlements.count > 1 else { continue }
                let session = run.sessions.first { $0.sessionId == sessionId }
                outcome.fail(
                    sessionId,
                    "settled \(settlements.count) times: " + settlements.map(\.summary).joined(separator: "; "),
                    (session?.startEvents ?? []) + settlements.flatMap { [$0.serverSettled, $0.ledger] })
            }
            return outcome
        }
    }
}
