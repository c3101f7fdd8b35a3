import History

/// What one rule found: how many subjects it judged and which of them broke the invariant.
public struct RuleOutcome: Sendable {
    public var invariant: String
    /// What the rule judges one by one, in the pack's terms ("session", "grant", "tap"); nil for
    /// a rule about the run as a whole.
    public var subjectKind: String?
    public var checkedCount = 0
    public var violations: [InvariantViolation] = []

    public init(_ invariant: String, subjectKind: String? = nil) {
        self.invariant = invariant
        self.subjectKind = subjectKind
    }

    /// `id` names the subject (of `subjectKind`); nil = the run as a whole.
    public mutating func fail(_ id: String?, _ explanation: String, _ events: [HistoryEvent?]) {
        var subject: InvariantViolation.Subject?
        if let subjectKind, let id { subject = InvariantViolation.Subject(kind: subjectKind, id: id) }
        violations.append(InvariantViolation(
            invariant: invariant, subject: subject, explanation: explanation,
            relevantEvents: RelevantEvents.pick(events)))
    }

    public var result: InvariantResult {
        InvariantResult(name: invariant, passed: violations.isEmpty, checkedCount: checkedCount)
    }
}
