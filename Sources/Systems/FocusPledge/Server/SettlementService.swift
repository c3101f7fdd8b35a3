import FocusPledge
import Foundation

/// The settlement server's whole HTTP API as a pure function over the ledger: a request in, the
/// reply, the journal records that must be durable before the reply is sent, and the trace lines.
/// `SettlementStore` runs it under its actor with durability; `SettlementHTTPServer` is only the
/// transport; tests run it in memory (the FocusPledge rig), so every caller gets the same answers.
///
/// Routes (JSON in, JSON out; bodies in `SettlementAPI` / `ResolveSessionRequest`):
/// - `POST /sessions` {sessionId, durationMinutes} → 200 created|existing, 409 conflict, 400
/// - `POST /sessions/{id}/heartbeat` → 200 {lastCheckedAtUnixMillis, sessionStatus}, 404
/// - `POST /resolveSession` {sessionId, resolution, idempotencyKey, reason, nativeEvidence?, ifActive?}
///     → 200 settled|duplicate, 409 alreadyResolved, 404 unknownSession, 400 invalid
/// - `GET /sessions/{id}` → 200 {session}, 404
/// - `GET /settlements` → 200 every settlement in ledger order
/// - `GET /health` → 200
/// Anything else → 404 `notFound`.
public enum SettlementService {
    public struct Reply: Sendable, Equatable {
        public var status: Int
        public var body: Data
    }

    public struct Step: Sendable {
        public var reply: Reply
        public var records: [JournalRecord]
        public var trace: [ServerTraceEvent]
    }

    /// Routes one request. `body` is the whole request body (the transport bounds its size).
    public static func handle(
        method: String, path: String, body: Data?, ledger: inout SettlementLedger, now: Date
    ) -> Step {
        let parts = path.split(separator: "?", maxSplits: 1).first.map {
            $0.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
        } ?? []
        switch (method, parts.count, parts.first) {
        case ("GET", 1, "health"):
            return read(200, SettlementAPI.HealthResponse(
                status: "ok", lastLedgerSeq: ledger.lastLedgerSeq, sessions: ledger.sessions.count))
        case ("GET", 1, "settlements"):
            return read(200, SettlementAPI.SettlementsResponse(
                status: "ok", lastLedgerSeq: ledger.lastLedgerSeq, settlements: ledger.allSettlements))
        case ("GET", 2, "sessions"):
            guard let session = ledger.session(parts[1]) else { return read(unknownSession(parts[1])) }
            return read(200, SettlementAPI.SessionResponse(status: "ok", session: session))
        case ("POST", 1, "sessions"):
            switch decode(SettlementAPI.CreateSessionBody.self, body) {
            case .failure(let reply): return Step(reply: reply, records: [], trace: [])
            case .success(let request): return createSession(request, ledger: &ledger, now: now)
            }
        case ("POST", 3, "sessions") where parts[2] == "heartbeat":
            return heartbeat(parts[1], ledger: &ledger, now: now)
        case ("POST", 1, "resolveSession"):
            switch decode(ResolveSessionRequest.self, body) {
            case .failure(let reply): return Step(reply: reply, records: [], trace: [])
            case .success(let request): return resolve(request, ledger: &ledger, now: now)
            }
        default:
            return read(error(404, "notFound", "no route \(method) \(path.prefix(100))"))
        }
    }

    /// One tick of the seed's server-side scheduled job.
    public static func expireStale(ledger: inout SettlementLedger, now: Date, staleAfterSeconds: Double) -> (records: [JournalRecord], trace: [ServerTraceEvent]) {
        let step = ledger.expireStale(now: now, staleAfterSeconds: staleAfterSeconds)
        let trace = step.outcome.map {
            ServerTraceEvent.settlement("stale-expired", $0, sessionStatus: ledger.session($0.sessionId)?.status)
        }
        return (step.records, trace)
    }

    // MARK: - Operations

    static func createSession(_ body: SettlementAPI.CreateSessionBody, ledger: inout SettlementLedger, now: Date) -> Step {
        let step = ledger.createSession(sessionId: body.sessionId, durationMinutes: body.durationMinutes, now: now)
        var event: ServerTraceEvent
        let reply: Reply
        switch step.outcome {
        case .created(let session):
            event = ServerTraceEvent("created", ["sessionStatus": session.status.rawValue])
            reply = encode(200, SettlementAPI.SessionResponse(status: "created", session: session))
        case .existing(let session):
            event = ServerTraceEvent("duplicate", ["sessionStatus": session.status.rawValue])
            reply = encode(200, SettlementAPI.SessionResponse(status: "existing", session: session))
        case .conflict(let existing):
            event = .rejected("conflict", detail: "session exists with durationMinutes \(existing.durationMinutes)")
            reply = encode(409, SettlementAPI.SessionResponse(status: "conflict", session: existing))
        case .invalid(let problem):
            event = .rejected("invalid", detail: problem)
            reply = error(400, "invalid", problem)
        }
        event["sessionId"] = body.sessionId
        event["durationMinutes"] = String(body.durationMinutes)
        return Step(reply: reply, records: step.records, trace: [event])
    }

