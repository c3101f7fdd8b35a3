import AppGroup
import FocusPledge
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The HTTP face of the settlement server: seed 000's `resolveSession` Cloud Function and its
/// session bookkeeping, on 127.0.0.1 only, on an ephemeral port.
///
/// The routes and their answers are `SettlementService`'s; this type is only the transport. Every
/// mutation is journaled (fsync) before its response is written; 503 once the journal failed.
public enum SettlementHTTPServer {
    /// Never anything else: the server is a stand-in for a cloud function, reachable from this
    /// machine's harness only.
    public static let bindHost = "127.0.0.1"

    public struct StartError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Stepped virtual time (PROTOCOL.md §9): the server observes clock moves on `center` and
    /// reports through `channel`; its stale job then runs at each move instead of on a timer.
    public struct SteppedTime: Sendable {
        public var center: DarwinNotificationCenter
        public var channel: SchedulerChannel
        public init(center: DarwinNotificationCenter, channel: SchedulerChannel) {
            self.center = center
            self.channel = channel
        }
    }

    /// Opens the journal, binds, publishes the port, runs the stale job, and returns after SIGTERM
    /// or SIGINT once in-flight requests are done.
    public static func run(
        configuration: SettlementServerConfiguration,
        now: @escaping @Sendable () -> Date,
        stepped: SteppedTime? = nil,
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
                journalFsync: configuration.journalFsync, now: now, onFatal: onFatal)
        } catch { throw StartError(description: error.description) }
        if let copy = store.recovery.corruptCopyPath {
            FileHandle.standardError.write(Data(
                "settlement-server: dropped a torn last journal line (\(store.recovery.droppedTailBytes) bytes), saved to \(copy)\n".utf8))
        }
        // Every task of the server from here on, the store's actor among them, runs on its one
        // event loop: a request is read, handled and answered on one thread (`EventLoopExecutor`).
        // The loop's thread starts here, after the journal is open and `started` traced.
        try await withTaskExecutorPreference(Self.executor) {
            try await serve(store: store, configuration: configuration, now: now, stepped: stepped, onFatal: onFatal)
        }
    }

    static func serve(
        store: SettlementStore,
        configuration: SettlementServerConfiguration,
        now: @escaping @Sendable () -> Date,
        stepped: SteppedTime?,
        onFatal: @escaping @Sendable (String) -> Void
    ) async throws {
        if let pledges = configuration.pledges { store.preCreate(pledges, origin: configuration.pledgesOrigin) }

        // Hummingbird's HTTP/1 server and router, run without its `Application`: that one, at every
        // start, builds a date cache through Foundation's Calendar and names its services by
        // `"\(service)"` — a `Mirror` walk — each ~1 ms of a start's CPU spent in the Swift
        // runtime's first conformance lookups, and the server restarts ~100 times in a 24-hour run
        // while everyone waits for it. This is `Application.run` without both.
        let responder = buildRouter(store: store, maxRequestBodyBytes: configuration.maxRequestBodyBytes).buildResponder()
        let logger = Logger(label: serverName)
        let portFilePath = configuration.portFilePath
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: .init(address: .hostname(bindHost, port: 0), serverName: serverName),
            // One event loop: the server handles one stand-in's request at a time, and with the
            // default (a loop per core) a request hopped from the accepting loop to another one.
            eventLoopGroup: Self.eventLoops, logger: logger,
            responder: { request, responseWriter, channel in
                let context = BasicRequestContext(source: .init(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPParserError {
                    throw error
                } catch {
                    response = Response(status: .internalServerError, body: .init())
                }
                response.headers[.date] = httpDate(now())
                response.headers[.server] = serverName
                try await responseWriter.write(response: response.head, body: response.body)
            },
            onServerRunning: { channel in
                guard let port = channel.localAddress?.port else {
                    onFatal("server is running but has no local port")
                    return
                }
                if let portFilePath {
                    do { try PortFile.write(port: port, to: portFilePath) } catch { onFatal(oneLine(error)) }
                }
                // Stepped time: the first report comes only once the port is published, so no
                // client can reach the previous incarnation's port after the harness moves on.
                if let stepped { await participate(store: store, stepped: stepped, staleAfterSeconds: configuration.staleAfterSeconds) }
            })

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await ServiceGroup(configuration: .init(
                    services: [.init(service: server, serviceName: serverName)],
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
            }
            if stepped == nil {
                group.addTask {
                    await runStaleJob(
                        store: store, staleAfterSeconds: configuration.staleAfterSeconds,
                        intervalMillis: configuration.jobIntervalMillis)
                }
            }
            // The server returns on SIGTERM; the stale job only ever ends by cancellation.
            try await group.next()
            group.cancelAll()
        }
        store.traceStopped()
    }

    static let serverName = "settlement-server"
    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let executor = EventLoopExecutor(eventLoops.next())

    /// An HTTP date (RFC 9110 §5.6.7, `Sun, 06 Nov 1994 08:49:37 GMT`) of the server's clock — the
    /// device clock — by `strftime` in the C locale rather than Foundation's Calendar.
    static func httpDate(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A task executor (SE-0417) that runs jobs on one NIO event loop. Hummingbird hands each
    /// request from the event loop to a task and the answer back: on the global executor that is
    /// two thread hops per request (the loop wakes a pool thread, the pool thread wakes the loop).
    /// With every task preferring the loop, a request is read, handled by the store (a default
    /// actor, which runs on its caller's preferred executor) and written without leaving the
    /// loop's thread. The server serves one stand-in at a time; its handlers never block on the
    /// loop (they write the journal and trace, bounded local file writes).
    final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
        let loop: any EventLoop
        init(_ loop: any EventLoop) { self.loop = loop }
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Stepped virtual time: wakes on the harness's `system.wake.<pid>`, and reports.
    static func participate(store: SettlementStore, stepped: SteppedTime, staleAfterSeconds: Double) async {
        let name = SchedulerChannel.wakeNotification(pid: getpid())
        let center = stepped.center
        // Woken through its own FIFO (its reader thread keeps it for the process's life); or else
        // by the harness's post of its wake name.
        let fifo = WakeReceiver(deviceRoot: center.deviceRoot) { generation in
            Task(executorPreference: executor) { store.clockMoved(clockGeneration: generation) }
        }
        if fifo == nil {
            do {
                try center.addObserver(name) { _ in
                    let generation = center.lastDelivered(name) ?? 0
                    Task(executorPreference: executor) { store.clockMoved(clockGeneration: generation) }
                }
            } catch {
                FileHandle.standardError.write(Data("settlement-server: cannot observe \(name): \(error)\n".utf8))
                return
            }
        }
        let channel = stepped.channel
        store.participate(
            staleAfterSeconds: staleAfterSeconds, clockGeneration: fifo?.lastGeneration ?? center.lastDelivered(name) ?? 0,
            report: { next, generation in
                channel.reportIdle(nextUnixSeconds: next?.timeIntervalSince1970, http: [:], consumed: [name: generation])
            })
    }

    /// The seed's scheduled job, on a wall-clock period; staleness itself is in device time.
    static func runStaleJob(store: SettlementStore, staleAfterSeconds: Double, intervalMillis: Int) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: .milliseconds(intervalMillis)) } catch { return }
            // A failed journal already reported itself through onFatal; keep the loop cheap.
            store.expireStale(staleAfterSeconds: staleAfterSeconds)
        }
    }

    // MARK: - Routes

    /// Every route, by method (`:id` is one path component): the router's, and what the server
    /// inside the harness answers (`SettlementInProcessServer`) — one list for both.
    public static let routes: [String: [String]] = [
        "GET": ["health", "settlements", "sessions/:id"],
        "POST": ["sessions", "sessions/:id/heartbeat", "resolveSession"],
    ]

    /// Whether `method` `path` is one of `routes`.
    static func routed(_ method: String, _ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        return (routes[method] ?? []).contains { route in
            let pattern = route.split(separator: "/")
            return pattern.count == parts.count && zip(pattern, parts).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
    }

    /// Every route of `SettlementService`, each handed to the store as method + path + body.
    public static func buildRouter(
        store: SettlementStore,
        maxRequestBodyBytes: Int = SettlementServerConfiguration.defaultMaxRequestBodyBytes
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body: Data?
            if request.method == .post {
                do { body = Data(try await request.body.collect(upTo: maxRequestBodyBytes).readableBytesView) } catch {
                    return response(SettlementService.error(
                        413, "invalid", "request body is larger than \(maxRequestBodyBytes) bytes or unreadable"))
                }
            } else {
                body = nil
            }
            return response(store.handle(method: request.method.rawValue, path: request.uri.path, body: body))
        }
        for path in routes["GET"] ?? [] { router.get(RouterPath(path), use: handler) }
        for path in routes["POST"] ?? [] { router.post(RouterPath(path), use: handler) }
        return router
    }

    static func response(_ reply: SettlementService.Reply) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: HTTPResponse.Status(code: reply.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
    }
}

