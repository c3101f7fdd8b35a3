/// Hardened: a session the host has concluded and the server has not confirmed, as the outbox
/// (`FocusPledgeKeys.unsettled`) keeps it across process deaths.
public struct PendingSettlement: Sendable, Equatable, Codable {
    public var sessionId: String
    public var resolution: Resolution
    public var reason: String
    public var nativeEvidence: [String: String]

    public init(sessionId: String, resolution: Resolution, reason: String, nativeEvidence: [String: String]) {
        self.sessionId = sessionId
        self.resolution = resolution
        self.reason = reason
        self.nativeEvidence = nativeEvidence
    }

    public var activityName: String { FocusPledgeKeys.activityName(sessionId: sessionId) }
}
