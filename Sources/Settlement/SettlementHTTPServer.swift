import Foundation
import Hummingbird

/// The HTTP face of the settlement server: seed 000's `resolveSession` Cloud Function and its
/// session bookkeeping, on 127.0.0.1 only, on an ephemeral port.
///
/// Routes (JSON in, JSON out; bodies in `SettlementAPI`):
/// - `POST /sessions` {sessionId, durationMinutes} → 200 created|existing, 409 conflict, 400
/// - `POST /sessions/{id}/heartbeat` → 200 {lastCheckedAtUnixMillis, sessionStatus}, 404
/// - `POST /resolveSession` {sessionId, resolution, idempotencyKey, reason, nativeEvidence?, ifActive?}
///     → 200 settled|duplicate, 409 alreadyResolved, 404 unknownSession, 400 invalid
/// - `GET /sessions/{id}` → 200 {session}, 404
/// - `GET /settlements` → 200 every settlement in ledger order
/// - `GET /health` → 200
/// Every mutation is journaled (fsync) before its response is written; 503 once the journal failed.
public enum SettlementHTTPServer {
    /// Never anything else: the server is a stand-in for a cloud function, reachable from this
    /// machine's harness only.
    public static let bindHost = "127.0.0.1"

    public struct StartError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Opens the journal, binds, publishes the port, runs the stale job, and returns after SIGTERM
    /// or SIGINT once in-flight requests are done.
    public static func run(
        configuration: SettlementServerConfiguration,
        now: @escaping @Sendable () -> Date,
        onFatal: @escaping @Sendable (String) -> Void
    ) async throws {
        guard configuration.staleAfterSeconds > 0 else {
            throw StartError(description: "--stale-after-seconds must be > 0")
        }
        guard configuration.jobIntervalMillis > 0 else {
            throw StartError(description: "--job-interval-ms must be > 0")
        }
        let store: SettlementStore
        do {
            store = try SettlementStore(
                journalPath: configuration.journalPath, tracePath: configuration.tracePath,
                limits: configuration.limits, maxJournalBytes: configuration.maxJournalBytes,
                now: now, onFatal: onFatal)
        } catch { throw StartError(description: error.description) }
        if let copy = store.recovery.corruptCopyPath {
            FileHandle.standardError.write(Data(
                "settlement-server: dropped a torn last journal line (\(store.recovery.droppedTailBytes) bytes), saved to \(copy)\n".utf8))
        }

        let router = buildRouter(store: store, maxRequestBodyBytes: configuration.maxRequestBodyBytes)
        let portFilePath = configuration.portFilePath
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(bindHost, port: 0), serverName: "settlement-server"),
            onServerRunning: { channel in
                guard let port = channel.localAddress?.port else {
                    onFatal("server is running but has no local port")
                    return
                }
                guard let portFilePath else { return }
                do { try PortFile.write(port: port, to: portFilePath) } catch { onFatal(oneLine(error)) }
            }
        )

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            group.addTask {
                await runStaleJob(
                    store: store, staleAfterSeconds: configuration.staleAfterSeconds,
                    intervalMillis: configuration.jobIntervalMillis)
            }
            // The server returns on SIGTERM; the stale job only ever ends by cancellation.
            try await group.next()
            group.cancelAll()
        }
        await store.traceStopped()
    }

    /// The seed's scheduled job, on a wall-clock period; staleness itself is in device time.
    static func runStaleJob(store: SettlementStore, staleAfterSeconds: Double, intervalMillis: Int) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: .milliseconds(intervalMillis)) } catch { return }
            // A failed journal already reported itself through onFatal; keep the loop cheap.
            _ = try? await store.expireStale(staleAfterSeconds: staleAfterSeconds)
        }
    }

    // MARK: - Routes

    public static func buildRouter(
        store: SettlementStore,
        maxRequestBodyBytes: Int = SettlementServerConfiguration.defaultMaxRequestBodyBytes
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)

        router.get("health") { _, _ -> Response in
            json(.ok, SettlementAPI.HealthResponse(
                status: "ok", lastLedgerSeq: await store.lastLedgerSeq(), sessions: await store.sessionCount()))
        }

        router.post("sessions") { request, _ -> Response in
            let body: SettlementAPI.CreateSessionBody
            switch await decode(SettlementAPI.CreateSessionBody.self, from: request, maxBytes: maxRequestBodyBytes) {
            case .success(let decoded): body = decoded
            case .failure(let response): return response
            }
            do {
                switch try await store.createSession(sessionId: body.sessionId, durationMinutes: body.durationMinutes) {
                case .created(let session): return json(.ok, SettlementAPI.SessionResponse(status: "created", session: session))
                case .existing(let session): return json(.ok, SettlementAPI.SessionResponse(status: "existing", session: session))
                case .conflict(let existing):
                    return json(.conflict, SettlementAPI.SessionResponse(status: "conflict", session: existing))
                case .invalid(let problem): return errorResponse(.badRequest, "invalid", problem)
                }
            } catch { return unavailable(error) }
        }

        router.post("sessions/:id/heartbeat") { _, context -> Response in
            let sessionId = context.parameters.get("id") ?? ""
            do {
                switch try await store.heartbeat(sessionId: sessionId) {
                case .recorded(let session):
                    return json(.ok, SettlementAPI.HeartbeatResponse(
                        status: "ok", sessionId: sessionId,
                        lastCheckedAtUnixMillis: session.lastCheckedAtUnixMillis ?? session.createdAtUnixMillis,
                        sessionStatus: session.status))
                case .unknownSession: return unknownSession(sessionId)
                }
            } catch { return unavailable(error) }
        }

        router.get("sessions/:id") { _, context -> Response in
            let sessionId = context.parameters.get("id") ?? ""
            guard let session = await store.session(sessionId) else { return unknownSession(sessionId) }
            return json(.ok, SettlementAPI.SessionResponse(status: "ok", session: session))
        }

        router.get("settlements") { _, _ -> Response in
            json(.ok, SettlementAPI.SettlementsResponse(
                status: "ok", lastLedgerSeq: await store.lastLedgerSeq(), settlements: await store.allSettlements()))
        }

        router.post("resolveSession") { request, _ -> Response in
            let body: SettlementAPI.ResolveSessionBody
            switch await decode(SettlementAPI.ResolveSessionBody.self, from: request, maxBytes: maxRequestBodyBytes) {
            case .success(let decoded): body = decoded
            case .failure(let response): return response
            }
            guard let resolution = Resolution(rawValue: body.resolution) else {
                return errorResponse(.badRequest, "invalid", "resolution must be \"SUCCESS\" or \"FAILURE\", got \"\(body.resolution.prefix(32))\"")
            }
            var evidence: [String: String]?
            if let raw = body.nativeEvidence {
                evidence = raw.compactMapValues { if case .text(let value) = $0 { value } else { nil } }
            }
            let ledgerRequest = SettlementLedger.ResolveRequest(
                sessionId: body.sessionId, resolution: resolution, idempotencyKey: body.idempotencyKey,
                reason: body.reason, nativeEvidence: evidence, ifActive: body.ifActive ?? false)
            do {
                switch try await store.resolve(ledgerRequest) {
                case .settled(let settlement):
                    return json(.ok, SettlementAPI.ResolveResponse(
                        status: "settled", settlement: settlement, sessionStatus: settlement.resolution.status))
                case .duplicate(let first):
                    let current = await store.session(first.sessionId)?.status ?? first.resolution.status
                    return json(.ok, SettlementAPI.ResolveResponse(status: "duplicate", settlement: first, sessionStatus: current))
                case .alreadyResolved(let existing):
                    return json(.conflict, SettlementAPI.ResolveResponse(
                        status: "alreadyResolved", settlement: existing, sessionStatus: existing.resolution.status))
                case .unknownSession: return unknownSession(body.sessionId)
                case .invalid(let problem): return errorResponse(.badRequest, "invalid", problem)
                }
            } catch { return unavailable(error) }
        }

        return router
    }

    // MARK: - JSON helpers

    private static func json<Body: Encodable>(_ status: HTTPResponse.Status, _ body: Body) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data: Data
        do { data = try encoder.encode(body) } catch {
            preconditionFailure("response failed to encode: \(error)")
        }
        data.append(0x0A)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func errorResponse(_ status: HTTPResponse.Status, _ kind: String, _ message: String, sessionId: String? = nil) -> Response {
        json(status, SettlementAPI.ErrorResponse(status: kind, error: message, sessionId: sessionId))
    }

    private static func unknownSession(_ sessionId: String) -> Response {
        errorResponse(.notFound, "unknownSession", "no session \"\(sessionId.prefix(64))\"", sessionId: sessionId)
    }

    private static func unavailable(_ failure: any Error) -> Response {
        errorResponse(.serviceUnavailable, "unavailable", "the settlement journal failed: \(oneLine(failure))")
    }

    private enum Decoded<Body> {
        case success(Body)
        case failure(Response)
    }

    private static func decode<Body: Decodable>(
        _ type: Body.Type, from request: Request, maxBytes: Int
    ) async -> Decoded<Body> {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: maxBytes) } catch {
            return .failure(errorResponse(.contentTooLarge, "invalid", "request body is larger than \(maxBytes) bytes or unreadable"))
        }
        do {
            return .success(try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView)))
        } catch let failure as DecodingError {
            return .failure(errorResponse(.badRequest, "invalid", describe(failure)))
        } catch {
            return .failure(errorResponse(.badRequest, "invalid", "body is not valid JSON"))
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
