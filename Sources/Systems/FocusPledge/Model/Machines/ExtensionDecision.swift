/// What an extension callback did, for tests and traces (extensions keep no memory between
/// callbacks; this is only the record of the one callback a process handled).
public enum ExtensionDecision: Sendable, Equatable {
    /// Nothing to do (as-written's empty callbacks).
    case nothing
    /// Wrote a failure record; `sessionId` is the session it is bound to (nil in as-written).
    case recordedFailure(sessionId: String?)
    /// Hardened monitor: wrote `focuspledge_session_ended`.
    case markedEnded(sessionId: String)
    /// Hardened: refused, with the reason (e.g. "not_the_active_session", "already_failed").
    case ignored(reason: String)
}
