import FocusPledge
/// One line of the settlement journal: a fact the ledger has accepted. Replaying the records in
/// order through `SettlementLedger.apply(_:)` rebuilds the ledger exactly.
///
/// Wire form (one JSON object per line, `"v": 1`):
/// ```
/// {"v":1,"type":"created","sessionId":"s1","durationMinutes":60,"atUnixMillis":1700000000000}
/// {"v":1,"type":"heartbeat","sessionId":"s1","atUnixMillis":1700000005000}
/// {"v":1,"type":"settled","settlement":{"ledgerSeq":1,"sessionId":"s1",...}}
/// ```
public enum JournalRecord: Codable, Sendable, Equatable {
    case created(sessionId: String, durationMinutes: Int, atUnixMillis: Int64)
    case heartbeat(sessionId: String, atUnixMillis: Int64)
    case settled(SettlementRecord)

    public static let formatVersion = 1

    enum CodingKeys: String, CodingKey {
        case v, type, sessionId, durationMinutes, atUnixMillis, settlement
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .v)
        guard version == Self.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .v, in: container, debugDescription: "unsupported journal format version \(version)")
        }
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "created":
            self = .created(
                sessionId: try container.decode(String.self, forKey: .sessionId),
                durationMinutes: try container.decode(Int.self, forKey: .durationMinutes),
                atUnixMillis: try container.decode(Int64.self, forKey: .atUnixMillis))
        case "heartbeat":
            self = .heartbeat(
                sessionId: try container.decode(String.self, forKey: .sessionId),
                atUnixMillis: try container.decode(Int64.self, forKey: .atUnixMillis))
        case "settled":
            self = .settled(try container.decode(SettlementRecord.self, forKey: .settlement))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown journal record type \"\(type)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .v)
        switch self {
        case .created(let sessionId, let durationMinutes, let atUnixMillis):
            try container.encode("created", forKey: .type)
            try container.encode(sessionId, forKey: .sessionId)
            try container.encode(durationMinutes, forKey: .durationMinutes)
            try container.encode(atUnixMillis, forKey: .atUnixMillis)
        case .heartbeat(let sessionId, let atUnixMillis):
            try container.encode("heartbeat", forKey: .type)
            try container.encode(sessionId, forKey: .sessionId)
            try container.encode(atUnixMillis, forKey: .atUnixMillis)
        case .settled(let settlement):
            try container.encode("settled", forKey: .type)
            try container.encode(settlement, forKey: .settlement)
        }
    }
}
