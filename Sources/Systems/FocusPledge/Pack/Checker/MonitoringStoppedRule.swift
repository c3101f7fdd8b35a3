import FocusPledge
import HarnessKit
import History

extension FocusPledgeChecker {
    /// `monitoring-stopped-after-settlement` (Security Considerations 4, "Always call
    /// stopNativeSession on success or failure"; MethodChannel 5, "Stop monitoring"): once a session
    /// is settled, its DeviceActivity registration is gone before the next session starts (or at
    /// run end). A `repeats: false` registration outlives its interval until it is stopped, and
    /// counts toward the 20 activities an app may monitor.
    enum MonitoringStoppedRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.monitoringStoppedAfterSettlement.rawValue)
            for session in run.sessions {
                guard let last = session.settlements.last else { continue }
                outcome.checkedCount += 1
                let settledMono = session.settlements.compactMap(\.mono).max() ?? session.startMono
                let next = run.sessions.first { $0.startMono > settledMono }
                let deadline = next?.startAction ?? next?.hostStarted ?? run.runFinished
                let deadlineT = deadline?.t ?? run.lastT
                let activity = FocusPledgeKeys.activityName(sessionId: session.sessionId)
                // Just before the deadline: a registration removed at that very instant still counts as up.
                guard run.isRegistered(activity, atT: deadlineT.nextDown) else { continue }
                let when = next.map { "when session \($0.sessionId) started" } ?? "at run end"
                let registered = run.events.last { $0.isHarnessLine("monitoring_registered") && $0["activity"] == activity }
                outcome.fail(
                    session.sessionId, "settled \(last.summary), but \(activity) was still monitored \(when)",
                    [session.hostStarted, registered, last.serverSettled, last.ledger, deadline])
            }
            return outcome
        }
    }
}
