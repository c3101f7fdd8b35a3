import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import FocusPledgeServer
import FocusPledge

#if canImport(Glibc)
import Glibc
#endif

/// A device clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    func now() -> Date { lock.withLock { current } }
    func advance(seconds: Double) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// Hummingbird's router called in-process, no socket — what HummingbirdTesting's `.router` mode
/// does, written here because that package also builds its live client (AsyncHTTPClient, SwiftNIO
/// SSL, BoringSSL, HTTP/2: ~700 files, a third of the test command's cold build) for nothing.
struct RouterClient: Sendable {
    struct Response {
        var status: HTTPResponse.Status
        var body: ByteBuffer
    }

    let responder: RouterResponder<BasicRequestContext>
    let logger = Logger(label: "settlement-server-tests")

    init(_ router: Router<BasicRequestContext>) { responder = router.buildResponder() }

    /// Collects the response body (a class: the writer is consumed).
    final class Collector: ResponseBodyWriter, @unchecked Sendable {
        var body = ByteBuffer()
        func write(_ buffer: ByteBuffer) async throws { var b = buffer; body.writeBuffer(&b) }
        func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws { for b in buffers { try await write(b) } }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    func execute(uri: String, method: HTTPRequest.Method, body: ByteBuffer?) async throws -> Response {
        var headers = HTTPFields()
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = BasicRequestContext(source: .init(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Hummingbird.Response
        do { response = try await responder.respond(to: request, context: context) } catch {
            response = Hummingbird.Response(status: .internalServerError)
        }
        let collector = Collector()
        try await response.body.write(collector)
        return Response(status: response.status, body: collector.body)
    }
}

/// The HTTP API, routed in-process (no socket), plus the trace it leaves.
@Suite(.timeLimit(.minutes(3))) struct SettlementHTTPServerTests {
    struct Reply {
        var status: HTTPResponse.Status
        var json: [String: Any]
    }

    static func call(_ client: RouterClient, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> Reply {
        let response = try await client.execute(uri: uri, method: method, body: body.map { ByteBuffer(string: $0) })
        let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
        return Reply(status: response.status, json: object as? [String: Any] ?? [:])
    }

    static func traceLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// The server inside the harness answers exactly the router's routes (one list for both):
    /// `:id` is one component, anything else is not found.
    @Test func theInProcessServerAnswersTheRoutersRoutes() {
        for (method, paths) in [("GET", ["/health", "/settlements", "/sessions/s-1"]), ("POST", ["/sessions", "/sessions/s-1/heartbeat", "/resolveSession"])] {
            for path in paths { #expect(SettlementHTTPServer.routed(method, path), "\(method) \(path)") }
        }
        for (method, path) in [("POST", "/health"), ("GET", "/resolveSession"), ("GET", "/sessions/a/b"), ("POST", "/sessions/s-1/heartbeats"), ("DELETE", "/sessions")] {
            #expect(!SettlementHTTPServer.routed(method, path), "\(method) \(path)")
        }
    }

    @Test func resolveSessionFollowsTheSeedsRulesOverHTTP() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
        let store = try SettlementStore(
            journalPath: dir.file("journal.jsonl"), tracePath: dir.file("trace/settlement-server.jsonl"),
            now: { clock.now() }, onFatal: { message in Issue.record("fatal: \(message)") })
        let client = RouterClient(SettlementHTTPServer.buildRouter(store: store))

        do {
            var reply = try await Self.call(client, .post, "/sessions", #"{"sessionId":"s1","durationMinutes":60}"#)
            #expect(reply.status == .ok)
            #expect(reply.json["status"] as? String == "created")

            clock.advance(seconds: 5)
            reply = try await Self.call(client, .post, "/sessions/s1/heartbeat")
            #expect(reply.status == .ok)
            #expect(reply.json["lastCheckedAtUnixMillis"] as? Int == 1_700_000_005_000)

            // The seed's literal call: nativeEvidence with an int and a null.
            clock.advance(seconds: 1)
            let failure = #"{"sessionId":"s1","resolution":"FAILURE","idempotencyKey":"flutter_s1_1700000006000","reason":"app_opened","nativeEvidence":{"timestamp":1700000006000,"appBundleId":null}}"#
            reply = try await Self.call(client, .post, "/resolveSession", failure)
            #expect(reply.status == .ok)
            #expect(reply.json["status"] as? String == "settled")
            #expect(reply.json["ledgerSeq"] as? Int == 1)

            reply = try await Self.call(client, .post, "/resolveSession", failure)
            #expect(reply.status == .ok)
            #expect(reply.json["status"] as? String == "duplicate")
            #expect(reply.json["ledgerSeq"] as? Int == 1)

            let hardened = #"{"sessionId":"s1","resolution":"SUCCESS","idempotencyKey":"h1","reason":"completed","ifActive":true}"#
            reply = try await Self.call(client, .post, "/resolveSession", hardened)
            #expect(reply.status == .conflict)
            #expect(reply.json["status"] as? String == "alreadyResolved")
            #expect(reply.json["resolution"] as? String == "FAILURE")
            #expect(reply.json["idempotencyKey"] as? String == "flutter_s1_1700000006000")

            // A fresh as-written key double-settles, and the ledger shows it.
            clock.advance(seconds: 1)
            let again = #"{"sessionId":"s1","resolution":"SUCCESS","idempotencyKey":"flutter_s1_1700000007000","reason":"completed"}"#
            reply = try await Self.call(client, .post, "/resolveSession", again)
            #expect(reply.status == .ok)
            #expect(reply.json["status"] as? String == "settled")
            #expect(reply.json["previousStatus"] as? String == "FAILURE")
            #expect(reply.json["ledgerSeq"] as? Int == 2)

            reply = try await Self.call(client, .get, "/sessions/s1")
            let session = reply.json["session"] as? [String: Any]
            #expect(session?["status"] as? String == "SUCCESS")
            #expect((session?["resolutions"] as? [Any])?.count == 2)

            reply = try await Self.call(client, .get, "/settlements")
            #expect((reply.json["settlements"] as? [Any])?.count == 2)
        }

        let settled = try Self.traceLines(dir.file("trace/settlement-server.jsonl")).filter { $0["event"] as? String == "settled" }
        #expect(settled.count == 2)
        for line in settled {
            for field in ["t", "process", "pid", "sessionId", "resolution", "reason", "idempotencyKey", "ledgerSeq"] {
                #expect(line[field] != nil, "trace line lacks \(field)")
            }
            #expect(line["process"] as? String == "settlement-server")
        }
        #expect(settled.first?["t"] as? Double == 1_700_000_006)
    }

    /// A1: the planned pledges are created as of their planned start, counted from the origin the
    /// server is given (the fixed-rate clock's anchor), not from its own first `now`, which comes a
    /// few device seconds later at 900x and moved every pledge's end (`no-early-success`). A restart
    /// with another origin keeps what the ledger says.
    @Test func plannedPledgesCountFromTheGivenOriginAndARestartKeepsThem() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plan = PlannedPledges(pledges: [
            .init(sessionId: "s-1-1", startOffsetSeconds: 120, durationMinutes: 20),
            .init(sessionId: "s-1-2", startOffsetSeconds: 1800, durationMinutes: 30),
        ])
        let origin = Date(timeIntervalSince1970: 1_700_000_000)
        let late = origin.addingTimeInterval(3.2)  // the server's first `now`
        let store = try SettlementStore(
            journalPath: dir.file("journal.jsonl"), tracePath: nil, now: { late }, onFatal: { _ in })
        #expect(await store.preCreate(plan, origin: origin) == 2)
        let ledger = await store.currentLedger()
        #expect(ledger.session("s-1-1")?.createdAtUnixMillis == 1_700_000_120_000)
        #expect(ledger.session("s-1-2")?.createdAtUnixMillis == 1_700_001_800_000)

        // The restart reads the same journal (a copy: the first store still holds its lock).
        try FileManager.default.copyItem(atPath: dir.file("journal.jsonl"), toPath: dir.file("restarted.jsonl"))
        let restarted = try SettlementStore(
            journalPath: dir.file("restarted.jsonl"), tracePath: nil, now: { late.addingTimeInterval(600) }, onFatal: { _ in })
        let more = PlannedPledges(pledges: plan.pledges + [.init(sessionId: "s-1-3", startOffsetSeconds: 3600, durationMinutes: 15)])
        #expect(await restarted.preCreate(more, origin: late.addingTimeInterval(600)) == 1)
        #expect(await restarted.currentLedger().session("s-1-3")?.createdAtUnixMillis == 1_700_003_600_000)
        // Without an origin: the server's first `now`.
        let dir2 = try TemporaryDirectory()
        defer { dir2.remove() }
        let plain = try SettlementStore(journalPath: dir2.file("journal.jsonl"), tracePath: nil, now: { late }, onFatal: { _ in })
        #expect(await plain.preCreate(plan) == 2)
        #expect(await plain.currentLedger().session("s-1-1")?.createdAtUnixMillis == 1_700_000_123_200)
    }

    @Test func badRequestsGetOneLineErrors() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try SettlementStore(
            journalPath: dir.file("journal.jsonl"), tracePath: nil, now: { Date(timeIntervalSince1970: 0) }, onFatal: { _ in })
        let client = RouterClient(SettlementHTTPServer.buildRouter(store: store, maxRequestBodyBytes: 1024))

        do {
            let cases: [(String, String, HTTPResponse.Status, String)] = [
                ("/resolveSession", "not json", .badRequest, "body is not valid JSON"),
                ("/resolveSession", #"{"sessionId":"s1"}"#, .badRequest, "missing field"),
                ("/resolveSession", #"{"sessionId":"s1","resolution":"MAYBE","idempotencyKey":"k","reason":"r"}"#, .badRequest, "resolution must be"),
                ("/resolveSession", #"{"sessionId":"s1","resolution":"FAILURE","idempotencyKey":"k","reason":"r"}"#, .notFound, "no session"),
                ("/sessions", #"{"sessionId":"s1","durationMinutes":"sixty"}"#, .badRequest, "durationMinutes"),
                ("/sessions", #"{"sessionId":"s1","durationMinutes":0}"#, .badRequest, "durationMinutes must be"),
                ("/sessions", String(repeating: " ", count: 2048), .contentTooLarge, "larger than 1024 bytes"),
            ]
            for (uri, body, status, message) in cases {
                let reply = try await Self.call(client, .post, uri, body)
                #expect(reply.status == status, "\(uri) \(body.prefix(40))")
                let error = reply.json["error"] as? String ?? ""
                #expect(error.contains(message), "\(error)")
                #expect(!error.contains("\n"))
            }
            #expect(try await Self.call(client, .get, "/sessions/nope").status == .notFound)
            #expect(try await Self.call(client, .post, "/sessions/nope/heartbeat").status == .notFound)
            #expect(try await Self.call(client, .get, "/health").status == .ok)
        }
        #expect(await store.lastLedgerSeq() == 0)
        #expect(await store.sessionCount() == 0)
    }

    @Test func journalFailureStopsAllMutationsWith503() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fatalMessages = ManualLog()
        let store = try SettlementStore(
            journalPath: dir.file("journal.jsonl"), tracePath: nil, maxJournalBytes: 120,
            now: { Date(timeIntervalSince1970: 0) }, onFatal: { fatalMessages.add($0) })
        let client = RouterClient(SettlementHTTPServer.buildRouter(store: store))
        do {
            #expect(try await Self.call(client, .post, "/sessions", #"{"sessionId":"s1","durationMinutes":60}"#).status == .ok)
            // The second record would pass the 120-byte bound.
            let reply = try await Self.call(client, .post, "/sessions", #"{"sessionId":"s2","durationMinutes":60}"#)
            #expect(reply.status == .serviceUnavailable)
            #expect(try await Self.call(client, .post, "/sessions/s1/heartbeat").status == .serviceUnavailable)
        }
        #expect(fatalMessages.all.count == 1)
        #expect(fatalMessages.all.first?.contains("120-byte limit") == true)
    }

    @Test func staleJobRunsOnItsTimerAgainstTheInjectedClock() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
        let store = try SettlementStore(
            journalPath: dir.file("journal.jsonl"), tracePath: dir.file("trace.jsonl"),
            now: { clock.now() }, onFatal: { message in Issue.record("fatal: \(message)") })
        await store.createSession(sessionId: "s1", durationMinutes: 60)
        let job = Task { await SettlementHTTPServer.runStaleJob(store: store, staleAfterSeconds: 30, intervalMillis: 5) }
        defer { job.cancel() }

        // Device time stands still: several ticks pass without expiring anything.
        try await Task.sleep(for: .milliseconds(50))
        #expect(await store.session("s1")?.status == .active)

        clock.advance(seconds: 31)
        var status = SessionStatus.active
        for _ in 0..<400 where status == .active {  // at most ~2 s
            try await Task.sleep(for: .milliseconds(5))
            status = await store.session("s1")?.status ?? .active
        }
        #expect(status == .failure)
        let settlement = await store.session("s1")?.resolutions.first
        #expect(settlement?.reason == "no_heartbeat")
        #expect(settlement?.idempotencyKey == "server_stale_s1")
        let expired = try Self.traceLines(dir.file("trace.jsonl")).filter { $0["event"] as? String == "stale-expired" }
        #expect(expired.count == 1)
        #expect(expired.first?["ledgerSeq"] as? String == "1")  // trace fields are strings (HISTORY.md §8)
    }

    /// HTTP dates (RFC 9110 §5.6.7): a fixed-width day, English names whatever the locale, seconds
    /// rounded down.
    @Test func httpDatesAreRFC9110s() {
        #expect(SettlementHTTPServer.httpDate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(SettlementHTTPServer.httpDate(Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(SettlementHTTPServer.httpDate(Date(timeIntervalSince1970: 1_771_315_200)) == "Tue, 17 Feb 2026 08:00:00 GMT")
    }

    /// The real server: binds 127.0.0.1 on an ephemeral port and publishes it atomically; its
    /// answers carry the server's name and an HTTP date of its (device) clock; an unknown path is
    /// the router's 404.
    @Test func serverBindsLoopbackAndPublishesItsPort() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let configuration = SettlementServerConfiguration(
            journalPath: dir.file("journal.jsonl"), portFilePath: dir.file("settlement-server.port"),
            tracePath: nil, staleAfterSeconds: 60)
        let server = Task {
            // RFC 9110's own example date, as the device clock.
            try await SettlementHTTPServer.run(
                configuration: configuration, now: { Date(timeIntervalSince1970: 784_111_777) },
                onFatal: { message in Issue.record("fatal: \(message)") })
        }
        defer { server.cancel() }

        var portText: String?
        for _ in 0..<500 where portText == nil {  // at most ~5 s
            portText = try? String(contentsOfFile: configuration.portFilePath!, encoding: .utf8)
            if portText == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let text = try #require(portText)
        #expect(text.hasSuffix("\n"))
        let port = try #require(UInt16(text.dropLast()))
        #expect(port > 0)
        // A blocking socket call must not sit on the cooperative pool the server's handlers need
        // (two threads on a two-core machine): run it on a thread of its own.
        let response = try await withCheckedThrowingContinuation { (c: CheckedContinuation<String, Error>) in
            Thread { c.resume(with: Result { try rawHTTPGet(port: port, path: "/health") }) }.start()
        }
        #expect(response.hasPrefix("HTTP/1.1 200"))
        #expect(response.contains(#""status":"ok""#))
        let headers = response.split(separator: "\r\n").map { $0.lowercased() }
        #expect(headers.contains("date: sun, 06 nov 1994 08:49:37 gmt"))
        #expect(headers.contains("server: settlement-server"))
        let missing = try await withCheckedThrowingContinuation { (c: CheckedContinuation<String, Error>) in
            Thread { c.resume(with: Result { try rawHTTPGet(port: port, path: "/no-such-route") }) }.start()
        }
        #expect(missing.hasPrefix("HTTP/1.1 404"))
        let temporaries = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(temporaries.isEmpty)
    }
}

final class ManualLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// A minimal blocking HTTP/1.1 GET to 127.0.0.1, with a 5 s receive timeout.
func rawHTTPGet(port: UInt16, path: String) throws -> String {
    struct SocketError: Error { var what: String }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketError(what: "socket") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw SocketError(what: "connect") }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
        throw SocketError(what: "send")
    }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    for _ in 0..<64 {  // Connection: close ends the reply well within 64 reads
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        received += chunk[..<count]
    }
    return String(decoding: received, as: UTF8.self)
}
