import CSystemShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One participant's state in stepped virtual time (PROTOCOL.md §9): as of report `seq`, process
/// `pid` is idle — waiting for its earliest timer (`nextUnixSeconds`), for HTTP answers from
/// `http` (service → requests in flight), or for a notification — and has consumed generation
/// `consumed[name]` of every Darwin notification name it observes.
///
/// One line, tab-separated, at most `maxLineBytes` (below PIPE_BUF, so a write is atomic):
///
///     v1 <pid> <seq> <next|-> <service:count,...|-> <name>=<generation> ...
public struct SchedulerReport: Sendable, Equatable {
    public var pid: Int32
    public var seq: UInt64
    /// Device unix seconds of the earliest timer (millisecond precision), nil = none.
    public var nextUnixSeconds: Double?
    public var http: [String: Int]
    public var consumed: [String: UInt64]

    public static let maxLineBytes = 4000

    public init(pid: Int32, seq: UInt64, nextUnixSeconds: Double?, http: [String: Int] = [:], consumed: [String: UInt64]) {
        self.pid = pid
        self.seq = seq
        self.nextUnixSeconds = nextUnixSeconds
        self.http = http
        self.consumed = consumed
    }

    /// The same report without its sequence number (to skip reports that say nothing new).
    public func sameState(as other: SchedulerReport) -> Bool {
        pid == other.pid && nextUnixSeconds == other.nextUnixSeconds && http == other.http && consumed == other.consumed
    }

    public var line: String { String(decoding: lineBytes, as: UTF8.self) }

