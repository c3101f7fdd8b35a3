import FocusPledge
import Foundation

/// One line of the settlement server's trace, before it is written: an event name and flat
/// string fields (HISTORY.md §8). `event` is one of: `started`, `journal-compacted`, `journal-tail-dropped`, `created`,
/// `heartbeat`, `settled`, `duplicate`, `rejected`, `stale-expired`, `stopped`. Checkers read the
/// `settled`, `created` and `heartbeat` lines.
public struct ServerTraceEvent: Sendable, Equatable {
    public var event: String
    public var fields: [String: String]

    public init(_ event: String, _ fields: [String: String] = [:]) {
        self.event = event
        self.fields = fields
    }

    public subscript(_ key: String) -> String? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    static func settlement(_ event: String, _ s: SettlementRecord, sessionStatus: SessionStatus?) -> ServerTraceEvent {
        var e = ServerTraceEvent(event, [
            "sessionId": s.sessionId, "resolution": s.resolution.rawValue, "reason": s.reason,
            "idempotencyKey": s.idempotencyKey, "ledgerSeq": String(s.ledgerSeq), "ifActive": String(s.ifActive),
            "origin": s.origin.rawValue, "previousStatus": s.previousStatus.rawValue,
        ])
        e["sessionStatus"] = sessionStatus?.rawValue
        e["nativeEvidence"] = s.nativeEvidence.map { json($0) }
        return e
    }

    static func rejected(_ why: String, detail: String? = nil) -> ServerTraceEvent {
        var e = ServerTraceEvent("rejected", ["why": why])
        e["detail"] = detail
        return e
    }

    /// A flat trace line holds strings only: nested evidence is kept as its JSON text.
    static func json(_ evidence: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(evidence)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
