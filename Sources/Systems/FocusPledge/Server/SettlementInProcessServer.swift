import AppGroup
import FocusPledge
import Foundation
import StandInRuntime
import SystemKit

/// `sth-focuspledge-server` as the harness runs it inside its own process (`harness run
/// --in-process all`, `InProcessStandIns`): the same store, journal, trace, planned pledges and
/// stale job as the executable, without the HTTP stack — an app in the harness calls the routes
/// directly (`InProcessStandIns.registerServer`; the port file holds the number it is registered
/// under). Under virtual time it reports its stale-job deadline as the executable does through
/// the scheduler FIFO, and runs the job when the harness gives it its turn at that instant.
public enum SettlementInProcessServer {
    /// The executable's plain arguments (`SettlementServerArguments`), run in the harness.
    public static let entry: InProcessStandIns.Entry = { args in
        guard let a = SettlementServerArguments(plain: args) else { throw InProcessExit(code: 64) }
        guard let current = InProcessStandIns.current else { throw InProcessExit(code: 2) }
        try run(a, current)
    }

    static func run(_ a: SettlementServerArguments, _ current: InProcessStandIns.Current) throws -> Never {
        guard a.staleAfterSeconds.isFinite, a.staleAfterSeconds > 0, let deviceRoot = a.deviceRoot else { throw InProcessExit(code: 2) }
        let root = try DeviceRoot(path: deviceRoot, create: false)
        let clock = DeviceClock(deviceRoot: root)
        guard clock.isStepped else { throw InProcessExit(code: 2) }
        var configuration = SettlementServerConfiguration(
            journalPath: a.journal, portFilePath: a.portFile, tracePath: a.trace, staleAfterSeconds: a.staleAfterSeconds,
            jobIntervalMillis: a.jobIntervalMs ?? SettlementServerConfiguration.defaultJobIntervalMillis)
        configuration.journalFsync = a.journalFsync ?? true
        if let pledges = a.pledges { configuration.pledges = try PlannedPledges.read(path: pledges) }
        let store = try SettlementStore(
            journalPath: configuration.journalPath, tracePath: configuration.tracePath, limits: configuration.limits,
            maxJournalBytes: configuration.maxJournalBytes, journalFsync: configuration.journalFsync, now: { clock.now() },
            onFatal: { _ in current.end(2) })
        if let pledges = configuration.pledges { store.preCreate(pledges, origin: configuration.pledgesOrigin) }
        let maxBody = configuration.maxRequestBodyBytes
        let port = InProcessStandIns.registerServer(alive: current.alive) { call in
            guard SettlementHTTPServer.routed(call.method, call.path) else { return .response(status: 404, body: Data()) }
            if let body = call.body, body.count > maxBody {
                let r = SettlementService.error(413, "invalid", "request body is larger than \(maxBody) bytes or unreadable")
                return .response(status: r.status, body: Data(r.body))
            }
            let r = store.handle(method: call.method, path: call.path, body: call.method == "POST" ? (call.body ?? Data()) : nil)
            return .response(status: r.status, body: Data(r.body))
        }
        if let portFile = configuration.portFilePath {
            try PortFile.write(port: Int(port), to: portFile)
            InProcessStandIns.published(portFile: portFile, port: port)
        }
        let next = Deadline()
        // Told after every change (a request an app made while this server was idle among them).
        store.participate(staleAfterSeconds: configuration.staleAfterSeconds, clockGeneration: 0) { at, _ in
            next.set(at)
            current.report(InProcessStandIns.IdleReport(next: at?.timeIntervalSince1970, consumed: [:]))
        }
        while true {
            if current.terminateRequested() {
                store.traceStopped()
                current.end(0)
            }
            current.idle(InProcessStandIns.IdleReport(next: next.get()?.timeIntervalSince1970, consumed: [:]))
            if !current.terminateRequested() { store.clockMoved(clockGeneration: 0) }
        }
    }

    final class Deadline: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Date?
        func set(_ d: Date?) { lock.lock(); value = d; lock.unlock() }
        func get() -> Date? { lock.lock(); defer { lock.unlock() }; return value }
    }
}