    /// The line's bytes, as `write(2)` takes them (a participant writes one after every step).
    public var lineBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        func append(_ s: String) { out.append(contentsOf: s.utf8) }
        append("v1\t" + String(pid) + "\t" + String(seq))
        out.append(0x09)
        if let next = nextUnixSeconds { append(Self.millisecondText(next)) } else { out.append(UInt8(ascii: "-")) }
        out.append(0x09)
        let services = http.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        if services.isEmpty { out.append(UInt8(ascii: "-")) }
        for (i, s) in services.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            append(s.key + ":" + String(s.value))
        }
        for (name, generation) in consumed.sorted(by: { $0.key < $1.key }) {
            append("\t" + name + "=" + String(generation))
        }
        out.append(0x0A)
        return out
    }

    /// `String(format: "%.3f", seconds)` without Foundation's formatter (it was most of a
    /// report's cost, and a participant reports after every step; `harness bench notify`).
    static func millisecondText(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 9e15 else { return String(format: "%.3f", seconds) }
        let millis = Int64((seconds * 1000).rounded())
        let whole = (millis.magnitude / 1000), frac = millis.magnitude % 1000
        let digits = String(frac)
        return (seconds.sign == .minus ? "-" : "") + String(whole) + "." + String(repeating: "0", count: 3 - digits.count) + digits
    }

    /// Parses one line (without or with its newline); nil for anything malformed.
    public init?(line raw: Substring) {
        var utf8 = Array(raw.utf8)
        guard let r = utf8.withUnsafeMutableBufferPointer({ Self.parse(UnsafeBufferPointer($0)) }) else { return nil }
        self = r
    }

    /// Parses one line's bytes (without or with its newline); nil for anything malformed. Byte by
    /// byte: the harness parses every report of every step (as Strings split by Character it was
    /// 2 % of a virtual-time day's CPU). Numbers in the form participants write them are read
    /// directly; any other form goes through the standard library's parser, as before.
    public static func parse(_ raw: UnsafeBufferPointer<UInt8>) -> SchedulerReport? {
        var end = raw.count
        if end > 0 && raw[end - 1] == 0x0A { end -= 1 }
        // Field bounds, split at every tab (empty fields kept).
        var fields: [Range<Int>] = []
        fields.reserveCapacity(8)
        var start = 0
        for i in 0..<end where raw[i] == 0x09 {
            fields.append(start..<i)
            start = i + 1
        }
        fields.append(start..<end)
        guard fields.count >= 5 else { return nil }
        func bytes(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: raw[r]) }
        func text(_ r: Range<Int>) -> String { String(decoding: bytes(r), as: UTF8.self) }
        func isDash(_ r: Range<Int>) -> Bool { r.count == 1 && raw[r.lowerBound] == UInt8(ascii: "-") }
        let v1 = fields[0]
        guard v1.count == 2, raw[v1.lowerBound] == UInt8(ascii: "v"), raw[v1.lowerBound + 1] == UInt8(ascii: "1"),
            let pidValue = unsigned(bytes(fields[1])).flatMap({ $0 <= UInt64(Int32.max) ? Int32($0) : nil }) ?? Int32(text(fields[1])),
            let seq = unsigned(bytes(fields[2])) ?? UInt64(text(fields[2]))
        else { return nil }
        var next: Double?
        if !isDash(fields[3]) {
            guard let n = milliseconds(bytes(fields[3])) ?? Double(text(fields[3])), n.isFinite else { return nil }
            next = n
        }
        var http: [String: Int] = [:]
        if !isDash(fields[4]) {
            var entryStart = fields[4].lowerBound
            for i in fields[4].lowerBound...fields[4].upperBound where i == fields[4].upperBound || raw[i] == UInt8(ascii: ",") {
                defer { entryStart = i + 1 }
                guard i > entryStart else { continue }  // empty entries are skipped
                guard let colon = (entryStart..<i).last(where: { raw[$0] == UInt8(ascii: ":") }),
                    let count = unsigned(bytes(colon + 1..<i)).flatMap({ $0 <= UInt64(Int.max) ? Int($0) : nil }) ?? Int(text(colon + 1..<i)),
                    count >= 0
                else { return nil }
                http[text(entryStart..<colon)] = count
            }
        }
        var consumed: [String: UInt64] = [:]
        for f in fields.dropFirst(5) {
            guard let eq = f.last(where: { raw[$0] == UInt8(ascii: "=") }),
                let generation = unsigned(bytes(eq + 1..<f.upperBound)) ?? UInt64(text(eq + 1..<f.upperBound))
            else { return nil }
            consumed[text(f.lowerBound..<eq)] = generation
        }
        return SchedulerReport(pid: pidValue, seq: seq, nextUnixSeconds: next, http: http, consumed: consumed)
    }

    /// 1 to 19 ASCII digits (the form every participant writes), else nil.
    static func unsigned(_ b: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !b.isEmpty, b.count <= 19 else { return nil }
        var v: UInt64 = 0
        for c in b {
            guard c >= 0x30, c <= 0x39 else { return nil }
            v = v * 10 + UInt64(c - 0x30)
        }
        return v
    }

    /// `<digits>.<3 digits>` (what `millisecondText` writes) as millis / 1000 — correctly rounded,
    /// as `Double(String)` is, while the millis are exact in a Double — else nil.
    static func milliseconds(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard b.count >= 5, b.count <= 19, b[b.count - 4] == UInt8(ascii: "."),
            let whole = unsigned(UnsafeBufferPointer(rebasing: b[0..<(b.count - 4)])),
            let frac = unsigned(UnsafeBufferPointer(rebasing: b[(b.count - 3)...]))
        else { return nil }
        let millis = whole * 1000 + frac
        guard millis < (1 << 53) else { return nil }
        return Double(millis) / 1000
    }
}

/// A participant's end of the scheduler FIFO `<root>/system/scheduler` (PROTOCOL.md §9): reports
/// go in one `write(2)` each. Opened non-blocking: with no harness reading (no FIFO, or ENXIO)
/// there is no stepped time and `open` returns nil.
public final class SchedulerChannel: @unchecked Sendable {
    public static let fifoName = "scheduler"
    public static let directory = "system"
    /// Posted by the harness after every move of a stepped clock.
    public static let clockNotification = "system.clock"

    /// Posted by the harness to wake one participant whose reported deadline has come; each
    /// participant observes its own (and reports the generation it has taken in).
    public static func wakeNotification(pid: Int32) -> String { "system.wake.\(pid)" }

