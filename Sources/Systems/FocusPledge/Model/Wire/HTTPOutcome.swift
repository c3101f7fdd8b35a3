/// What the host makes of one `SettlementCall` (`SettlementCall.outcome(of:)`).
///
/// For `resolveSession`: `settled` = this call recorded a settlement; `duplicate` = the idempotency
/// key was seen before (its first settlement); `alreadyResolved` = `ifActive` and the session was
/// already settled (its latest settlement). For `heartbeat`: `alreadyResolved` when the server's
/// session is no longer active (e.g. its stale-session job failed it), `accepted` otherwise. For
/// `createSession`: `accepted` (created or already existing).
public enum HTTPOutcome: Sendable, Equatable {
    case settled(Resolution)
    case duplicate(Resolution)
    case alreadyResolved(Resolution)
    /// The request succeeded and settled nothing (createSession, heartbeat of an active session).
    case accepted
    case notFound
    case transportError(String)
}
