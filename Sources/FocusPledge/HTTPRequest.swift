/// A call the host makes to the settlement server. The shell performs it and answers with
/// `HostApp.Event.httpResult(requestId:_:)`, always exactly once per request id (a timeout or a
/// dropped connection is `.transportError`) — unless the host process dies first.
public enum HTTPRequest: Sendable, Equatable {
    /// Creates the server-side session (seed: implied by "server-authoritative settlement";
    /// the session id is chosen by the client, so the call is idempotent).
    case createSession(sessionId: String, durationMinutes: Int)
    /// Reports that the host still watches the session (seed: "stale `native.lastCheckedAt`").
    case heartbeat(sessionId: String)
    /// Seed: `FirebaseFunctions.instance.httpsCallable('resolveSession')`.
    case resolveSession(ResolveSessionRequest)
}

/// The body of the seed's `resolveSession` callable.
public struct ResolveSessionRequest: Sendable, Equatable, Codable {
    public var sessionId: String
    public var resolution: Resolution
    public var idempotencyKey: String
    public var reason: String
    public var nativeEvidence: [String: String]
    /// true = the server must refuse (answer `alreadyResolved`) when the session is no longer
    /// active. The seed's callable has no such flag (as-written sends false).
    public var ifActive: Bool

    public init(
        sessionId: String, resolution: Resolution, idempotencyKey: String, reason: String,
        nativeEvidence: [String: String], ifActive: Bool
    ) {
        self.sessionId = sessionId
        self.resolution = resolution
        self.idempotencyKey = idempotencyKey
        self.reason = reason
        self.nativeEvidence = nativeEvidence
        self.ifActive = ifActive
    }
}
