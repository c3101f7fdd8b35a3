import DeviceProtocol
import FaultInjection
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive cross-process lock on a lock file that is never renamed (`flock(2)`).
///
/// flock, not POSIX `F_SETLK`: a POSIX lock is silently dropped when the process closes *any*
/// fd of the file, and the kernel releases a flock ~0.4 ms after its holder is SIGKILLed.
/// Waiting is bounded (`timeout`): a SIGSTOPped holder turns into `AppGroupError.lockTimeout`,
/// never a hang.
///
/// A flock belongs to the open file description, not the thread: two threads sharing one
/// `FileLock` (a process's one `DarwinNotificationCenter.shared`) would both "hold" it, and one's
/// unlock would release the other's. So a process-local mutex is taken first, within the same
/// bound. Not re-entrant: lock and unlock on one thread, once each.
public final class FileLock: @unchecked Sendable {
    public let fd: Int32
    public let path: String
    private let threads = NSLock()

    /// Backoff while the lock is held elsewhere: first poll after this, doubling up to `maxBackoff`.
    static let minBackoffMicroseconds: UInt32 = 10
    static let maxBackoffMicroseconds: UInt32 = 1_000

    public init(directory: SafeDirectory, name: String) throws {
        self.fd = try directory.openFile(name, flags: O_RDWR | O_CREAT)
        self.path = directory.child(name)
    }

    deinit { close(fd) }

    public func lock(timeout: Duration) throws {
        let start = ContinuousClock.now
        if !threads.try() {
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            guard threads.lock(before: Date(timeIntervalSinceNow: seconds)) else {
                throw AppGroupError.lockTimeout(path: path, waitedMilliseconds: Self.milliseconds(ContinuousClock.now - start))
            }
        }
        do {
            try lockFile(start: start, timeout: timeout)
            CrashPoints.flockTaken(fd)
        } catch {
            threads.unlock()
            throw error
        }
    }

    private static func milliseconds(_ d: Duration) -> Int {
        Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000)
    }

    /// The flock, polled with backoff until `start + timeout`. Caller holds `threads`.
    private func lockFile(start: ContinuousClock.Instant, timeout: Duration) throws {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
        if errno != EWOULDBLOCK && errno != EINTR { throw AppGroupError.io(operation: "flock", path: path, errno: errno) }
        let deadline = start.advanced(by: timeout)
        var backoff = Self.minBackoffMicroseconds
        while true {
            usleep(backoff)
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
            if errno != EWOULDBLOCK && errno != EINTR { throw AppGroupError.io(operation: "flock", path: path, errno: errno) }
            if ContinuousClock.now >= deadline {
                throw AppGroupError.lockTimeout(path: path, waitedMilliseconds: Self.milliseconds(ContinuousClock.now - start))
            }
            backoff = min(backoff * 2, Self.maxBackoffMicroseconds)
        }
    }

    public func unlock() {
        CrashPoints.flockReleased(fd)
        flock(fd, LOCK_UN)
        threads.unlock()
    }

    public func withLock<T>(timeout: Duration, _ body: () throws -> T) throws -> T {
        try lock(timeout: timeout)
        defer { unlock() }
        return try body()
    }

    /// The 8-byte little-endian counter stored at offset 0 of the lock file (PROTOCOL.md §1).
    /// An empty file is 0. A file shorter than 8 bytes holds the low bytes of the counter (the
    /// missing high bytes are 0), so a short file never reads as a reset; writers always write 8.
    public func readCounter() -> UInt64 {
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0)
        let n = withUnsafeMutableBytes(of: &bytes) { pread(fd, $0.baseAddress, 8, 0) }
        guard n > 0 else { return 0 }
        return withUnsafeBytes(of: bytes) { raw in
            var v: UInt64 = 0
            for i in (0..<n).reversed() { v = v << 8 | UInt64(raw[i]) }
            return v
        }
    }

    /// Writes the counter; call only while holding the lock.
    public func writeCounter(_ value: UInt64) {
        var v = value.littleEndian
        _ = pwrite(fd, &v, 8, 0)
    }

    /// The first `count` (≤ 4) 8-byte little-endian words of the lock file in one `pread`; words
    /// past the end of the file read as 0, a short last word as its low bytes (as `readCounter`).
    public func readWords(_ count: Int) -> [UInt64] {
        precondition((1...4).contains(count))
        var raw = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let n = withUnsafeMutableBytes(of: &raw) { pread(fd, $0.baseAddress, 8 * count, 0) }
        let bytes = withUnsafeBytes(of: raw) { Array($0.prefix(max(0, n))) }
        return (0..<count).map { w in
            var v: UInt64 = 0
            for i in stride(from: min(bytes.count, 8 * w + 8) - 1, through: 8 * w, by: -1) { v = v << 8 | UInt64(bytes[i]) }
            return v
        }
    }

    /// Writes 8-byte little-endian words at word offset `at`, in one `pwrite`; call only while
    /// holding the lock.
    public func writeWords(_ words: [UInt64], at: Int) {
        precondition(!words.isEmpty && words.count + at <= 4)
        var raw = words.map(\.littleEndian)
        _ = raw.withUnsafeMutableBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(8 * at)) }
    }
}
