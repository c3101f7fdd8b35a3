import History

extension FocusPledgeChecker {
    /// What one rule found: how many subjects it judged and which of them broke the invariant.
    struct RuleOutcome: Sendable {
        var invariant: FocusPledgeInvariant
        var checkedCount = 0
        var violations: [InvariantViolation] = []

        init(_ invariant: FocusPledgeInvariant) {
            self.invariant = invariant
        }

        mutating func fail(_ sessionId: String?, _ explanation: String, _ events: [HistoryEvent?]) {
            violations.append(InvariantViolation(
                invariant: invariant.rawValue, sessionId: sessionId, explanation: explanation,
                relevantEvents: RelevantEvents.pick(events)))
        }

        var result: InvariantResult {
            InvariantResult(name: invariant.rawValue, passed: violations.isEmpty, checkedCount: checkedCount)
        }
    }
}
