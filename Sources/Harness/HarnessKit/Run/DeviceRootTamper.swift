import AppGroup
import Foundation
import ScreenTimeModel
import TreeWatch

#if canImport(Glibc)
import Glibc
#endif

/// Tampering with the device root from outside the run, beyond the clock (`HarnessClock.tamper`):
/// something no process of the system could have made. A notify record
/// replaced by a FIFO was blamed on the app as `no-store-corrupt` (exit 1); a suite replaced by a
/// symlink to /etc/shadow gave five violations. Now either is a `tamper` history line: the run
/// stops and is undecided (TAMPERED, exit 2), with what changed.
///
/// What the system's processes can make (PROTOCOL.md §1): directories, and regular files written
/// by temp + rename — nothing else, except the harness's own scheduler FIFO (`system/scheduler`,
/// PROTOCOL.md §9). So any other kind of file anywhere below `notify/`, `containers/`, `sandboxes/` or
/// `system/` — a FIFO, socket, device or symlink — came from outside. Content: every participant
/// writes through the protocol's encoders, so a notify record that is not one, a `system/` record
/// that is not JSON within its bound, a suite plist (an App Group's, or a process's private store
/// in its sandbox) that does not decode or that no writer put in place, a heartbeat that is not
/// one, a quarantined notify record, or a quarantined suite in a run without the harness's own
/// `torn_write` fault, was written by someone else too. The app's own files (anything else in a
/// container or a sandbox) are judged by their kind only.
///
/// **Driven by events.** A recursive watch of the root (`TreeWatch`, libinotifytools) says which
/// file changed; only that file is judged, at the main loop's next turn 2 ms after the last take
/// (a file changed many times meanwhile is judged once). A full look at every
/// area happens at the first check, once more after the processes are gone, and when the watch
/// lost events (`IN_Q_OVERFLOW`, a directory it could not watch) — said in the history as a
/// `tamper_scan` line. Without a watch (inotify refused one), the full look runs every 20 ms of
/// wall time instead, and the history says that too. A file written in place is judged when its
/// writer closes it or renames it into place, not while it is held open.
package final class DeviceRootTamper {
    let root: DeviceRoot
    /// `os.faults: torn_write` tears suites on purpose: a malformed suite is then the fault's.
    let tornWritesPlanned: Bool
    /// Without a watch: wall time between full looks in the main loop.
    static let scanIntervalNanos: Int64 = 20_000_000
    /// Watched: wall time between two takes of the watch's events (a file changed many times
    /// meanwhile is judged once; the main loop turns far more often than this under virtual time).
    static let watchIntervalNanos: Int64 = 2_000_000
    /// Bounds of one full look: entries looked at, and directory depth below the root.
    static let maxEntries = 50_000
    static let maxDepth = 8
    /// The areas of the root that only the system's processes write (PROTOCOL.md §1).
    static let areas = ["notify", "containers", "sandboxes", "system"]
    /// `STH_TAMPER_DETECTION=scan`: no watch, the 20 ms full look (the benchmark's baseline).
    static let detectionVariable = "STH_TAMPER_DETECTION"
    /// The history line that says how the root was looked at when not by its watch alone.
    static let scanEvent = HarnessLine.tamperScan.rawValue
    /// The only files that are not regular files by design (PROTOCOL.md §9): the scheduler FIFO
    /// and the participants' wake FIFOs, `system/wake/<pid>`.
    package static func isProtocolFifo(_ path: String) -> Bool {
        if path == "system/" + SchedulerChannel.fifoName { return true }
        let wake = "system/" + WakeReceiver.directory + "/"
        return path.hasPrefix(wake) && Int32(path.dropFirst(wake.count)) != nil
    }

    /// `system/` files by path and their stamp when last judged: a file is read again only when
    /// its stamp moved.
    private var systemStamps: [String: Stamp] = [:]
    struct Stamp: Equatable {
        var inode: UInt64, size: Int64, mtime: Int64, ctime: Int64
        init(_ st: stat) {
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            ctime = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        }
    }
    /// What `system/` holds that is not a JSON record by design: the harness's own fault tokens.
    static let systemNonRecords: Set<String> = ["system/faults"]

    private var lastScanNanos: Int64 = 0
    /// One `tamper` line per run: the first change found stops it.
    private var reported = false
    private var quarantineBytesSeen = 0

    /// The root's watch; nil when the root is scanned every 20 ms instead.
    private var watch: TreeWatch?
    /// A full look is due (the first check; events were lost).
    private var fullLookDue = true
    /// Files changed since they were last judged, in the order they changed; a suite whose lock
    /// was held stays for the next turn.
    private var dirty: [String] = []
    private var dirtySet: Set<String> = []
    /// Why the root was looked at whole, for the history (`tamper_scan`), not yet taken.
    private var notes: [String] = []
    /// Directories opened to judge their files, by path (dropped when one is removed or moved).
    private var directories: [String: SafeDirectory] = [:]
    /// Counters for the benchmark and the tests: events taken, files judged, full looks.
    private(set) var eventsTaken = 0
    private(set) var filesJudged = 0
    private(set) var fullLooks = 0

    init(root: DeviceRoot, tornWritesPlanned: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.root = root
        self.tornWritesPlanned = tornWritesPlanned
        if environment[Self.detectionVariable] == "scan" {
            notes.append("\(Self.detectionVariable)=scan: the device root is looked at whole every \(Self.scanIntervalNanos / 1_000_000) ms of wall time, not watched")
            return
        }
        do {
            watch = try TreeWatch(root: root.path, deletions: true)
        } catch {
            notes.append("the device root cannot be watched (\(error)): it is looked at whole every \(Self.scanIntervalNanos / 1_000_000) ms of wall time instead")
        }
    }

    deinit { watch?.close() }

    /// Whether the root is watched (false: scanned every 20 ms).
    var watched: Bool { watch != nil }

    /// Why the root was looked at whole since the last call (each a `tamper_scan` line).
    func takeNotes() -> [String] {
        defer { notes = [] }
        return notes
    }

    /// True once: the caller reports a change found elsewhere as this run's tampering.
    func claim() -> Bool {
        defer { reported = true }
        return !reported
    }

    /// What someone outside the run changed, or nil. Watched: the files changed since the last
    /// call; a full look the first time, after lost events, and when `force`d (the end).
    /// Scanned: a full look at most once per `scanIntervalNanos` unless `force`.
    func check(nowNanos: Int64, force: Bool = false) -> (file: String, what: String)? {
        guard !reported else { return nil }
        var found: (file: String, what: String)?
        if let watch {
            guard force || fullLookDue || nowNanos &- lastScanNanos >= Self.watchIntervalNanos else { return nil }
            lastScanNanos = nowNanos
            for event in watch.events() { take(event) }
            if fullLookDue || force {
                fullLookDue = false
                found = look()
            }
            if found == nil { found = judgeDirty() }
        } else {
            guard force || nowNanos &- lastScanNanos >= Self.scanIntervalNanos else { return nil }
            lastScanNanos = nowNanos
            found = look()
        }
        reported = found != nil
        return found
    }

    /// The name each file renamed away had, by the cookie that pairs it with where it went.
    private var renamedAway: [UInt32: String] = [:]
    /// Protocol files renamed into place from something other than a writer's temp file, and from
    /// what (nil: from outside the watched root).
    private var foreignRenames: [String: String?] = [:]

    private func take(_ event: TreeWatch.Event) {
        eventsTaken += 1
        switch event.kind {
        case .movedOut where !event.isDirectory:
            renamedAway[event.cookie] = event.path
            if renamedAway.count > 4096 { renamedAway = [event.cookie: event.path] }
        case .movedIn where !event.isDirectory:
            let from = renamedAway.removeValue(forKey: event.cookie)
            if Self.isProtocolFile(event.path), !Self.isWritersTemp(from, of: event.path) {
                foreignRenames[event.path] = .some(from)
                if foreignRenames.count > 4096 { foreignRenames = [event.path: from] }
            }
            mark(event.path)
        case .lost:
            fullLookDue = true
            notes.append("\(event.reason ?? "events were lost"): the device root was looked at whole")
        case .rootGone:
            // The harness removes the root only after the run; someone else did it.
            mark("")
        case .deleted, .movedOut:
            if event.isDirectory {
                let prefix = event.path + "/"
                directories = directories.filter { $0.key != event.path && !$0.key.hasPrefix(prefix) }
            }
        case .created, .written, .movedIn:
            mark(event.path)
        }
    }

    private func mark(_ path: String) {
        if dirtySet.insert(path).inserted { dirty.append(path) }
    }

    private func judgeDirty() -> (file: String, what: String)? {
        guard !dirty.isEmpty else { return nil }
        let paths = dirty
        dirty = []
        dirtySet = []
        for (i, path) in paths.enumerated() {
            switch judge(path) {
            case .fine: continue
            case .later: mark(path)
            case .foreign(let file, let what):
                for rest in paths[(i + 1)...] { mark(rest) }
                return (file, what)
            }
        }
        return nil
    }

    /// Every area, and what the quarantine file gained.
    func look() -> (file: String, what: String)? {
        fullLooks += 1
        defer { suitesLookedAt = true }
        var budget = Self.maxEntries
        for top in Self.areas {
            if let found = walk(top, depth: 0, budget: &budget) { return found }
        }
        return foreignContent()
    }

    /// Judges `relative` and, for a directory, everything below it.
    private func walk(_ relative: String, depth: Int, budget: inout Int) -> (file: String, what: String)? {
        switch judge(relative) {
        case .foreign(let file, let what): return (file, what)
        case .later: mark(relative)
        case .fine: break
        }
        guard depth < Self.maxDepth, let dir = try? root.subdirectory(relative, create: false), let names = try? dir.entries(limit: budget) else {
            return nil
        }
        for name in names {
            guard budget > 0 else { return nil }
            budget -= 1
            var st = stat()
            guard fstatat(dir.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let path = relative + "/" + name
            if st.st_mode & S_IFMT == S_IFDIR {
                if let found = walk(path, depth: depth + 1, budget: &budget) { return found }
            } else {
                switch judge(path) {
                case .foreign(let file, let what): return (file, what)
                case .later: mark(path)
                case .fine: continue
                }
            }
        }
        return nil
    }

    enum Judgement: Equatable {
        case fine
        /// Not judged now (a suite whose lock a writer holds): look again next turn.
        case later
        case foreign(file: String, what: String)
    }

    /// One file (or directory) of the root, by the rules of its area.
    func judge(_ relative: String) -> Judgement {
        filesJudged += 1
        if let from = foreignRenames.removeValue(forKey: relative) {
            let source = from.map { "from \($0)" } ?? "from outside the device root"
            return .foreign(file: relative, what: "\(relative) was renamed into place \(source): every writer renames its own temp file (.tmp.<pid>.<counter>.…<name>, PROTOCOL.md §1) into place, so someone outside the run put it there")
        }
        if relative.isEmpty {
            guard (try? DeviceRoot(path: root.path, create: false)) != nil else {
                return .foreign(file: "", what: "the device root was removed or replaced during the run: only the harness removes it, after the run")
            }
            return .fine
        }
        if relative == DeviceRoot.quarantineFileName {
            return foreignContent().map { .foreign(file: $0.file, what: $0.what) } ?? .fine
        }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, Self.areas.contains(parts[0]) else { return .fine }
        if relative.hasPrefix("system/"), Self.systemNonRecords.contains(where: { relative == $0 || relative.hasPrefix($0 + "/") }) { return .fine }
        let parent = parts.dropLast().joined(separator: "/")
        let name = parts[parts.count - 1]
        guard let dir = directory(parent) else { return .fine }
        var st = stat()
        guard fstatat(dir.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return .fine }  // gone meanwhile
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return .fine
        case S_IFREG: break
        case S_IFIFO where Self.isProtocolFifo(relative): return .fine
        default:
            return .foreign(file: relative, what: Self.sentence(relative, Self.kind(st.st_mode)))
        }
        if name.hasPrefix(".") { return .fine }  // locks, temps, notify records set aside
        switch parts[0] {
        case "notify":
            guard parts.count == 2, case .corrupt(let reason)? = try? DarwinNotificationCenter.readRecordFile(name, in: dir) else { return .fine }
            return .foreign(file: relative, what: "\(relative) is not a notify record (\(reason)): every participant writes records through the protocol's encoder, so someone outside the run wrote it")
        case "system":
            let stamp = Stamp(st)
            guard systemStamps[relative] != stamp else { return .fine }
            systemStamps[relative] = stamp
            if systemStamps.count > Self.maxEntries { systemStamps = [relative: stamp] }
            switch Self.notARecord(dir.fd, name, size: Int(st.st_size)) {
            case nil: return .fine
            case Self.lookAgain?:
                systemStamps[relative] = nil
                return .later
            case let why?:
                return .foreign(file: relative, what: "\(relative) is not a system record (\(why)): every process of the system writes them as JSON through temp + rename, so someone outside the run wrote it")
            }
        default:
            if Self.isSuite(parts) { return judgeSuite(relative, dir, name) }
            if Self.isHeartbeat(parts) { return judgeHeartbeat(relative, dir, name) }
            return .fine  // the app's own file: any regular file will do
        }
    }

    /// `containers/<group>/Library/Preferences/<suite>.plist`, or a process's private store,
    /// `sandboxes/<process>/Library/Preferences/<name>.plist` (`standard.plist` for
    /// `UserDefaults.standard`; Linux Foundation's own plists go to `.config/`, not here).
    static func isSuite(_ parts: [String]) -> Bool {
        parts.count == 5 && parts[2] == "Library" && parts[3] == "Preferences" && parts[4].hasSuffix(".plist")
    }

    /// A file only the protocol's writers put in place, each by renaming its temp file: a notify
    /// record, a suite plist, a heartbeat, a `system/` record.
    static func isProtocolFile(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let name = parts.last, !name.hasPrefix("."), parts.count >= 2 else { return false }
        switch parts[0] {
        case "notify": return parts.count == 2
        case "system": return !systemNonRecords.contains(where: { relative.hasPrefix($0 + "/") }) && !isProtocolFifo(relative)
        default: return isSuite(parts) || isHeartbeat(parts)
        }
    }

    /// `from` is a writer's temp file for `to` (PROTOCOL.md §1): in the same directory, named
    /// `.tmp.<pid>.<counter>.[<tag>.]<name>` (the name cut where the whole would pass 255 bytes).
    static func isWritersTemp(_ from: String?, of to: String) -> Bool {
        guard let from else { return false }
        let fromDir = from.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let toParts = to.split(separator: "/", omittingEmptySubsequences: false)
        guard fromDir == toParts.dropLast(), let temp = from.split(separator: "/").last, let final = toParts.last else { return false }
        let fields = temp.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0].isEmpty, fields[1] == "tmp", !fields[2].isEmpty, fields[2].allSatisfy(\.isNumber) else { return false }
        let rest = fields[3]  // <counter>.[<tag>.]<name>
        guard let dot = rest.firstIndex(of: "."), rest[..<dot].allSatisfy(\.isNumber), !rest[..<dot].isEmpty else { return false }
        let tail = rest[rest.index(after: dot)...]
        return tail.hasSuffix(final) || temp.utf8.count == 255
    }

    /// `containers/<group>/Heartbeats/<writer>.json` (PROTOCOL.md §5).
    static func isHeartbeat(_ parts: [String]) -> Bool {
        parts.count == 4 && parts[0] == "containers" && parts[2] == "Heartbeats" && parts[3].hasSuffix(".json")
    }

    private func directory(_ relative: String) -> SafeDirectory? {
        if let d = directories[relative] { return d }
        guard let d = try? root.subdirectory(relative, create: false) else { return nil }
        if directories.count >= 256 { directories = [:] }
        directories[relative] = d
        return d
    }

    private func judgeSuite(_ relative: String, _ dir: SafeDirectory, _ name: String) -> Judgement {
        guard let look = Self.suiteLook(dir.fd, name) else { return .later }
        let firstSeen = suitesSeen.insert(relative).inserted
        if look.committed == 0 && look.pending == 0 {
            if firstSeen && suitesLookedAt {
                return .foreign(file: relative, what: "\(relative) appeared with no writer's record in its lock file: every writer records the plist it renames into place (PROTOCOL.md §3), so someone outside the run put it there")
            }
        } else if look.inode != look.committed && look.inode != look.pending {
            return .foreign(file: relative, what: "\(relative) was replaced (inode \(look.inode); its writers last put \(look.committed) in place): every writer records the plist it renames into place (PROTOCOL.md §3), so someone outside the run swapped it")
        }
        guard !tornWritesPlanned else { return .fine }
        let why: String
        do {
            guard let bytes = try dir.readFile(name, limitBytes: SharedDefaults.maxSuiteBytes) else { return .fine }
            let decoded = try PropertyListCodec.decodeDictionaryKeepingGoodKeys(bytes)
            guard let bad = decoded.badKeys.first else { return .fine }
            why = "key \(String(reflecting: bad.key)): \(bad.reason)"
        } catch AppGroupError.malformedFile(_, let reason) {
            why = reason
        } catch {
            why = "not a property list: \(Excerpt.inner("\(error)", limit: 120))"
        }
        return .foreign(file: relative, what: "\(relative) holds something no writer of the protocol writes (\(why)): someone outside the run wrote it")
    }

    private func judgeHeartbeat(_ relative: String, _ dir: SafeDirectory, _ name: String) -> Judgement {
        do {
            guard let bytes = try dir.readSmallFile(name, maxBytes: HeartbeatRecord.maxFileBytes) else { return .fine }
            _ = try HeartbeatRecord.decode(bytes, fileName: name)
            return .fine
        } catch {
            return .foreign(file: relative, what: "\(relative) is not a heartbeat record (\(Excerpt.inner("\(error)", limit: 120))): every writer writes them through the protocol's encoder, so someone outside the run wrote it")
        }
    }

    /// Suite plists seen so far (one seen for the first time after the first look appeared during the run).
    private var suitesSeen: Set<String> = []
    private var suitesLookedAt = false

    /// The plist's inode and the lock file's committed and pending inodes (words 1 and 2), read
    /// under a shared non-blocking flock; nil when a writer holds the lock, or the plist is not a
    /// regular file (`judge` calls those foreign by their kind).
    static func suiteLook(_ dirFd: Int32, _ name: String) -> (inode: UInt64, committed: UInt64, pending: UInt64)? {
        let lock = openat(dirFd, name + ".lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard lock >= 0 else { return stampOfRegularFile(dirFd, name).map { ($0.inode, 0, 0) } }
        defer { close(lock) }
        guard flock(lock, LOCK_SH | LOCK_NB) == 0 else { return nil }
        defer { flock(lock, LOCK_UN) }
        var words = (UInt64(0), UInt64(0), UInt64(0))
        let n = withUnsafeMutableBytes(of: &words) { pread(lock, $0.baseAddress, 24, 0) }
        let committed = n >= 16 ? UInt64(littleEndian: words.1) : 0
        let pending = n >= 24 ? UInt64(littleEndian: words.2) : 0
        return stampOfRegularFile(dirFd, name).map { ($0.inode, committed, pending) }
    }

    static func stampOfRegularFile(_ dirFd: Int32, _ name: String) -> Stamp? {
        var st = stat()
        guard fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Stamp(st)
    }

    /// `notARecord`'s answer for a file that changed while it was read: not judged this time.
    static let lookAgain = "look again"

    /// Why the file is not a record, or nil when it is one (absent meanwhile: nil, nothing to judge).
    static func notARecord(_ dirFd: Int32, _ name: String, size: Int) -> String? {
        let limit = OSPaths.maxRecordBytes
        guard size <= limit else { return "over the \(limit) bytes a record may hold" }
        let fd = openat(dirFd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // The size as stat saw it, and a page more: a file replaced meanwhile is read whole or
        // seen over the limit.
        var bytes = [UInt8](repeating: 0, count: min(limit, size + 4096) + 1)
        var n = 0
        while n < bytes.count {
            let r = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + n, $0.count - n) }
            if r < 0 && errno == EINTR { continue }
            guard r > 0 else { break }
            n += r
        }
        if n == bytes.count {
            // Replaced by a larger file since the stat: judged again at the next scan.
            guard bytes.count > limit else { return Self.lookAgain }
            return "over the \(limit) bytes a record may hold"
        }
        guard (try? JSONSerialization.jsonObject(with: Data(bytes[..<n]))) != nil else {
            return "not JSON: " + Excerpt.quoted(bytes: bytes[..<min(n, 40)])
        }
        return nil
    }

    package static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symlink"
        default: return "not a regular file"
        }
    }

    static func sentence(_ path: String, _ kind: String) -> String {
        "\(path) is \(kind): no process of the system makes one (they write regular files, temp + rename), so someone outside the run put it there"
    }

    /// A quarantine (PROTOCOL.md §1: `quarantine.jsonl`) of something no participant writes: a
    /// notify record that is not one, a file that was not a regular file, or — unless the scenario
    /// tears suites itself (`torn_write`) — a malformed suite. Reads only what was appended since
    /// the last look.
    func foreignContent() -> (file: String, what: String)? {
        guard let st = try? root.directory.statEntry(DeviceRoot.quarantineFileName), Int(st.st_size) > quarantineBytesSeen else { return nil }
        let lines = root.quarantineRecords()
        quarantineBytesSeen = Int(st.st_size)
        for line in lines {
            guard let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { continue }
            let file = obj["file"] as? String ?? "?"
            let reason = obj["reason"] as? String ?? "?"
            let relative = file.hasPrefix(root.path) ? String(file.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/")) : file
            let isSuite = relative.hasPrefix("containers/") && relative.hasSuffix(".plist")
            let notRegular = reason.contains("not a regular file") || reason.contains("symlink")
            // Written over from outside, or holding a value no writer writes (each refuses it).
            let replaced = reason.hasPrefix(SharedDefaults.replacedFromOutside) || reason.hasPrefix(SharedDefaults.keyLeftOut)
            guard notRegular || replaced || !isSuite || !tornWritesPlanned else { continue }
            return (
                relative,
                "\(relative) held something no process of the system writes (\(Excerpt.inner(reason))); someone outside the run wrote it"
            )
        }
        return nil
    }
}

extension LiveRun {
    /// Once per turn of the main loop (`stopRequested`), and at the end (`recordTamperAtTheEnd`).
    func deviceRootTamper(force: Bool = false) -> (file: String, what: String)? {
        let found = tamperWatch.check(nowNanos: Self.now(), force: force)
        for why in tamperWatch.takeNotes() { rec.record(.tamperScan, ["why": why]) }
        if let found { return found }
        // A system/ record the OS could not read: every writer of system/ goes through
        // OSFiles (bounded, valid JSON, temp + rename), so someone outside wrote it.
        if let error = emulated.files.systemFileErrors.first, tamperWatch.claim() {
            return ("system/", "a system/ record holds something no process of the system writes (\(Excerpt.inner(error, limit: 160))); someone outside the run wrote it")
        }
        return nil
    }

    /// A last look when the processes are gone: tampering that happened between two scans (a FIFO
    /// a participant has since quarantined) still makes the run undecided.
    func recordTamperAtTheEnd() {
        guard let found = deviceRootTamper(force: true) else { return }
        o.progress("device root tampered with: \(found.what); the run is undecided")
        rec.record(.tamper, ["file": found.file, "what": found.what])
    }
}
