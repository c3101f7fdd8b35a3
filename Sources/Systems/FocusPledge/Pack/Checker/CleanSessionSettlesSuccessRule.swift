import HarnessKit
import History

extension FocusPledgeChecker {
    /// `clean-session-settles-success`: a session without completed violations whose active
    /// interval ended before the history did is settled, and its first settlement is SUCCESS — or the
    /// server's stale job's FAILURE `no_heartbeat` (Resilience 4, "user never reopens app") when no
    /// process could have kept the session alive or settled it: the host never ran with the server
    /// up for `graceSeconds` in the stale window before the job decided. Judged from the user's
    /// side: a FAILURE loses a pledge they kept. With only maybe-violations (extension killed
    /// mid-callback), a manual stop, or an earlier session's violation call that iOS delivered late
    /// inside this one (the app cannot tell it from an open now; listed in `lostByOS`), any
    /// resolution is right, but it must be settled.
    enum CleanSessionSettlesSuccessRule {
        /// Host running time, with the server up, in which a host beats (every poll, 5 s) or settles.
        static let graceSeconds = 60.0

        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.cleanSessionSettlesSuccess.rawValue, subjectKind: "session")
            for session in run.sessions where session.violations.isEmpty {
                guard let endT = session.activeEndT, endT < run.lastT else { continue }
                outcome.checkedCount += 1
                let lines = session.startEvents + [session.stopAction]
                    + (session.maybeViolations + session.callsOfOtherSessions).prefix(2).flatMap { [$0.delivered, $0.outcomeEvent] }
                guard let settlement = session.settlements.first else {
                    outcome.fail(session.sessionId, "\(describe(session)) ended at t=\(endT), never settled", lines)
                    continue
                }
                let savable = savableWindow(settlement, for: session, in: run)
                guard !isAcceptable(settlement, for: session) || savable != nil else { continue }
                outcome.fail(
                    session.sessionId, "\(describe(session)) settled \(settlement.summary)"
                        + (savable.map {
                            ", although the host ran with the server up for \(Int(graceSeconds)) s between t=\($0.from) and t=\($0.to) (the stale window): it could have kept the session alive or settled it"
                        } ?? ""),
                    lines + [
                        run.firstHostLine("settle_requested", sessionId: session.sessionId),
                        settlement.serverSettled, settlement.ledger,
                    ])
            }
            return outcome
        }

        /// For a stale job's FAILURE of a session the user kept: the stretch of the stale window
        /// before the decision (from the later of the session's start and the decision minus
        /// `staleAfterSeconds`) in which the host had run `graceSeconds` with the server up — time
        /// to beat or settle, so a process could have saved the pledge. Nil when there was none (the
        /// seed's case: the host was not running; or the job decided as the server came back).
        static func savableWindow(_ settlement: LedgerSettlement, for session: FocusSession, in run: FocusPledgeRun) -> (from: Double, to: Double)? {
            // The device concluded it clean only if the host ran it: a start it refused (denied
            // Screen Time access, lost with the host) is `start-enforced`'s to judge.
            guard settlement.isStaleJobFailure, session.hostStarted != nil, session.maybeViolations.isEmpty,
                session.callsOfOtherSessions.isEmpty, !session.wasStoppedByUser,
                session.violationsLostByOS.isEmpty, !session.hasUnshieldedUse, let decided = settlement.deviceT,
                let stale = run.runStarted?["staleAfterSeconds"].flatMap(Double.init)
            else { return nil }
            let from = max(session.startAction?.t ?? session.startT, decided - stale)
            guard let by = run.hostWithServer.deadline(after: from, seconds: graceSeconds), by <= decided else { return nil }
            return (from, by)
        }

        static func isAcceptable(_ settlement: LedgerSettlement, for session: FocusSession) -> Bool {
            if !session.maybeViolations.isEmpty || session.wasStoppedByUser || !session.violationsLostByOS.isEmpty
                || session.hasUnshieldedUse || !session.callsOfOtherSessions.isEmpty
            {
                return settlement.isSuccess || settlement.isFailure
            }
            return settlement.isSuccess || settlement.isStaleJobFailure
        }

        private static func describe(_ session: FocusSession) -> String {
            if session.wasStoppedByUser { return "session stopped by the user" }
            if !session.maybeViolations.isEmpty { return "session with only maybe-violations" }
            if !session.violationsLostByOS.isEmpty { return "session whose violations iOS lost" }
            if session.hasUnshieldedUse { return "session in which a blocked app was used unshielded" }
            if let late = session.callsOfOtherSessions.first {
                return "session into which iOS delivered session \(late.sessionId ?? "?")'s \(late.callback ?? "?") call late"
            }
            return "clean session (no violation)"
        }
    }
}
