import Foundation

/// The JSON bodies of the settlement server's HTTP API, one definition for the server that writes
/// them and the host that reads them (`SettlementCall`). The resolve body is `ResolveSessionRequest`. Times are
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

    /// `POST /sessions` → `{"status": "created"|"existing"|"conflict", "session": {...}}`
    /// `GET /sessions/{id}` → `{"status": "ok", "session": {...}}`
    public struct SessionResponse: Codable, Sendable {
        public var status: String
        public var session: SessionRecord

        public init(status: String, session: SessionRecord) {
            self.status = status
            self.session = session
        }
    }

    /// `POST /sessions/{id}/heartbeat` → 200
    public struct HeartbeatResponse: Codable, Sendable {
        public var status: String
        public var sessionId: String
        public var lastCheckedAtUnixMillis: Int64
        public var sessionStatus: SessionStatus

        public init(status: String, sessionId: String, lastCheckedAtUnixMillis: Int64, sessionStatus: SessionStatus) {
            self.status = status
            self.sessionId = sessionId
            self.lastCheckedAtUnixMillis = lastCheckedAtUnixMillis
            self.sessionStatus = sessionStatus
        }
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

        public init(status: String, settlement: SettlementRecord, sessionStatus: SessionStatus) {
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

        public init(status: String, lastLedgerSeq: UInt64, settlements: [SettlementRecord]) {
            self.status = status
            self.lastLedgerSeq = lastLedgerSeq
            self.settlements = settlements
        }
    }

    /// `GET /health` → 200
    public struct HealthResponse: Codable, Sendable {
        public var status: String
        public var lastLedgerSeq: UInt64
        public var sessions: Int

        public init(status: String, lastLedgerSeq: UInt64, sessions: Int) {
            self.status = status
            self.lastLedgerSeq = lastLedgerSeq
            self.sessions = sessions
        }
    }

    /// Every 4xx/5xx: `{"status": "invalid"|"unknownSession"|"unavailable"|..., "error": "<one line>"}`
    public struct ErrorResponse: Codable, Sendable {
        public var status: String
        public var error: String
        public var sessionId: String?

        public init(status: String, error: String, sessionId: String?) {
            self.status = status
            self.error = error
            self.sessionId = sessionId
        }
    }
}
