/// The seed's session states as the server stores them. `ACTIVE` until the first settlement; the
/// status of a settled session is the resolution of its LATEST settlement (the seed's Cloud Function
/// overwrites it when a second settlement with a fresh idempotency key arrives).
public enum SessionStatus: String, Codable, Sendable, Equatable {
    case active = "ACTIVE"
    case success = "SUCCESS"
    case failure = "FAILURE"
}

/// What a client asks `resolveSession` for.
public enum Resolution: String, Codable, Sendable, Equatable, CaseIterable {
    case success = "SUCCESS"
    case failure = "FAILURE"

    public var status: SessionStatus {
        switch self {
        case .success: return .success
        case .failure: return .failure
        }
    }
}

/// Who asked for a settlement: a client through `POST /resolveSession`, or the server's own
/// scheduled stale-session job (seed 000, "No Heartbeat (Stale Session)").
public enum SettlementOrigin: String, Codable, Sendable, Equatable {
    case client
    case staleJob
}
