import History

/// What one rule found: how many subjects it judged and which of them broke the invariant.
public struct RuleOutcome: Sendable {
    public var invariant: String
    public var checkedCount = 0
    public var violations: [InvariantViolation] = []

    public init(_ invariant: String) {
        self.invariant = invariant
    }

    public mutating func fail(_ subject: String?, _ explanation: String, _ events: [HistoryEvent?]) {
        violations.append(InvariantViolation(
            invariant: invariant, sessionId: subject, explanation: explanation,
            relevantEvents: RelevantEvents.pick(events)))
    }

    public var result: InvariantResult {
        InvariantResult(name: invariant, passed: violations.isEmpty, checkedCount: checkedCount)
    }
}