    private let fd: Int32
    private let lock = NSLock()
    private var seq: UInt64 = 0
    private var last: SchedulerReport?
    private let pid = getpid()

    init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// The channel, or nil when no harness steps time for this device root.
    public static func open(deviceRoot: DeviceRoot) -> SchedulerChannel? {
        guard let dir = try? deviceRoot.subdirectory(directory, create: false) else { return nil }
        let fd = openat(dir.fd, fifoName, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFIFO else {
            close(fd)
            return nil
        }
        return SchedulerChannel(fd: fd)
    }

    /// Reports idleness unless it says the same as the previous report. False when the write
    /// failed (the harness is gone, or the pipe is full): the harness then waits its bound.
    @discardableResult
    public func reportIdle(nextUnixSeconds: Double?, http: [String: Int], consumed: [String: UInt64]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        var report = SchedulerReport(pid: pid, seq: seq + 1, nextUnixSeconds: nextUnixSeconds, http: http, consumed: consumed)
        if let last, report.sameState(as: last) { return true }
        let bytes = report.lineBytes
        guard bytes.count <= SchedulerReport.maxLineBytes else { return false }
        let wrote = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
        guard wrote == bytes.count else { return false }
        seq += 1
        report.seq = seq
        last = report
        return true
    }
}

/// The harness's end of the scheduler FIFO: creates it, keeps it open for reading, and hands out
/// the reports that arrive (whole lines only).
public final class SchedulerInbox: @unchecked Sendable {
    public let fd: Int32
    /// Our own write end: with no writer at all a FIFO reads as end-of-file and `poll` returns at
    /// once (POLLHUP) — holding one keeps `read(timeoutMillis:)` a real wait.
    private let keepAliveFd: Int32
    private var pending: [UInt8] = []
    /// Reused by every read: a fresh 64 KiB array per call was a page-fault source in the
    /// harness's hottest loop.
    private var buffer = [UInt8](repeating: 0, count: 65536)
    /// Lines longer than this are dropped (and counted): a participant bug, never a hang.
    public private(set) var malformedLines = 0
    /// A pipe `nudge()` writes to: ends a `read(timeoutMillis:)` wait early from another thread,
    /// for news that does not come as a report (a prompt an app filed while it waits for the
    /// answer). -1 when the kernel gave none: waits then run to their timeout, as before.
    private let nudgeFd: Int32
    private let nudgeWriteFd: Int32

    public init(deviceRoot: DeviceRoot) throws {
        let dir = try deviceRoot.subdirectory(SchedulerChannel.directory)
        if mkfifoat(dir.fd, SchedulerChannel.fifoName, 0o600) != 0 && errno != EEXIST {
            throw AppGroupError.io(operation: "mkfifo", path: "\(dir.path)/\(SchedulerChannel.fifoName)", errno: errno)
        }
        // Read end non-blocking; held open for the whole run so writers never see ENXIO.
        fd = openat(dir.fd, SchedulerChannel.fifoName, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw AppGroupError.io(operation: "open", path: "\(dir.path)/\(SchedulerChannel.fifoName)", errno: errno) }
        keepAliveFd = openat(dir.fd, SchedulerChannel.fifoName, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        var pipeFds: [Int32] = [-1, -1]
        if sth_pipe_cloexec(&pipeFds, 1) != 0 { pipeFds = [-1, -1] }
        nudgeFd = pipeFds[0]
        nudgeWriteFd = pipeFds[1]
    }

    deinit {
        close(fd)
        if keepAliveFd >= 0 { close(keepAliveFd) }
        if nudgeFd >= 0 { close(nudgeFd) }
        if nudgeWriteFd >= 0 { close(nudgeWriteFd) }
    }

    /// Ends the current (or the next) `read(timeoutMillis:)` wait now. Safe from any thread.
    public func nudge() {
        guard nudgeWriteFd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(nudgeWriteFd, &byte, 1)  // a full pipe already holds a nudge
    }

    /// Waits up to `timeoutMillis` for data (or a `nudge()`), then returns every whole report that
    /// arrived.
    /// `alsoWaitFor`: more fds that end the wait when readable (the harness's children's pidfds,
    /// whose exit it waits for); they are not read.
    public func read(timeoutMillis: Int32, alsoWaitFor: [Int32] = []) -> [SchedulerReport] {
        if timeoutMillis > 0 {  // with no wait the read below says as much as poll would
            var p = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: nudgeFd, events: Int16(POLLIN), revents: 0)]
            p += alsoWaitFor.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&p, nfds_t(p.count), timeoutMillis)
            if p[1].revents & Int16(POLLIN) != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while Glibc.read(nudgeFd, &drain, drain.count) == drain.count {}
            }
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            pending.append(contentsOf: buffer[0..<n])
            if n < buffer.count { break }  // drained: no second read(2) just to see EAGAIN
        }
        var reports: [SchedulerReport] = []
        var start = 0
        while let nl = pending[start...].firstIndex(of: 0x0A) {
            let parsed = pending.withUnsafeBufferPointer { SchedulerReport.parse(UnsafeBufferPointer(rebasing: $0[start..<nl])) }
            start = nl + 1
            if let r = parsed { reports.append(r) } else { malformedLines += 1 }
        }
        if start > 0 { pending.removeFirst(start) }
        if pending.count > SchedulerReport.maxLineBytes {
            pending.removeAll()
            malformedLines += 1
        }
        return reports
    }
}

