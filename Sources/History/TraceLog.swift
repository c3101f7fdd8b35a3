import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Appends this process's events to `<run-dir>/trace/<process>.jsonl`: one `write(2)` per line
/// on an O_APPEND fd, so lines from a process killed mid-write are at worst cut short at the end,
/// never interleaved. Thread-safe.
public final class TraceLog: @unchecked Sendable {
    public let process: String
    public let path: String
    private let fd: Int32
    private let lock = NSLock()
    private let deviceTime: @Sendable () -> Double

    /// Lines over this are truncated (a trace line is a fact, not a payload).
    public static let maxLineBytes = 16 * 1024

    public init(runDirectory: String, process: String, deviceTime: @escaping @Sendable () -> Double) throws {
        self.process = process
        self.deviceTime = deviceTime
        let dir = runDirectory + "/trace"
        mkdir(dir, 0o700)
        path = dir + "/\(process).jsonl"
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 { throw TraceError(path: path, errno: errno) }
    }

    deinit { close(fd) }

    public struct TraceError: Error, CustomStringConvertible {
        public let path: String
        public let errno: Int32
        public var description: String { "cannot open trace \(path): \(String(cString: strerror(errno)))" }
    }

    public static func monotonicNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    @discardableResult
    public func log(_ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        let e = HistoryEvent(mono: Self.monotonicNanos(), t: deviceTime(), process: process, pid: getpid(), event: event, fields: fields)
        var line = e.jsonLine()
        if line.utf8.count > Self.maxLineBytes { line = String(decoding: line.utf8.prefix(Self.maxLineBytes - 2), as: UTF8.self) + "…\"}" }
        line += "\n"
        lock.lock()
        _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress!, $0.count - 1) }
        lock.unlock()
        return e
    }
}
