/// One pledge session as the server knows it.
public struct SessionRecord: Codable, Sendable, Equatable {
    public var sessionId: String
    public var durationMinutes: Int
    public var createdAtUnixMillis: Int64
    /// The seed's `native.lastCheckedAt`: the device time of the host's latest poll (heartbeat).
    /// `nil` until the first heartbeat; the stale job then measures from `createdAtUnixMillis`.
    public var lastCheckedAtUnixMillis: Int64?
    public var status: SessionStatus
    /// Every settlement of this session, oldest first.
    public var resolutions: [SettlementRecord]

    public init(sessionId: String, durationMinutes: Int, createdAtUnixMillis: Int64) {
        self.sessionId = sessionId
        self.durationMinutes = durationMinutes
        self.createdAtUnixMillis = createdAtUnixMillis
        self.lastCheckedAtUnixMillis = nil
        self.status = .active
        self.resolutions = []
    }

    enum CodingKeys: String, CodingKey {
        case sessionId, durationMinutes, createdAtUnixMillis, lastCheckedAtUnixMillis, status, resolutions
    }

    // Written by hand so that a never-checked session says `"lastCheckedAtUnixMillis": null`
    // instead of leaving the key out: clients in other languages should not have to guess.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(durationMinutes, forKey: .durationMinutes)
        try container.encode(createdAtUnixMillis, forKey: .createdAtUnixMillis)
        try container.encode(lastCheckedAtUnixMillis, forKey: .lastCheckedAtUnixMillis)
        try container.encode(status, forKey: .status)
        try container.encode(resolutions, forKey: .resolutions)
    }
}
