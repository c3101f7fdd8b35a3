import FocusPledge
import HarnessKit
import History

extension FocusPledgeChecker {
    /// `stop-removes-shields` (Testing Checklist, "Stop session — Call stopNativeSession — Shields
    /// removed, monitoring stopped"; MethodChannel 5): once the host has run `graceSeconds` after the
    /// user's stop, nothing is shielded and the session's activity is not monitored — unless
    /// another session has started since.
    enum StopRemovesShieldsRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.stopRemovesShields.rawValue, subjectKind: "session")
            for stop in run.events where stop.isUserAction("stop_session") {
                guard let sid = stop.sessionIdField,
                    let deadline = run.host.deadline(after: stop.t, seconds: StartEnforcedRule.graceSeconds)
                else { continue }
                if run.events.contains(where: { $0.isUserAction("start_session") && $0.t > stop.t && $0.t <= deadline }) { continue }
                outcome.checkedCount += 1
                let activity = FocusPledgeKeys.activityName(sessionId: sid)
                var problems: [String] = []
                let shielded = run.shieldedApps(atT: deadline)
                if !shielded.isEmpty { problems.append("\(shielded.sorted().joined(separator: ",")) still shielded") }
                if run.isRegistered(activity, atT: deadline) { problems.append("\(activity) still monitored") }
                guard !problems.isEmpty else { continue }
                let session = run.sessions.first { $0.sessionId == sid }
                outcome.fail(
                    sid, "stopped by the user at t=\(stop.t); at t=\(deadline): " + problems.joined(separator: ", "),
                    [session?.startAction, session?.hostStarted, stop, run.shields.changes.last { $0.t <= deadline }])
            }
            return outcome
        }
    }
}
