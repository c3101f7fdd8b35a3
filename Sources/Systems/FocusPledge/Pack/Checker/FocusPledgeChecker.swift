import HarnessKit
import History

/// Judges a FocusPledge (seed 000) run from its merged history alone: events in, verdicts out.
/// It never asks a stand-in whether it was right.
public enum FocusPledgeChecker {
    public static let name = "FocusPledge"

    public static func check(_ history: [HistoryEvent]) -> CheckReport {
        let run = FocusPledgeRun(history)
        if let reason = run.undecidableReason { return .undecided(checker: name, reason: reason) }
        let outcomes = rules.map { $0(run) } + [CoreRules.noStoreCorrupt(run.events), CoreRules.runSettles(run.events)]
        return CheckReport(
            checker: name, decided: true, results: outcomes.map(\.result),
            violations: outcomes.flatMap(\.violations), detectionLatency: FailureDetection.measure(run))
    }

    /// One per `FocusPledgeInvariant`, in that order (then the core's).
    static let rules: [@Sendable (FocusPledgeRun) -> RuleOutcome] = [
        ViolationSettlesFailureRule.judge,
        CleanSessionSettlesSuccessRule.judge,
        NoDoubleSettlementRule.judge,
        NoShieldAfterSettlementRule.judge,
        FailureWhileHostDeadRule.judge,
        StaleSettlementEarnedRule.judge,
    ]
}
