/// Upper bounds on everything the ledger stores. A request past a bound is refused with a clear
/// message (HTTP 400); nothing grows without limit.
public struct SettlementLimits: Sendable, Equatable {
    public var maxSessions: Int
    public var maxSettlementsTotal: Int
    public var maxSettlementsPerSession: Int
    /// Session ids and idempotency keys, in UTF-8 bytes.
    public var maxIdentifierBytes: Int
    public var maxReasonBytes: Int
    public var maxEvidenceEntries: Int
    public var maxEvidenceValueBytes: Int
    /// A DeviceActivity interval is at most one week; a pledge session cannot be longer.
    public var maxDurationMinutes: Int

    public init(
        maxSessions: Int = 10_000,
        maxSettlementsTotal: Int = 100_000,
        maxSettlementsPerSession: Int = 64,
        maxIdentifierBytes: Int = 256,
        maxReasonBytes: Int = 256,
        maxEvidenceEntries: Int = 16,
        maxEvidenceValueBytes: Int = 512,
        maxDurationMinutes: Int = 7 * 24 * 60
    ) {
        self.maxSessions = maxSessions
        self.maxSettlementsTotal = maxSettlementsTotal
        self.maxSettlementsPerSession = maxSettlementsPerSession
        self.maxIdentifierBytes = maxIdentifierBytes
        self.maxReasonBytes = maxReasonBytes
        self.maxEvidenceEntries = maxEvidenceEntries
        self.maxEvidenceValueBytes = maxEvidenceValueBytes
        self.maxDurationMinutes = maxDurationMinutes
    }

    public static let standard = SettlementLimits()
}