/// A participant's wake FIFO, `<root>/system/wake/<pid>` (PROTOCOL.md §9.1): the participant
/// creates it before its first report and reads it; the harness writes each wake's generation
/// there (8 bytes, little-endian) instead of posting `system.wake.<pid>`. Only that process is
/// woken: a post woke every process watching `notify/` (the harness's own watcher and every other
/// participant's, ~25 µs each) and cost the harness a locked temp + rename at every step. The
/// generation is reported under the same name, `system.wake.<pid>`; a participant without the
/// FIFO is woken by the post, as before.
public final class WakeReceiver: @unchecked Sendable {
    public static let directory = "wake"
    private let fd: Int32
    private let keepAliveFd: Int32
    private let lock = NSLock()
    private var generation: UInt64 = 0
    public let path: String

    /// Creates the FIFO and starts a thread that calls `onWake` with the newest generation written
    /// (after each batch it reads). Nil when there is no `system/` (no harness steps time) or the
    /// FIFO cannot be made: the participant then observes `system.wake.<pid>` instead.
    public init?(deviceRoot: DeviceRoot, pid: Int32 = getpid(), onWake: @escaping @Sendable (UInt64) -> Void) {
        guard let system = try? deviceRoot.subdirectory(SchedulerChannel.directory, create: false) else { return nil }
        if mkdirat(system.fd, Self.directory, 0o700) != 0 && errno != EEXIST { return nil }
        let dirFd = openat(system.fd, Self.directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dirFd >= 0 else { return nil }
        defer { close(dirFd) }
        let name = String(pid)
        unlinkat(dirFd, name, 0)  // a dead process's, whose pid came round again
        guard mkfifoat(dirFd, name, 0o600) == 0 else { return nil }
        fd = openat(dirFd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        // Our own write end: with no writer a FIFO polls as hung up; with it, poll waits.
        keepAliveFd = fd >= 0 ? openat(dirFd, name, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW) : -1
        guard fd >= 0, keepAliveFd >= 0 else {
            if fd >= 0 { close(fd) }
            unlinkat(dirFd, name, 0)
            return nil
        }
        path = "\(deviceRoot.path)/\(SchedulerChannel.directory)/\(Self.directory)/\(name)"
        let readFd = fd
        let thread = Thread { [self] in
            var buf = [UInt8](repeating: 0, count: 4096)
            var pending: [UInt8] = []
            while true {
                var p = pollfd(fd: readFd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, -1) < 0 && errno != EINTR { return }
                var newest: UInt64?
                while true {
                    let n = buf.withUnsafeMutableBytes { Glibc.read(readFd, $0.baseAddress, $0.count) }
                    if n <= 0 { break }
                    pending += buf[0..<n]
                }
                while pending.count >= 8 {
                    let g = (0..<8).reduce(UInt64(0)) { $0 | UInt64(pending[$1]) << (8 * UInt64($1)) }
                    newest = max(newest ?? 0, g)
                    pending.removeFirst(8)
                }
                guard let newest else { continue }
                lock.lock()
                let moved = newest > generation
                if moved { generation = newest }
                lock.unlock()
                if moved { onWake(newest) }
            }
        }
        thread.name = "wake"
        thread.start()
    }

    /// The newest generation read so far (0 before the first wake).
    public var lastGeneration: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return generation
    }
}

/// The harness's side of the wake FIFOs: per pid, the FIFO's write end (opened at the first wake),
/// its wake name and the generation last written. `wake` returns nil for a pid without a FIFO — the
/// harness posts `system.wake.<pid>` to it instead.
///
/// Making one ignores SIGPIPE in this process (see `init`): a wake can be written to a FIFO whose
/// reader just died.
public final class WakeSender: @unchecked Sendable {
    private let wakeDirectory: String
    private struct Fifo {
        var fd: Int32
        var name: String
        var generation: UInt64
    }
    private var fifos: [Int32: Fifo] = [:]
    /// `system.wake.<pid>` → pid, for the FIFOs above: the harness asks by name for every name
    /// every participant reported, at every look for blockers.
    private var pidsByName: [String: Int32] = [:]
    /// Pids found without a FIFO at their first wake (woken by posts from then on).
    private var withoutFifo: Set<Int32> = []

