import HarnessKit
import History

/// Judges a FocusPledge (seed 000) run from its merged history alone: events in, verdicts out.
/// It never asks a stand-in whether it was right.
public enum FocusPledgeChecker {
    public static let name = "FocusPledge"
    /// Violation → the running host has seen it: from the extension's record of the violation to
    /// the host's first sight of it (samples left out: `unseen`, the host exited without seeing
    /// it; `suspended`, it was stopped in between, which measures the nemesis).
    public static let violationToHost = LatencySeriesDescriptor(
        name: "violation-to-host", what: "an extension recorded a violation -> the running host saw it")

    public static func check(_ history: [HistoryEvent]) -> CheckReport {
        let run = FocusPledgeRun(history)
        if let reason = run.undecidableReason { return .undecided(checker: name, reason: reason) }
        let outcomes = rules.map { $0(run) } + [CoreRules.noStoreCorrupt(run.events), CoreRules.runSettles(run.events)]
        var report = CheckReport(
            checker: name, decided: true, results: outcomes.map(\.result),
            violations: outcomes.flatMap(\.violations), latencies: [FailureDetection.measure(run)])
        let lost = lostByOS(run)
        report.lostByOS = lost.isEmpty ? nil : lost
        return report
    }

    /// Violations the user committed (iOS showed the shield) that never reached the app: every
    /// call iOS made about them was dropped, or its extension was killed before it returned. Not
    /// the system's fault — reported beside the verdict, so losing work is never silent.
    ///
    /// Also every start the host refused because the user denied Screen Time access
    /// (`UnauthorizedStart`): iOS would let no app enforce it; and every kept pledge that settled
    /// FAILURE because iOS delivered an earlier session's call late inside it.
    static func lostByOS(_ run: FocusPledgeRun) -> [InvariantViolation] {
        var out: [InvariantViolation] = UnauthorizedStart.all(in: run).map(\.listed)
        for session in run.sessions {
            guard let first = session.userViolations.first, first.unshielded,
                let revocation = RevokedShields.revocation(before: first, in: run)
            else { continue }
            out.append(RevokedShields(violation: first, revocation: revocation).listed)
        }
        for session in run.sessions {
            let lost = session.violationsLostByOS
            guard let first = lost.first else { continue }
            let calls = run.events.filter {
                $0.process == "harness" && ["callback_dropped", "callback_failed", "shield_action_lost", "callback_held"].contains($0.event)
                    && ($0.sessionIdField == session.sessionId) && $0.t >= first.t
            }
            out.append(InvariantViolation(
                invariant: "violation-lost-by-ios", subject: .init(kind: "session", id: session.sessionId),
                explanation: "\(lost.count) violation(s) shown a shield, first \(first.action["action"] ?? "?") of \(first.app ?? "?") at t=\(first.t): "
                    + "no call about it completed (\(session.maybeViolations.count) failed, "
                    + "\(calls.filter { $0.event == "callback_dropped" }.count) dropped)",
                relevantEvents: RelevantEvents.pick([first.action, first.response] + calls.prefix(4).map { Optional($0) })))
        }
        out += lateCallsThatFailedAKeptPledge(run)
        return out
    }

    /// A session the user kept that settled FAILURE only because iOS delivered an earlier
    /// session's violation call late, inside it (a held call): Apple's call carries no time of the
    /// user's act, so the app cannot tell it from an open now — the user's loss is iOS's, listed.
    static func lateCallsThatFailedAKeptPledge(_ run: FocusPledgeRun) -> [InvariantViolation] {
        run.sessions.compactMap { session in
            guard let late = session.callsOfOtherSessions.first, let settlement = session.settlements.first, settlement.isFailure,
                session.violations.isEmpty, session.maybeViolations.isEmpty, !session.hasUnshieldedUse, !session.wasStoppedByUser
            else { return nil }
            let held = run.events.last {
                $0.process == "harness" && $0.event == "callback_held" && $0.t <= late.delivered.t
                    && $0["callback"] == late.callback && $0["app"] == late.delivered["app"] && $0.sessionIdField == late.sessionId
            }
            let made = held.map { "made at t=\($0.t), \(Int((late.delivered.t - $0.t) / 60)) min before it was delivered at t=\(late.delivered.t) (\($0["rule"] ?? "held"))" }
                ?? "delivered at t=\(late.delivered.t)"
            return InvariantViolation(
                invariant: "violation-delivered-late-by-ios", subject: .init(kind: "session", id: session.sessionId),
                explanation: "settled \(settlement.summary) after iOS delivered \(session.callsOfOtherSessions.count) violation call(s) of session "
                    + "\(late.sessionId ?? "?") inside it, first \(late.callback ?? "?") for \(late.delivered["app"] ?? "?") \(made): "
                    + "the call carries no time of the user's act, so the app cannot tell it from a violation of this session",
                relevantEvents: RelevantEvents.pick([held, late.delivered, late.outcomeEvent, settlement.ledger]))
        }
    }

    /// One per `FocusPledgeInvariant`, in that order (then the core's).
    static let rules: [@Sendable (FocusPledgeRun) -> RuleOutcome] = [
        ViolationSettlesFailureRule.judge,
        CleanSessionSettlesSuccessRule.judge,
        NoDoubleSettlementRule.judge,
        NoShieldAfterSettlementRule.judge,
        FailureWhileHostDeadRule.judge,
        StaleSettlementEarnedRule.judge,
        StartEnforcedRule.judge,
        BlockedAppShieldedRule.judge,
        StopRemovesShieldsRule.judge,
        MonitoringStoppedRule.judge,
        FailureReasonRule.judge,
        ErrorReportedRule.judge,
        NoEarlySuccessRule.judge,
    ]
}
