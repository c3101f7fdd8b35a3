import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The device clock as the harness keeps it: the harness is `<root>/clock`'s only writer
/// (PROTOCOL.md §2), so it never reads its time back from the file — it computes it from the
/// configuration it wrote, with the same formula every participant uses. Anyone else who writes
/// the file (or removes, or replaces it) changes what the participants see but not what the
/// harness believes, and `tamper()` says so: the run then ends undecided, never blaming the system.
final class HarnessClock: @unchecked Sendable {
    private let lock = NSLock()
    /// The page the processes the harness starts read (ClockPage, made for the root this clock
    /// writes to): each write lands there after the file.
    let page: ClockPage?

    init(page: ClockPage? = nil) { self.page = page }

    private var configuration: DeviceClock.Configuration?
    private var root: DeviceRoot?
    /// What the file held after our last write, and its stat stamp (a rename makes a new inode).
    private var written: [UInt8] = []
    private var stamp: Stamp?

    /// The harness's own file: a rename keeps inode, size and mtime (it changes ctime, which is
    /// why ctime is not part of it).
    struct Stamp: Equatable {
        var inode: UInt64
        var size: Int64
        var mtimeNanos: Int64

        init(_ st: stat) {
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            mtimeNanos = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        }
    }

    /// A change found while writing (the harness's next write would have hidden it).
    private var pendingTamper: String?

    /// Writes `configuration` to `<root>/clock` (temp + rename) and keeps it as the truth. A change
    /// by someone else since the last write is kept for `tamper()` first, never written over unseen:
    /// the new file is exchanged with the old one atomically and the old one examined after
    /// (`SafeDirectory.exchangeAtomically`), so a change that lands just before the rename is seen
    /// too, and the stamp is the new file's own, taken before the rename — a change just after it
    /// differs from it (both once let an outsider's clock pass as the harness's).
    func write(_ configuration: DeviceClock.Configuration, to root: DeviceRoot) throws {
        lock.lock()
        let knownTimeZone = self.configuration?.timeZone, last = self.stamp, lastBytes = self.written, before = self.configuration
        lock.unlock()
        try configuration.validate(knownTimeZone: knownTimeZone)
        let bytes = try configuration.encoded()
        let exchange = try root.directory.exchangeAtomically(DeviceClock.fileName, bytes: bytes, limitBytes: Self.maxClockBytes) {
            last != nil && Stamp($0) != last  // not the harness's own file: what does it say?
        }
        var found: String?
        if let last, let before {
            if let old = exchange.replaced {
                if Stamp(old.stat) != last { found = Self.change(bytes: old.bytes, stat: old.stat, written: lastBytes, configuration: before, at: nowUnixSeconds()) }
            } else {
                found = Self.removed
            }
        }
        lock.lock()
        if let found, pendingTamper == nil { pendingTamper = found }
        self.configuration = configuration
        self.root = root
        self.written = bytes
        self.stamp = Stamp(exchange.written)
        fileBehind = false
        page?.write(configuration)
        lock.unlock()
    }

    /// Moves the clock on the page alone (the file keeps the last time written to it): for a run
    /// whose every reader is inside the harness and reads the page (`--in-process all`), where the
    /// file's temp + exchange + look at the old one was an eighth of a step's CPU time. The next
    /// `write` (a time-zone change, the end of the run) brings the file up to date and looks for
    /// tampering as ever. False (nothing done) without a page.
    func writePageOnly(_ configuration: DeviceClock.Configuration) throws -> Bool {
        guard let page else { return false }
        lock.lock()
        defer { lock.unlock() }
        try configuration.validate(knownTimeZone: self.configuration?.timeZone)
        self.configuration = configuration
        page.write(configuration)
        fileBehind = true
        return true
    }

    /// True when the page is ahead of the file (`writePageOnly`).
    private(set) var fileBehind = false

    static let maxClockBytes = 1 << 16
    static let removed = "the clock file was removed (the harness is its only writer)"

    /// The configuration the harness last wrote (a time-zone change rewrites it with a new zone).
    var current: DeviceClock.Configuration? {
        lock.lock()
        defer { lock.unlock() }
        return configuration
    }

    /// Device unix seconds from the configuration the harness wrote (real time before the first write).
    func nowUnixSeconds() -> Double {
        lock.lock()
        let c = configuration
        lock.unlock()
        guard let c else { return Date().timeIntervalSince1970 }
        if c.isStepped { return c.epochUnixSeconds + c.offsetSeconds }
        let elapsed = Double(Int64(bitPattern: DeviceClock.monotonicNanos() &- c.anchorMonotonicNanos)) / 1e9
        return c.epochUnixSeconds + c.offsetSeconds + elapsed * c.rate
    }

    /// nil while `<root>/clock` is exactly what the harness last wrote; else what changed, in
    /// words. One `fstatat` when nothing changed; the bytes are compared only when the stamp moved.
    func tamper() -> String? {
        lock.lock()
        let root = self.root, stamp = self.stamp, written = self.written, c = configuration, pending = pendingTamper
        lock.unlock()
        if let pending { return pending }
        guard let root, let c else { return nil }
        let found: stat?
        do { found = try root.directory.statEntry(DeviceClock.fileName) } catch { return "the clock file cannot be examined: \(error)" }
        guard let st = found else { return Self.removed }
        if Stamp(st) == stamp { return nil }
        let regular = (st.st_mode & S_IFMT) == S_IFREG && Int(st.st_size) <= Self.maxClockBytes
        let bytes = regular ? (try? root.directory.readFile(DeviceClock.fileName, limitBytes: Self.maxClockBytes)) ?? nil : nil
        return Self.change(bytes: bytes, stat: st, written: written, configuration: c, at: nowUnixSeconds())
    }

    /// What a clock file other than the harness's last one says, in words; nil when it holds the
    /// bytes the harness wrote (rewritten the same: a touch, not a change of time). `bytes`: nil
    /// when it is not a regular file (or not readable as one).
    static func change(bytes: [UInt8]?, stat st: stat, written: [UInt8], configuration c: DeviceClock.Configuration, at now: Double) -> String? {
        guard let bytes else {
            let kind: String
            switch st.st_mode & S_IFMT {
            case S_IFLNK: kind = "a symlink"
            case S_IFIFO: kind = "a FIFO"
            case S_IFDIR: kind = "a directory"
            case S_IFSOCK: kind = "a socket"
            case S_IFREG: kind = "a file of \(st.st_size) bytes, more than a clock holds"
            default: kind = "not a regular file"
            }
            return "the clock file was replaced by something the harness did not write: \(kind)"
        }
        if bytes == written { return nil }
        let expected = describe(c, at: now)
        guard let found = try? JSONDecoder().decode(DeviceClock.Configuration.self, from: Data(bytes)) else {
            return "the clock file was overwritten with something that is not a clock (the harness wrote \(expected))"
        }
        let foundNow: Double
        if found.isStepped {
            foundNow = found.epochUnixSeconds + found.offsetSeconds
        } else {
            let elapsed = Double(Int64(bitPattern: DeviceClock.monotonicNanos() &- found.anchorMonotonicNanos)) / 1e9
            foundNow = found.epochUnixSeconds + found.offsetSeconds + elapsed * found.rate
        }
        return "the clock file was overwritten by another process: it says \(describe(found, at: foundNow)), the harness wrote \(expected)"
    }

    static func describe(_ c: DeviceClock.Configuration, at now: Double) -> String {
        let when = now.isFinite && abs(now) < 1e12 ? ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: now)) : String(now)
        return c.isStepped ? "\(when) (stepped)" : "\(when) at rate \(c.rate)"
    }
}