    public init(deviceRoot: DeviceRoot) {
        wakeDirectory = "\(deviceRoot.path)/\(SchedulerChannel.directory)/\(WakeReceiver.directory)"
        // A participant can die between its last report and its wake (a failpoint's kill, an exit
        // the harness has not reaped yet): the write to its FIFO, read by no one, then raised
        // SIGPIPE and killed the harness — exit 141, no message; `harness explore --jobs 2` ended so
        // at its 30th point. Ignored in this process, the write fails with EPIPE (below); the
        // children start with the default again (`sth_spawn`).
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { for f in fifos.values { close(f.fd) } }

    /// Wakes `pid` through its FIFO; the generation written, or nil when it has none.
    public func wake(_ pid: Int32) -> UInt64? {
        if withoutFifo.contains(pid) { return nil }
        if fifos[pid] == nil {
            let fd = open("\(wakeDirectory)/\(pid)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
            var st = stat()
            guard fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFIFO else {
                if fd >= 0 { close(fd) }
                withoutFifo.insert(pid)
                return nil
            }
            let name = SchedulerChannel.wakeNotification(pid: pid)
            fifos[pid] = Fifo(fd: fd, name: name, generation: 0)
            pidsByName[name] = pid
        }
        fifos[pid]!.generation += 1
        let f = fifos[pid]!
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: f.generation >> (8 * UInt64($0))) }
        // A full pipe (8,192 wakes unread) or a reader gone: the wake is as good as given — the
        // participant reads the newest generation when it reads at all, and a dead one is reaped.
        _ = write(f.fd, &bytes, 8)
        return f.generation
    }

    /// The generation last written to `pid`'s FIFO (`system.wake.<pid>`), nil if it has none.
    public func generation(of pid: Int32) -> UInt64? { fifos[pid]?.generation }

    /// The wake generation of `name` when it is a FIFO participant's `system.wake.<pid>`.
    public func generation(ofName name: String) -> UInt64? { pidsByName[name].flatMap { fifos[$0]?.generation } }

    /// `pid` exited: its FIFO is closed and removed.
    public func forget(_ pid: Int32) {
        if let f = fifos.removeValue(forKey: pid) {
            close(f.fd)
            pidsByName[f.name] = nil
        }
        withoutFifo.remove(pid)
        unlink("\(wakeDirectory)/\(pid)")
    }
}
