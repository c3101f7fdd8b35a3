import AppGroup
import FocusPledge
import Foundation
import Hummingbird
import NIOPosix

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

        if let pledges = configuration.pledges { await store.preCreate(pledges, origin: configuration.pledgesOrigin) }

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
                if let portFilePath {
                    do { try PortFile.write(port: port, to: portFilePath) } catch { onFatal(oneLine(error)) }
                }
                // Stepped time: the first report comes only once the port is published, so no
                // client can reach the previous incarnation's port after the harness moves on.
                if let stepped { await participate(store: store, stepped: stepped, staleAfterSeconds: configuration.staleAfterSeconds) }
            },
            // One event loop: the server handles one stand-in's request at a time, and with the
            // default (a loop per core) a request hopped from the accepting loop to another one.
            eventLoopGroupProvider: .shared(Self.eventLoops)
        )

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
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
        await store.traceStopped()
    }

    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Stepped virtual time: wakes on the harness's `system.wake.<pid>`, and reports.
    static func participate(store: SettlementStore, stepped: SteppedTime, staleAfterSeconds: Double) async {
        let name = SchedulerChannel.wakeNotification(pid: getpid())
        let center = stepped.center
        // Woken through its own FIFO (its reader thread keeps it for the process's life); or else
        // by the harness's post of its wake name.
        let fifo = WakeReceiver(deviceRoot: center.deviceRoot) { generation in
            Task { await store.clockMoved(clockGeneration: generation) }
        }
        if fifo == nil {
            do {
                try center.addObserver(name) { _ in
                    let generation = center.lastDelivered(name) ?? 0
                    Task { await store.clockMoved(clockGeneration: generation) }
                }
            } catch {
                FileHandle.standardError.write(Data("settlement-server: cannot observe \(name): \(error)\n".utf8))
                return
            }
        }
        let channel = stepped.channel
        await store.participate(
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
            await store.expireStale(staleAfterSeconds: staleAfterSeconds)
        }
    }

    // MARK: - Routes

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
            return response(await store.handle(method: request.method.rawValue, path: request.uri.path, body: body))
        }
        for path in ["health", "settlements", "sessions/:id"] { router.get(RouterPath(path), use: handler) }
        for path in ["sessions", "sessions/:id/heartbeat", "resolveSession"] { router.post(RouterPath(path), use: handler) }
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

