import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Appends one process's events to its trace (`<run-dir>/trace/<process>.jsonl`): one `write(2)`
/// per line on an O_APPEND fd, so lines from a process killed mid-write are at worst cut short at
/// the end, never interleaved. Thread-safe. The only trace writer: stand-ins, servers and the
/// harness all write HISTORY.md §8 lines through it.
///
/// Not fsynced: a SIGKILLed process's writes survive in the page cache; what must survive a
/// machine crash (a server's journal) is kept elsewhere.
public final class TraceLog: @unchecked Sendable {
    public let process: String
    public let path: String
    /// -1 once closed (`close`): a line written after is dropped.
    private var fd: Int32
    private let lock = NSLock()
    private let deviceTime: @Sendable () -> Double

    /// Lines over this are truncated (a trace line is a fact, not a payload).
    public static let maxLineBytes = 16 * 1024
    /// A write interrupted this often is a failure, not a retry loop.
    static let maxWriteAttempts = 100

    /// `<runDirectory>/trace/<process>.jsonl` (the directory is created).
    public convenience init(runDirectory: String, process: String, deviceTime: @escaping @Sendable () -> Double) throws {
        let dir = runDirectory + "/trace"
        mkdir(dir, 0o700)
        try self.init(path: dir + "/\(process).jsonl", process: process, deviceTime: deviceTime)
    }

    /// Appends to `path` (created 0600, never through a symlink; its directory is created).
    /// The process id its lines carry: this process's, or — for a stand-in the harness runs
    /// inside itself — that stand-in's (`processID`, read when the log is opened).
    let pid: Int32

    /// Who is asking, as a pid (set by the harness when it runs stand-ins inside itself).
    nonisolated(unsafe) public static var processID: @Sendable () -> Int32 = { getpid() }

    public init(path: String, process: String, deviceTime: @escaping @Sendable () -> Double) throws {
        pid = Self.processID()
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        self.process = process
        self.deviceTime = deviceTime
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 { throw TraceError(path: path, errno: errno, operation: "open") }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes the trace: every line written after is dropped (`log`) or throws (`append`). For a
    /// stand-in the harness runs inside itself whose launch ended: a process that ended writes no
    /// more lines, whatever threads its code had started.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    public struct TraceError: Error, CustomStringConvertible {
        public let path: String
        public let errno: Int32
        public var operation = "open"
        public var description: String { "cannot \(operation) trace \(path): \(String(cString: strerror(errno)))" }
    }

    public static func monotonicNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Appends a line stamped now; a failed write is dropped (the trace is evidence, and a
    /// stand-in must not die of it). Use `append` where a lost line must stop the process.
    @discardableResult
    public func log(_ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        let e = line(event, fields, deviceTime: deviceTime())
        try? write(e)
        return e
    }

    /// Appends a line whose device time is `deviceTime` (the instant the event was decided at);
    /// throws when the line could not be written whole.
    @discardableResult
    public func append(_ event: String, _ fields: [String: String], deviceTime t: Double) throws -> HistoryEvent {
        let e = line(event, fields, deviceTime: t)
        try write(e)
        return e
    }

    private func line(_ event: String, _ fields: [String: String], deviceTime t: Double) -> HistoryEvent {
        HistoryEvent(mono: Self.monotonicNanos(), t: t, process: process, pid: pid, event: event, fields: fields)
    }

    private func write(_ e: HistoryEvent) throws {
        var line = e.jsonLine()
        if line.utf8.count > Self.maxLineBytes { line = String(decoding: line.utf8.prefix(Self.maxLineBytes - 2), as: UTF8.self) + "…\"}" }
        line += "\n"
        let bytes = Array(line.utf8)
        lock.lock()
        defer { lock.unlock() }
        guard fd >= 0 else { throw TraceError(path: path, errno: EBADF, operation: "write") }
        for _ in 0..<Self.maxWriteAttempts {
            let wrote = bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress!, $0.count) }
            if wrote == bytes.count { return }
            if wrote < 0 && errno == EINTR { continue }
            throw TraceError(path: path, errno: wrote < 0 ? errno : EIO, operation: "write")
        }
        throw TraceError(path: path, errno: EINTR, operation: "write")
    }
}
