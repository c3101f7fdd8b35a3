import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends the server's events to `<run-dir>/trace/settlement-server.jsonl`, one JSON object per
/// line with one `write()` each (O_APPEND), so lines from a killed server are whole or absent and
/// never interleave. Checkers read this file; it is evidence, not a log.
///
/// Not fsynced: a SIGKILLed process's writes survive in the page cache, and the journal, not the
/// trace, is what must survive a machine crash.
public final class TraceWriter {
    public let path: String
    public let processName: String
    public let pid: Int32
    private let fd: Int32
    private let encoder: JSONEncoder

    public struct TraceError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(path: String, processName: String = "settlement-server", pid: Int32 = getpid()) throws(TraceError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw TraceError(description: "trace \(path): cannot create its directory: \(oneLine(error))")
            }
        }
        let fd = posixOpen(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw TraceError(description: "trace \(path): open failed: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.processName = processName
        self.pid = pid
        self.fd = fd
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.encoder = encoder
    }

    deinit { close(fd) }

    /// Writes one line: `{"t": <device unix seconds>, "process", "pid", "event", ...fields}`.
    public func emit(_ event: TraceEvent, at now: Date) throws(TraceError) {
        let line = TraceLine(t: now.timeIntervalSince1970, process: processName, pid: pid, event: event)
        var data: Data
        do { data = try encoder.encode(line) } catch {
            preconditionFailure("trace line failed to encode: \(error)")
        }
        data.append(0x0A)
        for _ in 0..<100 {
            let wrote = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if wrote == data.count { return }
            if wrote < 0, errno == EINTR { continue }
            let reason = wrote < 0 ? String(cString: strerror(errno)) : "stored \(wrote) of \(data.count) bytes"
            throw TraceError(description: "trace \(path): write failed: \(reason)")
        }
        throw TraceError(description: "trace \(path): write interrupted 100 times")
    }
}

/// The fields of one trace line after t/process/pid. `event` is one of: `started`,
/// `journal-tail-dropped`, `created`, `heartbeat`, `settled`, `duplicate`, `rejected`,
/// `stale-expired`, `stopped`. Absent fields are left out of the line.
public struct TraceEvent: Sendable, Equatable {
    public var event: String
    public var sessionId: String?
    public var resolution: String?
    public var reason: String?
    public var idempotencyKey: String?
    public var ledgerSeq: UInt64?
    public var ifActive: Bool?
    public var origin: String?
    /// The session's status before a settlement (`ACTIVE` unless this is a double settlement).
    public var previousStatus: String?
    /// The session's status after the event.
    public var sessionStatus: String?
    public var durationMinutes: Int?
    public var lastCheckedAtUnixMillis: Int64?
    public var nativeEvidence: [String: String]?
    /// Why a request was rejected: `alreadyResolved`, `unknownSession`, `invalid`, `conflict`.
    public var why: String?
    public var detail: String?
    public var count: Int?

    public init(event: String) { self.event = event }

    public static func settlement(_ event: String, _ settlement: SettlementRecord, sessionStatus: SessionStatus?) -> TraceEvent {
        var trace = TraceEvent(event: event)
        trace.sessionId = settlement.sessionId
        trace.resolution = settlement.resolution.rawValue
        trace.reason = settlement.reason
        trace.idempotencyKey = settlement.idempotencyKey
        trace.ledgerSeq = settlement.ledgerSeq
        trace.ifActive = settlement.ifActive
        trace.origin = settlement.origin.rawValue
        trace.previousStatus = settlement.previousStatus.rawValue
        trace.sessionStatus = sessionStatus?.rawValue
        trace.nativeEvidence = settlement.nativeEvidence
        return trace
    }
}

struct TraceLine: Encodable {
    var t: Double
    var process: String
    var pid: Int32
    var event: TraceEvent

    enum CodingKeys: String, CodingKey {
        case mono, t, process, pid, event, sessionId, resolution, reason, idempotencyKey, ledgerSeq, ifActive, origin
        case previousStatus, sessionStatus, durationMinutes, lastCheckedAtUnixMillis, nativeEvidence, why, detail, count
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // CLOCK_MONOTONIC ns: lines of all processes are ordered by it in the merged history.
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        try c.encode(Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec), forKey: .mono)
        try c.encode(t, forKey: .t)
        try c.encode(process, forKey: .process)
        try c.encode(pid, forKey: .pid)
        try c.encode(event.event, forKey: .event)
        try c.encodeIfPresent(event.sessionId, forKey: .sessionId)
        try c.encodeIfPresent(event.resolution, forKey: .resolution)
        try c.encodeIfPresent(event.reason, forKey: .reason)
        try c.encodeIfPresent(event.idempotencyKey, forKey: .idempotencyKey)
        try c.encodeIfPresent(event.ledgerSeq, forKey: .ledgerSeq)
        try c.encodeIfPresent(event.ifActive, forKey: .ifActive)
        try c.encodeIfPresent(event.origin, forKey: .origin)
        try c.encodeIfPresent(event.previousStatus, forKey: .previousStatus)
        try c.encodeIfPresent(event.sessionStatus, forKey: .sessionStatus)
        try c.encodeIfPresent(event.durationMinutes, forKey: .durationMinutes)
        try c.encodeIfPresent(event.lastCheckedAtUnixMillis, forKey: .lastCheckedAtUnixMillis)
        try c.encodeIfPresent(event.nativeEvidence, forKey: .nativeEvidence)
        try c.encodeIfPresent(event.why, forKey: .why)
        try c.encodeIfPresent(event.detail, forKey: .detail)
        try c.encodeIfPresent(event.count, forKey: .count)
    }
}
