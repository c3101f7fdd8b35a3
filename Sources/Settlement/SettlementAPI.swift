import Foundation

/// The JSON bodies of the settlement server's HTTP API (see `SettlementHTTPServer`). Times are
/// integral device milliseconds since 1970 (`...UnixMillis`).
public enum SettlementAPI {
    /// `POST /sessions`
    public struct CreateSessionBody: Codable, Sendable {
        public var sessionId: String
        public var durationMinutes: Int
        public init(sessionId: String, durationMinutes: Int) {
            self.sessionId = sessionId
            self.durationMinutes = durationMinutes
        }
    }

    /// `POST /resolveSession` — the seed's callable, field for field; `ifActive` is the hardened
    /// client's addition and defaults to false (the seed's literal function).
    public struct ResolveSessionBody: Codable, Sendable {
        public var sessionId: String
        public var resolution: String
        public var idempotencyKey: String
        public var reason: String
        /// The seed sends `{"timestamp": <int or null>, "appBundleId": <string or null>}`. Strings,
        /// numbers and booleans are kept as their JSON text; nulls are left out.
        public var nativeEvidence: [String: EvidenceValue]?
        public var ifActive: Bool?

        public init(
            sessionId: String, resolution: String, idempotencyKey: String, reason: String,
            nativeEvidence: [String: EvidenceValue]? = nil, ifActive: Bool? = nil
        ) {
            self.sessionId = sessionId
            self.resolution = resolution
            self.idempotencyKey = idempotencyKey
            self.reason = reason
            self.nativeEvidence = nativeEvidence
            self.ifActive = ifActive
        }
    }

    /// One scalar JSON value of `nativeEvidence`.
    public enum EvidenceValue: Codable, Sendable, Equatable {
        case text(String)
        case null

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null; return }
            if let value = try? container.decode(String.self) { self = .text(value); return }
            if let value = try? container.decode(Bool.self) { self = .text(value ? "true" : "false"); return }
            if let value = try? container.decode(Int64.self) { self = .text(String(value)); return }
            if let value = try? container.decode(Double.self) { self = .text(String(value)); return }
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "nativeEvidence values must be strings, numbers, booleans or null")
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let value): try container.encode(value)
            case .null: try container.encodeNil()
            }
        }
    }

    /// `POST /sessions` → `{"status": "created"|"existing"|"conflict", "session": {...}}`
    /// `GET /sessions/{id}` → `{"status": "ok", "session": {...}}`
    public struct SessionResponse: Codable, Sendable {
        public var status: String
        public var session: SessionRecord
    }

    /// `POST /sessions/{id}/heartbeat` → 200
    public struct HeartbeatResponse: Codable, Sendable {
        public var status: String
        public var sessionId: String
        public var lastCheckedAtUnixMillis: Int64
        public var sessionStatus: SessionStatus
    }

    /// `POST /resolveSession` → 200 `settled` (a new settlement) or `duplicate` (the key's first
    /// settlement), 409 `alreadyResolved` (the session's latest settlement). The settlement fields
    /// describe that settlement, not the request; `sessionStatus` is the session's status now.
    public struct ResolveResponse: Codable, Sendable {
        public var status: String
        public var sessionId: String
        public var resolution: Resolution
        public var reason: String
        public var idempotencyKey: String
        public var ledgerSeq: UInt64
        public var settledAtUnixMillis: Int64
        public var origin: SettlementOrigin
        public var previousStatus: SessionStatus
        public var sessionStatus: SessionStatus

        init(status: String, settlement: SettlementRecord, sessionStatus: SessionStatus) {
            self.status = status
            self.sessionId = settlement.sessionId
            self.resolution = settlement.resolution
            self.reason = settlement.reason
            self.idempotencyKey = settlement.idempotencyKey
            self.ledgerSeq = settlement.ledgerSeq
            self.settledAtUnixMillis = settlement.settledAtUnixMillis
            self.origin = settlement.origin
            self.previousStatus = settlement.previousStatus
            self.sessionStatus = sessionStatus
        }
    }

    /// `GET /settlements` → every settlement in ledger order.
    public struct SettlementsResponse: Codable, Sendable {
        public var status: String
        public var lastLedgerSeq: UInt64
        public var settlements: [SettlementRecord]
    }

    /// `GET /health` → 200
    public struct HealthResponse: Codable, Sendable {
        public var status: String
        public var lastLedgerSeq: UInt64
        public var sessions: Int
    }

    /// Every 4xx/5xx: `{"status": "invalid"|"unknownSession"|"unavailable"|..., "error": "<one line>"}`
    public struct ErrorResponse: Codable, Sendable {
        public var status: String
        public var error: String
        public var sessionId: String?
    }
}
