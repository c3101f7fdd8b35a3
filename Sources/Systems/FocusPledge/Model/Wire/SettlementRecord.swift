/// One settlement as the ledger recorded it. Settlements are never edited or removed: a second
/// settlement of the same session (possible only with `ifActive == false`, the seed's literal
/// Cloud Function) is a second record, so checkers can count them.
public struct SettlementRecord: Codable, Sendable, Equatable {
    /// Strictly increasing over the whole ledger, starting at 1, no gaps.
    public var ledgerSeq: UInt64
    public var sessionId: String
    public var resolution: Resolution
    public var reason: String
    public var idempotencyKey: String
    public var nativeEvidence: [String: String]?
    public var ifActive: Bool
    public var origin: SettlementOrigin
    /// The session's status just before this settlement: `ACTIVE` for a first settlement, anything
    /// else marks a double settlement.
    public var previousStatus: SessionStatus
    public var settledAtUnixMillis: Int64

    public init(
        ledgerSeq: UInt64, sessionId: String, resolution: Resolution, reason: String,
        idempotencyKey: String, nativeEvidence: [String: String]?, ifActive: Bool,
        origin: SettlementOrigin, previousStatus: SessionStatus, settledAtUnixMillis: Int64
    ) {
        self.ledgerSeq = ledgerSeq
        self.sessionId = sessionId
        self.resolution = resolution
        self.reason = reason
        self.idempotencyKey = idempotencyKey
        self.nativeEvidence = nativeEvidence
        self.ifActive = ifActive
        self.origin = origin
        self.previousStatus = previousStatus
        self.settledAtUnixMillis = settledAtUnixMillis
    }
}
