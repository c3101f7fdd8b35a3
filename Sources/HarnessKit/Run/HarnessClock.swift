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
    private var configuration: DeviceClock.Configuration?
    private var root: DeviceRoot?
    /// What the file held after our last write, and its stat stamp (a rename makes a new inode).
    private var written: [UInt8] = []
    private var stamp: Stamp?

    struct Stamp: Equatable {
        var inode: UInt64
        var size: Int64
        var mtimeNanos: Int64
        var ctimeNanos: Int64
    }

    /// A change found while writing (the harness's next write would have hidden it).
    private var pendingTamper: String?

    /// Writes `configuration` to `<root>/clock` (temp + rename) and keeps it as the truth. A change
    /// by someone else since the last write is kept for `tamper()` first, never written over unseen.
    func write(_ configuration: DeviceClock.Configuration, to root: DeviceRoot) throws {
        if let what = tamper() {
            lock.lock()
            if pendingTamper == nil { pendingTamper = what }
            lock.unlock()
        }
        // The bytes we wrote are the file's (a rename is atomic); its stamp is read after the
        // rename, so a change by someone else after it still shows in `tamper()`.
        lock.lock()
        let knownTimeZone = self.configuration?.timeZone
        lock.unlock()
        let bytes = try DeviceClock.write(configuration, to: root, knownTimeZone: knownTimeZone)
        let stamp = try Self.stamp(root)
        lock.lock()
        self.configuration = configuration
        self.root = root
        self.written = bytes
        self.stamp = stamp
        lock.unlock()
    }

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
        let current: Stamp?
        do { current = try Self.stamp(root) } catch { return "the clock file cannot be examined: \(error)" }
        guard let current else { return "the clock file was removed (the harness is its only writer)" }
        if current == stamp { return nil }
        let bytes: [UInt8]
        do { bytes = try root.directory.readFile(DeviceClock.fileName, limitBytes: 1 << 16) ?? [] } catch {
            return "the clock file was replaced by something the harness did not write: \(error)"
        }
        if bytes == written { return nil }  // rewritten with the same bytes (a touch): not a change of time
        let expected = Self.describe(c, at: nowUnixSeconds())
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
        return "the clock file was overwritten by another process: it says \(Self.describe(found, at: foundNow)), the harness wrote \(expected)"
    }

    static func describe(_ c: DeviceClock.Configuration, at now: Double) -> String {
        let when = now.isFinite && abs(now) < 1e12 ? ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: now)) : String(now)
        return c.isStepped ? "\(when) (stepped)" : "\(when) at rate \(c.rate)"
    }

    static func stamp(_ root: DeviceRoot) throws -> Stamp? {
        guard let st = try root.directory.statEntry(DeviceClock.fileName) else { return nil }
        return Stamp(
            inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtimeNanos: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            ctimeNanos: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }
}
