import HarnessKit
import History

extension FocusPledgeChecker {
    /// `blocked-app-shielded` (Testing Checklist, "Open blocked app — During session, tap blocked
    /// app — iOS shield UI appears"): while a session is enforced — its start enforced (as in
    /// `start-enforced`), no violation yet, not stopped, ended or settled — a selected app the user
    /// opens shows its shield. A start refused because the user denied Screen Time access was never
    /// enforced (`UnauthorizedStart`), nor one whose tap or pick died with the host unseen
    /// (`StartEnforcedRule.lostWithTheHost`); shields iOS removed with a revocation the app could
    /// not see are not its doing (`RevokedShields`).
    enum BlockedAppShieldedRule {
        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.blockedAppShielded.rawValue, subjectKind: "session")
            // A start refused for want of Screen Time access was never enforced (UnauthorizedStart).
            let unauthorized = Set(UnauthorizedStart.all(in: run).compactMap(\.sessionId))
            // Nor was a start no process could have made: its tap, or the pick it needed, died
            // with the host and was not made again (StartEnforcedRule.lostWithTheHost).
            let lost = StartEnforcedRule.lostWithTheHost(run)
            for session in run.sessions where !unauthorized.contains(session.sessionId) && !lost.contains(session.sessionId) {
                guard let first = session.userViolations.first, let start = session.startAction,
                    let deadline = run.host.deadline(after: start.t, seconds: StartEnforcedRule.graceSeconds),
                    first.t >= deadline, first.response != nil
                else { continue }
                outcome.checkedCount += 1
                guard first.unshielded else { continue }
                // iOS removed the shields with a revoked authorization the app had no chance to see.
                if RevokedShields.revocation(before: first, in: run) != nil { continue }
                outcome.fail(
                    session.sessionId, "the user opened \(first.app ?? "?") at t=\(first.t) during the session and it was not shielded",
                    [start, session.hostStarted, run.shields.changes.last { $0.t <= first.t }, first.action, first.response])
            }
            return outcome
        }
    }
}
