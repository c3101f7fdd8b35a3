import HarnessKit
import History

extension FocusPledgeChecker {
    /// `no-shield-after-settlement`: after a session's last settlement, the emulated OS shows no
    /// shield just before the next session starts (or at run end, if none starts after it).
    /// A settlement whose time is unknown is taken to be at the session's start.
    enum NoShieldAfterSettlementRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.noShieldAfterSettlement.rawValue)
            for session in run.sessions {
                guard let last = session.settlements.last else { continue }
                outcome.checkedCount += 1
                let settledMono = session.settlements.compactMap(\.mono).max() ?? session.startMono
                let next = run.sessions.first { $0.startMono > settledMono }
                let deadline = next?.startMono ?? run.endMono
                guard run.shields.isShielded(before: deadline) else { continue }
                let shield = run.shields.change(before: deadline)
                let when = next.map { "before session \($0.sessionId) started" } ?? "at run end"
                outcome.fail(
                    session.sessionId,
                    "settled \(last.summary), but shields {\(shield?["apps"] ?? "")} were still up \(when)",
                    [session.hostStarted, last.serverSettled, last.ledger, shield, next?.startAction, run.runFinished])
            }
            return outcome
        }
    }
}
