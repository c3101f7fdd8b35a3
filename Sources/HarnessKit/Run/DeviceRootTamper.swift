import AppGroup
import Foundation
import ScreenTimeModel

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
/// §9). So any other kind of file anywhere below `notify/`, `containers/` or `system/` — a FIFO,
/// socket, device or symlink — came from outside. Content: every participant writes suites and
/// notify records through the protocol's encoders, so a notify record that is not one (the scan
/// reads them all), a `system/` record that is not JSON within its bound (`foreignSystemRecord`),
/// a quarantined notify record, or a quarantined suite in a run without the harness's own
/// `torn_write` fault, was written by someone else too.
final class DeviceRootTamper {
    let root: DeviceRoot
    /// `os.faults: torn_write` tears suites on purpose: a malformed suite is then the fault's.
    let tornWritesPlanned: Bool
    /// Wall time between scans in the main loop (a `readdir` of each protocol directory, with
    /// `d_type`: no `stat` per entry).
    static let scanIntervalNanos: Int64 = 20_000_000
    /// Bounds of one scan: entries looked at, and directory depth below the root.
    static let maxEntries = 50_000
    static let maxDepth = 8
    /// The only files that are not regular files by design (PROTOCOL.md §9): the scheduler FIFO
    /// and the participants' wake FIFOs, `system/wake/<pid>`.
    static func isProtocolFifo(_ path: String) -> Bool {
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

    init(root: DeviceRoot, tornWritesPlanned: Bool) {
        self.root = root
        self.tornWritesPlanned = tornWritesPlanned
    }

    /// True once: the caller reports a change found elsewhere as this run's tampering.
    func claim() -> Bool {
        defer { reported = true }
        return !reported
    }

    /// What someone outside the run changed, or nil; at most once per `scanIntervalNanos` unless `force`.
    func check(nowNanos: Int64, force: Bool = false) -> (file: String, what: String)? {
        guard !reported, force || nowNanos &- lastScanNanos >= Self.scanIntervalNanos else { return nil }
        lastScanNanos = nowNanos
        let found = foreignFile() ?? foreignNotifyRecord() ?? foreignSystemRecord() ?? swappedSuite() ?? foreignContent()
        reported = found != nil
        return found
    }

    /// Suite plists seen so far (one seen for the first time after the first look appeared during the run).
    private var suitesSeen: Set<String> = []
    private var suitesLookedAt = false

    /// A suite plist that no writer of the protocol put in place (PROTOCOL.md §3): every writer
    /// records the temp file's inode in the lock file (pending) before its rename and, after it,
    /// bumps the generation with that inode as the committed one — so, killed anywhere, the plist
    /// in place is the committed or the pending one. Any other — swapped by someone outside the run,
    /// even for a valid suite — is tampering, and so is a plist that appeared during the run with
    /// no inode recorded at all. Read under a shared non-blocking flock (a write under way: looked
    /// at next time). A swap that a participant writes over before this scan looks is recorded by
    /// that participant (`quarantine.jsonl`, `foreignContent`). Not seen: a swap with a file that
    /// got the inode number of a committed plist a killed writer's rename freed (the file system
    /// reuses freed numbers) — it needs a writer killed inside its rename-to-record window first.
    func swappedSuite() -> (file: String, what: String)? {
        defer { suitesLookedAt = true }
        guard let containers = try? root.subdirectory("containers", create: false),
            let groups = try? containers.entries(limit: Self.maxEntries)
        else { return nil }
        for group in groups where !group.hasPrefix(".") {
            let relative = "containers/\(group)/Library/Preferences"
            guard let dir = try? root.subdirectory(relative, create: false), let names = try? dir.entries(limit: Self.maxEntries) else { continue }
            for name in names where !name.hasPrefix(".") && name.hasSuffix(".plist") {
                let path = relative + "/" + name
                guard let look = Self.suiteLook(dir.fd, name) else { continue }
                let firstSeen = suitesSeen.insert(path).inserted
                if look.committed == 0 && look.pending == 0 {
                    guard firstSeen && suitesLookedAt else { continue }
                    return (path, "\(path) appeared with no writer's record in its lock file: every writer records the plist it renames into place (PROTOCOL.md §3), so someone outside the run put it there")
                }
                guard look.inode != look.committed && look.inode != look.pending else { continue }
                return (path, "\(path) was replaced (inode \(look.inode); its writers last put \(look.committed) in place): every writer records the plist it renames into place (PROTOCOL.md §3), so someone outside the run swapped it")
            }
        }
        return nil
    }

    /// The plist's inode and the lock file's committed and pending inodes (words 1 and 2), read
    /// under a shared non-blocking flock; nil when a writer holds the lock, or the plist is not a
    /// regular file (`foreignFile` judges those).
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

    /// A file of a kind no process of the system makes, below the protocol's directories.
    func foreignFile() -> (file: String, what: String)? {
        var budget = Self.maxEntries
        for top in ["notify", "containers", "system"] {
            if let found = walk(root.directory.fd, top, depth: 0, budget: &budget) { return found }
        }
        return nil
    }

    private func walk(_ parentFd: Int32, _ relative: String, depth: Int, budget: inout Int) -> (file: String, what: String)? {
        let name = (relative as NSString).lastPathComponent
        let fd = openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOTDIR, let kind = kind(at: parentFd, name) { return (relative, Self.sentence(relative, kind)) }
            return nil  // absent (not made yet): nothing to judge
        }
        guard let dir = fdopendir(fd) else {
            close(fd)
            return nil
        }
        defer { closedir(dir) }
        while budget > 0, let entry = readdir(dir) {
            budget -= 1
            let child = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if child == "." || child == ".." { continue }
            let path = relative + "/" + child
            var type = entry.pointee.d_type
            if type == UInt8(DT_UNKNOWN) {
                var st = stat()
                guard fstatat(dirfd(dir), child, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                type = Self.direntType(st.st_mode)
            }
            switch Int(type) {
            case Int(DT_REG): continue
            case Int(DT_DIR):
                if depth + 1 < Self.maxDepth, let found = walk(dirfd(dir), path, depth: depth + 1, budget: &budget) { return found }
            default:
                if type == UInt8(DT_FIFO) && Self.isProtocolFifo(path) { continue }
                let kind = kind(at: dirfd(dir), child) ?? "not a regular file"
                return (path, Self.sentence(path, kind))
            }
        }
        return nil
    }

    /// A notify record that is not one, read by the writers' own rule
    /// (`DarwinNotificationCenter.readRecordFile`). Read here because a post whose state is known
    /// no longer reads its record (PROTOCOL.md §4.2, "Posting without reading"): an outsider's
    /// record would otherwise be replaced unseen. Dot names are the lock and temps, not records.
    func foreignNotifyRecord() -> (file: String, what: String)? {
        let top = DarwinNotificationCenter.directoryName
        guard let notify = try? root.subdirectory(top, create: false), let names = try? notify.entries(limit: Self.maxEntries) else { return nil }
        for name in names where !name.hasPrefix(".") {
            guard case .corrupt(let reason)? = try? DarwinNotificationCenter.readRecordFile(name, in: notify) else { continue }
            let path = top + "/" + name
            return (path, "\(path) is not a notify record (\(reason)): every participant writes records through the protocol's encoder, so someone outside the run wrote it")
        }
        return nil
    }

    /// A `system/` record that is not one: every writer of `system/` — the harness, the
    /// frameworks (`SystemArea`), the app inbox — writes a JSON document of at most
    /// `SystemPaths.maxRecordBytes` by temp + rename (dot names are locks and temps). Garbage in
    /// `authorization/familycontrols.json` was blamed on the app; random bytes in a
    /// `deviceactivity` record the OS had already read went unseen. Each file is read again only
    /// when its stamp (inode, size, mtime, ctime) moved since it was last judged.
    func foreignSystemRecord() -> (file: String, what: String)? {
        var budget = Self.maxEntries
        var seen: Set<String> = []
        defer { systemStamps = systemStamps.filter { seen.contains($0.key) } }
        return records(root.directory.fd, "system", depth: 0, budget: &budget, seen: &seen)
    }

    private func records(_ parentFd: Int32, _ relative: String, depth: Int, budget: inout Int, seen: inout Set<String>) -> (file: String, what: String)? {
        guard !Self.systemNonRecords.contains(relative) else { return nil }
        let fd = openat(parentFd, String(relative.split(separator: "/").last ?? ""), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0, let dir = fdopendir(fd) else {
            if fd >= 0 { close(fd) }
            return nil
        }
        defer { closedir(dir) }
        while budget > 0, let entry = readdir(dir) {
            budget -= 1
            let child = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if child.hasPrefix(".") { continue }
            let path = relative + "/" + child
            var st = stat()
            guard fstatat(dirfd(dir), child, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                if depth + 1 < Self.maxDepth, let found = records(dirfd(dir), path, depth: depth + 1, budget: &budget, seen: &seen) { return found }
            case S_IFREG:
                seen.insert(path)
                let stamp = Stamp(st)
                guard systemStamps[path] != stamp else { continue }
                systemStamps[path] = stamp
                switch Self.notARecord(dirfd(dir), child, size: Int(st.st_size)) {
                case nil: continue
                case Self.lookAgain?: systemStamps[path] = nil
                case let why?:
                    return (path, "\(path) is not a system record (\(why)): every process of the system writes them as JSON through temp + rename, so someone outside the run wrote it")
                }
            default:
                continue  // foreignFile judges the other kinds
            }
        }
        return nil
    }

    /// `notARecord`'s answer for a file that changed while it was read: not judged this time.
    static let lookAgain = "look again"

    /// Why the file is not a record, or nil when it is one (absent meanwhile: nil, nothing to judge).
    static func notARecord(_ dirFd: Int32, _ name: String, size: Int) -> String? {
        let limit = SystemPaths.maxRecordBytes
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

    private func kind(at dirFd: Int32, _ name: String) -> String? {
        var st = stat()
        guard fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symlink"
        case S_IFREG, S_IFDIR: return nil
        default: return "not a regular file"
        }
    }

    static func direntType(_ mode: mode_t) -> UInt8 {
        switch mode & S_IFMT {
        case S_IFREG: return UInt8(DT_REG)
        case S_IFDIR: return UInt8(DT_DIR)
        case S_IFIFO: return UInt8(DT_FIFO)
        case S_IFLNK: return UInt8(DT_LNK)
        case S_IFSOCK: return UInt8(DT_SOCK)
        case S_IFCHR: return UInt8(DT_CHR)
        case S_IFBLK: return UInt8(DT_BLK)
        default: return UInt8(DT_UNKNOWN)
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
        if let found = tamperWatch.check(nowNanos: Self.now(), force: force) { return found }
        // A system/ record the OS could not read: every writer of system/ goes through
        // SystemFiles (bounded, valid JSON, temp + rename), so someone outside wrote it.
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
        rec.record(RunJudgement.tamperEvent, ["file": found.file, "what": found.what])
    }
}