    static func heartbeat(_ sessionId: String, ledger: inout SettlementLedger, now: Date) -> Step {
        let step = ledger.heartbeat(sessionId: sessionId, now: now)
        switch step.outcome {
        case .recorded(let session):
            var event = ServerTraceEvent("heartbeat", ["sessionId": sessionId, "sessionStatus": session.status.rawValue])
            event["lastCheckedAtUnixMillis"] = session.lastCheckedAtUnixMillis.map { String($0) }
            let reply = encode(200, SettlementAPI.HeartbeatResponse(
                status: "ok", sessionId: sessionId,
                lastCheckedAtUnixMillis: session.lastCheckedAtUnixMillis ?? session.createdAtUnixMillis,
                sessionStatus: session.status))
            return Step(reply: reply, records: step.records, trace: [event])
        case .unknownSession:
            var event = ServerTraceEvent.rejected("unknownSession", detail: "heartbeat")
            event["sessionId"] = sessionId
            return Step(reply: unknownSession(sessionId), records: step.records, trace: [event])
        }
    }

    static func resolve(_ request: ResolveSessionRequest, ledger: inout SettlementLedger, now: Date) -> Step {
        let step = ledger.resolve(request, now: now)
        let event: ServerTraceEvent
        let reply: Reply
        switch step.outcome {
        case .settled(let settlement):
            event = .settlement("settled", settlement, sessionStatus: ledger.session(settlement.sessionId)?.status)
            reply = encode(200, SettlementAPI.ResolveResponse(
                status: "settled", settlement: settlement, sessionStatus: settlement.resolution.status))
        case .duplicate(let first):
            // The first outcome, as the client is told; the repeat's own resolution goes in detail.
            var e = ServerTraceEvent.settlement("duplicate", first, sessionStatus: ledger.session(first.sessionId)?.status)
            e["detail"] = "repeat asked \(request.resolution.rawValue) for session \(request.sessionId)"
            event = e
            let current = ledger.session(first.sessionId)?.status ?? first.resolution.status
            reply = encode(200, SettlementAPI.ResolveResponse(status: "duplicate", settlement: first, sessionStatus: current))
        case .alreadyResolved(let existing):
            var e = rejected(request, why: "alreadyResolved")
            e["ledgerSeq"] = String(existing.ledgerSeq)
            e["sessionStatus"] = ledger.session(request.sessionId)?.status.rawValue
            e["detail"] = "settled \(existing.resolution.rawValue) (\(existing.reason)) at ledgerSeq \(existing.ledgerSeq)"
            event = e
            reply = encode(409, SettlementAPI.ResolveResponse(
                status: "alreadyResolved", settlement: existing, sessionStatus: existing.resolution.status))
        case .unknownSession:
            event = rejected(request, why: "unknownSession")
            reply = unknownSession(request.sessionId)
        case .invalid(let problem):
            var e = rejected(request, why: "invalid")
            e["detail"] = problem
            event = e
            reply = error(400, "invalid", problem)
        }
        return Step(reply: reply, records: step.records, trace: [event])
    }

    static func rejected(_ request: ResolveSessionRequest, why: String) -> ServerTraceEvent {
        var e = ServerTraceEvent.rejected(why)
        e["sessionId"] = request.sessionId
        e["resolution"] = request.resolution.rawValue
        e["reason"] = request.reason
        e["idempotencyKey"] = request.idempotencyKey
        e["ifActive"] = String(request.ifActive)
        e["nativeEvidence"] = request.nativeEvidence.map { ServerTraceEvent.json($0) }
        return e
    }

    // MARK: - JSON

    static func read(_ reply: Reply) -> Step { Step(reply: reply, records: [], trace: []) }

    static func read<Body: Encodable>(_ status: Int, _ body: Body) -> Step { read(encode(status, body)) }

    public static func encode<Body: Encodable>(_ status: Int, _ body: Body) -> Reply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data: Data
        do { data = try encoder.encode(body) } catch {
            preconditionFailure("response failed to encode: \(error)")
        }
        data.append(0x0A)
        return Reply(status: status, body: data)
    }

    public static func error(_ status: Int, _ kind: String, _ message: String, sessionId: String? = nil) -> Reply {
        encode(status, SettlementAPI.ErrorResponse(status: kind, error: message, sessionId: sessionId))
    }

    static func unknownSession(_ sessionId: String) -> Reply {
        error(404, "unknownSession", "no session \"\(sessionId.prefix(64))\"", sessionId: sessionId)
    }

    enum Decoded<Body> {
        case success(Body)
        case failure(Reply)
    }

    static func decode<Body: Decodable>(_ type: Body.Type, _ body: Data?) -> Decoded<Body> {
        guard let body, !body.isEmpty else { return .failure(error(400, "invalid", "request body is empty")) }
        do {
            return .success(try JSONDecoder().decode(Body.self, from: body))
        } catch let failure as DecodingError {
            return .failure(error(400, "invalid", describe(failure)))
        } catch {
            return .failure(Self.error(400, "invalid", "body is not valid JSON"))
        }
    }

    /// A one-line reason a client can act on, instead of DecodingError's multi-line dump.
    static func describe(_ failure: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch failure {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "missing field \"\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)\""
        case .typeMismatch(let expected, let context):
            return "field \"\(path(context.codingPath))\" should be \(expected)"
        case .valueNotFound(let expected, let context):
            return "field \"\(path(context.codingPath))\" is null, should be \(expected)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "body is not valid JSON"
                : "field \"\(path(context.codingPath))\": \(context.debugDescription)"
        @unknown default:
            return "body does not match the expected JSON"
        }
    }
}
