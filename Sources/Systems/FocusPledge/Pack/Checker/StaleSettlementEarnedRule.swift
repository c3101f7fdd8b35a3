import HarnessKit
import History

extension FocusPledgeChecker {
    /// `stale-settlement-earned`: every settlement by the server's stale job (origin `staleJob`)
    /// comes at least `staleAfterSeconds` of device time after the session's last heartbeat (or its
    /// creation, if it never had one), as the server itself recorded them in its trace. Without
    /// this, a server stand-in that expired sessions early would make every FAILURE `no_heartbeat`
    /// look legitimate to `clean-session-settles-success`.
    enum StaleSettlementEarnedRule {
        /// Device-time slack: the trace line is written just after the server read its clock.
        static let toleranceSeconds = 2.0

        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.staleSettlementEarned.rawValue, subjectKind: "session")
            guard let staleAfter = run.runStarted?["staleAfterSeconds"].flatMap(Double.init) else { return outcome }
            let stale = run.settlements.values.flatMap { $0 }.filter { $0.origin == "staleJob" }
            for s in stale.sorted(by: { $0.ledgerSeq < $1.ledgerSeq }) {
                guard let sid = s.sessionId, let settledT = s.serverSettled?.t ?? s.deviceT else { continue }
                outcome.checkedCount += 1
                // The server's own record of liveness: `created` and `heartbeat` lines for the session.
                let liveness = run.events.filter {
                    $0.process == "settlement-server" && ($0.event == "heartbeat" || $0.event == "created")
                        && $0.sessionIdField == sid && $0.t <= settledT
                }
                // A pledge created from the plan is created as of its planned start (README, A1).
                func heard(_ e: HistoryEvent) -> Double { e["createdAtUnixMillis"].flatMap(Double.init).map { $0 / 1000 } ?? e.t }
                guard let last = liveness.max(by: { heard($0) < heard($1) }) else { continue }  // trace lost: cannot tell
                let quiet = settledT - heard(last)
                if quiet + toleranceSeconds < staleAfter {
                    outcome.fail(
                        sid,
                        "stale job settled \(s.summary) after only \(Int(quiet)) s without a heartbeat; the threshold is \(Int(staleAfter)) s",
                        [last, s.serverSettled, s.ledger])
                }
            }
            return outcome
        }
    }
}
