import History

/// One broken promise: which invariant, which session, why, and the history lines that show it.
public struct InvariantViolation: Codable, Equatable, Sendable {
    public var invariant: String
    /// Nil when the invariant is about the run, not a session (a quarantined store file).
    public var sessionId: String?
    public var explanation: String
    /// At most `RelevantEvents.maxCount` lines, ordered by `mono`.
    public var relevantEvents: [HistoryEvent]

    public init(invariant: String, sessionId: String?, explanation: String, relevantEvents: [HistoryEvent]) {
        self.invariant = invariant
        self.sessionId = sessionId
        self.explanation = explanation
        self.relevantEvents = relevantEvents
    }
}
