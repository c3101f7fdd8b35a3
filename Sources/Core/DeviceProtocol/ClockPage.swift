import CSystemShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the harness last wrote to `<root>/clock`, in one page of shared memory the processes it
/// starts inherit (PROTOCOL.md §2, "The harness's clock page"). The file stays the clock for
/// everyone; the page only lets the harness's own children skip re-reading it: a reader compares
/// the page's sequence with the one it read last (one load from memory, no system call) and
/// re-reads the fields only when it moved. Before the page, every read of the time cost an
/// `fstatat` of the file, and every step of virtual time an `open` + `read` + decode: 7 % of the
/// CPU of a virtual-time day, the largest single item.
///
/// A sealed `memfd` (it can neither shrink — a mapping of a shrunk file faults — nor grow, and
/// after `seal()` nobody but the harness's own mapping can write it), passed by descriptor number
/// in `SCREENTIME_CLOCK_PAGE_FD`; a sequence lock makes every read consistent. It names the device
/// root it belongs to (device and inode), so a clock of another root never reads it. Anything
/// unexpected — no variable, a descriptor that is not such a page, another root, a write that
/// never ends — and the reader uses the file, as a process the harness did not start always does.
public final class ClockPage: @unchecked Sendable {
    public static let environmentVariable = "SCREENTIME_CLOCK_PAGE_FD"

    /// The page's descriptor: the one a child inherits.
    public let fd: Int32
    private let page: UnsafeRawPointer
    private let writable: UnsafeMutableRawPointer?

    /// The device root a writer's page names (fixed when it is created; nil for a reader).
    private let root: (dev: UInt64, ino: UInt64)?

    private init(fd: Int32, page: UnsafeRawPointer, writable: UnsafeMutableRawPointer?, root: (dev: UInt64, ino: UInt64)?) {
        self.fd = fd
        self.page = page
        self.writable = writable
        self.root = root
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: page), Int(STH_CLOCK_PAGE_BYTES))
        if writable != nil { close(fd) }
    }

    // MARK: The writer (the harness)

    /// A new page for `root` that answers nothing (readers use the file) until the first `write`,
    /// already sealed against every writer but this object.
    public static func create(for root: DeviceRoot) throws -> ClockPage {
        var raw: UnsafeMutableRawPointer?
        guard let identity = Self.identity(of: root) else { throw AppGroupError.io(operation: "fstat", path: root.path, errno: errno) }
        let fd = sth_clock_page_create(&raw)
        guard fd >= 0, let raw else { throw AppGroupError.io(operation: "memfd_create (clock page)", path: root.path, errno: errno) }
        let page = ClockPage(fd: fd, page: UnsafeRawPointer(raw), writable: raw, root: identity)
        var empty = sth_clock_page_fields()
        sth_clock_page_write(raw, &empty)
        guard sth_clock_page_seal(fd) == 0 else { throw AppGroupError.io(operation: "seal (clock page)", path: root.path, errno: errno) }
        return page
    }

    /// Publishes `configuration` (nil: there is no clock file) for the page's root — after the
    /// file holds it. No system call: the harness does this at every step of virtual time.
    public func write(_ configuration: DeviceClock.Configuration?) {
        guard let writable, let identity = root else { return }
        var f = sth_clock_page_fields()
        f.magic = STH_CLOCK_PAGE_MAGIC
        f.root_dev = identity.dev
        f.root_ino = identity.ino
        if let c = configuration {
            let zone = Array(c.timeZone.utf8)
            // A zone longer than the page holds (the file allows none: `maxTimeZoneBytes`) is
            // published as "no page": readers fall back to the file.
            guard zone.count <= MemoryLayout.size(ofValue: f.time_zone) else {
                f.magic = 0
                sth_clock_page_write(writable, &f)
                return
            }
            f.present = 1
            f.epoch_unix_seconds = c.epochUnixSeconds
            f.anchor_monotonic_nanos = c.anchorMonotonicNanos
            f.rate = c.rate
            f.offset_seconds = c.offsetSeconds
            f.stepped = c.isStepped ? 1 : 0
            f.time_zone_length = UInt64(zone.count)
            withUnsafeMutableBytes(of: &f.time_zone) { $0.copyBytes(from: zone) }
        }
        sth_clock_page_write(writable, &f)
    }

    // MARK: The reader (a child)

    /// The page this process inherited, or nil (no variable, or not a clock page: then the
    /// variable is ignored, as a process the harness did not start would).
    public static let inherited: ClockPage? = {
        guard let raw = ProcessInfo.processInfo.environment[environmentVariable], let fd = Int32(raw), fd > 2 else { return nil }
        return reading(fd: fd)
    }()

    /// For a stand-in the harness runs in its own process (`StandInEnvironment`): a mapping of the
    /// harness's page its environment names (the descriptor is the harness's own).
    static func givenToThisThread() -> ClockPage? {
        guard StandInEnvironment.isThreadOwn, let raw = StandInEnvironment.current[environmentVariable], let fd = Int32(raw), fd > 2 else { return nil }
        // One mapping per page (by the descriptor's inode: a number may name another page later).
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let ino = UInt64(st.st_ino)
        givenLock.lock()
        defer { givenLock.unlock() }
        if let (known, page) = given[fd], known == ino { return page }
        guard let page = reading(fd: fd) else { return nil }
        given[fd] = (ino, page)
        return page
    }

    nonisolated(unsafe) private static var given: [Int32: (ino: UInt64, page: ClockPage)] = [:]
    private static let givenLock = NSLock()

    /// A read-only mapping of the page behind `fd`, or nil when `fd` is not one (a sealed memfd of
    /// one page nobody else can write).
    public static func reading(fd: Int32) -> ClockPage? {
        guard let page = sth_clock_page_map_readonly(fd) else { return nil }
        return ClockPage(fd: fd, page: page, writable: nil, root: nil)
    }

    /// The page's sequence: unchanged means nothing was written since it was last read.
    public var sequence: UInt64 { sth_clock_page_sequence(page) }

    /// What the page says for `root` and the sequence it was read at: `.some(nil)` "no clock",
    /// nil when the page cannot answer (another root, never written, a write under way too long).
    public func read(rootIdentity: (dev: UInt64, ino: UInt64)) -> (sequence: UInt64, configuration: DeviceClock.Configuration?)? {
        var f = sth_clock_page_fields()
        var seq: UInt64 = 0
        guard sth_clock_page_read(page, &f, &seq) == 0, f.magic == STH_CLOCK_PAGE_MAGIC,
            f.root_dev == rootIdentity.dev, f.root_ino == rootIdentity.ino
        else { return nil }
        guard f.present == 1 else { return (seq, nil) }
        let length = Int(min(f.time_zone_length, UInt64(MemoryLayout.size(ofValue: f.time_zone))))
        let zone = withUnsafeBytes(of: &f.time_zone) { String(decoding: $0.prefix(length), as: UTF8.self) }
        return (seq, DeviceClock.Configuration(
            epochUnixSeconds: f.epoch_unix_seconds, anchorMonotonicNanos: f.anchor_monotonic_nanos, rate: f.rate,
            offsetSeconds: f.offset_seconds, timeZone: zone, mode: f.stepped == 1 ? DeviceClock.Configuration.steppedMode : nil))
    }

    /// The device and inode of `root`'s directory: what a page names.
    public static func identity(of root: DeviceRoot) -> (dev: UInt64, ino: UInt64)? {
        var st = stat()
        guard fstat(root.directory.fd, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }
}
