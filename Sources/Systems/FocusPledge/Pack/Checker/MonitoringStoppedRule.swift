import FocusPledge
import HarnessKit
import History

extension FocusPledgeChecker {
    /// `monitoring-stopped-after-settlement` (Security Considerations 4, "Always call
    /// stopNativeSession on success or failure"; MethodChannel 5, "Stop monitoring"): once a session
    /// is settled and the host has run a minute since, its DeviceActivity registration is gone. A `repeats: false` registration outlives its interval until it is stopped, and
    /// counts toward the 20 activities an app may monitor.
    enum MonitoringStoppedRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.monitoringStoppedAfterSettlement.rawValue, subjectKind: "session")
            for session in run.sessions {
                guard let last = session.settlements.last,
                    let deadline = run.cleanupDeadline(after: session, graceSeconds: NoShieldAfterSettlementRule.graceSeconds)
                else { continue }
                outcome.checkedCount += 1
                let activity = FocusPledgeKeys.activityName(sessionId: session.sessionId)
                guard run.isRegistered(activity, atT: deadline) else { continue }
                let registered = run.events.last { $0.isHarnessLine("monitoring_registered") && $0["activity"] == activity }
                outcome.fail(
                    session.sessionId, "settled \(last.summary), but \(activity) was still monitored at t=\(deadline), "
                        + "\(Int(NoShieldAfterSettlementRule.graceSeconds)) s of host running time later",
                    [session.hostStarted, registered, last.serverSettled, last.ledger])
            }
            return outcome
        }
    }
}
