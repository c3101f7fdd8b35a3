import History

/// One broken promise: which invariant, about what, why, and the history lines that show it.
public struct InvariantViolation: Codable, Equatable, Sendable {
    /// What a violation is about, in the pack's own terms: a session, a grant, a tap, a
    /// notification id (`kind`), and which one (`id`).
    public struct Subject: Codable, Equatable, Sendable, CustomStringConvertible {
        public var kind: String
        public var id: String

        public init(kind: String, id: String) {
            self.kind = kind
            self.id = id
        }

        public var description: String { "\(kind) \(id)" }
    }

    public var invariant: String
    /// Nil when the invariant is about the run as a whole (a quarantined store file).
    public var subject: Subject?
    public var explanation: String
    /// At most `RelevantEvents.maxCount` lines, ordered by `mono`.
    public var relevantEvents: [HistoryEvent]
    /// What led to it, each line with its place in `history.jsonl` (`CauseChain`); set when a
    /// run or `harness check` judges a whole history, nil from a checker called on its own.
    public var chain: [ChainLine]?

    public init(invariant: String, subject: Subject?, explanation: String, relevantEvents: [HistoryEvent]) {
        self.invariant = invariant
        self.subject = subject
        self.explanation = explanation
        self.relevantEvents = relevantEvents
    }

    /// "session S3", or "the run".
    public var subjectDescription: String { subject?.description ?? "the run" }
}
