import HarnessKit
import History

extension FocusPledgeChecker {
    /// `no-shield-after-settlement` (Security Considerations 4): once a session is settled and the
    /// host has run a minute since (`cleanupDeadline`), nothing is shielded — unless another session
    /// is live then. Not judged when the host had no such minute before the next session started.
    enum NoShieldAfterSettlementRule {
        static let graceSeconds = 60.0

        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.noShieldAfterSettlement.rawValue, subjectKind: "session")
            for session in run.sessions {
                guard let last = session.settlements.last, let deadline = run.cleanupDeadline(after: session, graceSeconds: graceSeconds)
                else { continue }
                outcome.checkedCount += 1
                let shielded = run.shieldedApps(atT: deadline)
                guard !shielded.isEmpty, !run.anotherSessionLive(than: session, atT: deadline) else { continue }
                let shield = run.shields.changes.last { $0.t <= deadline }
                outcome.fail(
                    session.sessionId,
                    "settled \(last.summary), but shields {\(shielded.sorted().joined(separator: ","))} were still up at t=\(deadline), "
                        + "\(Int(graceSeconds)) s of host running time later",
                    [session.hostStarted, last.serverSettled, last.ledger, shield, run.runFinished])
            }
            return outcome
        }
    }
}
