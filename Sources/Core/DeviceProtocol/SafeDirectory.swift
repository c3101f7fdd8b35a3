import CSystemShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An open directory inside the device root. Every operation is relative to its fd (`openat`
/// family) with `O_NOFOLLOW`, so no symlink is ever followed and no path leaves the root: a
/// planted symlink is reported as `AppGroupError.symlinkRefused` (PROTOCOL.md §1).
public final class SafeDirectory: @unchecked Sendable {
    public let fd: Int32
    /// Human-readable path, for messages only; never used to open anything.
    public let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens `path` as a root directory (creating it 0700 if needed). The root itself is opened
    /// by path; everything below it is reached through fds.
    public static func openRoot(_ path: String, create: Bool = true) throws -> SafeDirectory {
        if create {
            // mkdir -p for the root path: the root is given by the user, so normal resolution applies.
            var prefix = path.hasPrefix("/") ? "" : "."
            for comp in path.split(separator: "/") {
                prefix += "/" + comp
                if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                    throw AppGroupError.io(operation: "mkdir", path: prefix, errno: errno)
                }
            }
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            let e = errno
            if e == ELOOP { throw AppGroupError.symlinkRefused(path: path) }
            if e == ENOTDIR { throw AppGroupError.notADirectory(path: path) }
            throw AppGroupError.io(operation: "open", path: path, errno: e)
        }
        return SafeDirectory(fd: fd, path: path)
    }

    public static func validate(component c: String) throws {
        if c.isEmpty || c == "." || c == ".." || c.contains("/") || c.utf8.contains(0) || c.utf8.count > 255 {
            throw AppGroupError.invalidComponent(c)
        }
    }

    package func child(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    /// Classifies an `openat` failure: a symlink in the way is a clear error of its own.
    func openError(_ op: String, _ name: String, _ e: Int32) -> AppGroupError {
        if e == ELOOP || e == EMLINK { return .symlinkRefused(path: child(name)) }
        if e == ENOTDIR {
            var st = stat()
            if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == S_IFLNK {
                return .symlinkRefused(path: child(name))
            }
            return .notADirectory(path: child(name))
        }
        return .io(operation: op, path: child(name), errno: e)
    }

    /// Opens (creating 0700 when `create`) the subdirectory at a relative path like `a/b/c`.
    public func directory(_ relativePath: String, create: Bool = true) throws -> SafeDirectory {
        var current: SafeDirectory = self
        for comp in relativePath.split(separator: "/", omittingEmptySubsequences: true).map(String.init) {
            try Self.validate(component: comp)
            if create {
                if mkdirat(current.fd, comp, 0o700) != 0 && errno != EEXIST {
                    throw current.openError("mkdir", comp, errno)
                }
            }
            let nfd = sth_openat(current.fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
            if nfd < 0 { throw current.openError("open", comp, errno) }
            current = SafeDirectory(fd: nfd, path: current.child(comp))
        }
        return current
    }

    /// Opens a regular file in this directory (PROTOCOL.md §1, "Regular files only"): never
    /// through a symlink, never blocking. `O_NONBLOCK` makes a FIFO or device in its place open at
    /// once (or fail with ENXIO) instead of hanging; `fstat` then refuses anything that is not a
    /// regular file. Both come out as `malformedFile` (reason "not a regular file (…)"), which the
    /// callers treat exactly like a corrupt file of that kind: quarantined (suites, notify
    /// records), ignored and reported (clock, heartbeats), or refused (lock files).
    public func openFile(_ name: String, flags: Int32, mode: UInt32 = 0o600) throws -> Int32 {
        try Self.validate(component: name)
        let f = sth_openat(fd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode)
        if f < 0 { throw fileOpenError(name, errno) }
        if let kind = Self.nonRegularKind(fd: f) {
            close(f)
            throw AppGroupError.malformedFile(path: child(name), reason: "not a regular file (\(kind))")
        }
        return f
    }

    /// nil for a regular file, else what it is ("a FIFO", "a directory", …).
    static func nonRegularKind(fd f: Int32) -> String? {
        var st = stat()
        if fstat(f, &st) != 0 { return "fstat failed: \(String(cString: strerror(errno)))" }
        return kind(ofMode: st.st_mode)
    }

    static func kind(ofMode mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a directory"
        case S_IFLNK: return "a symbolic link"
        default: return "an unknown file type"
        }
    }

    /// `openError` for a file: what sits in a file's place but cannot be opened as one (a symlink
    /// under O_NOFOLLOW, a socket, a FIFO without a reader for O_WRONLY) is "not a regular file".
    func fileOpenError(_ name: String, _ e: Int32) -> AppGroupError {
        if e == ELOOP || e == ENXIO || e == ENODEV || e == EISDIR {
            var st = stat()
            if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, let kind = Self.kind(ofMode: st.st_mode) {
                return .malformedFile(path: child(name), reason: "not a regular file (\(kind))")
            }
        }
        return openError("open", name, e)
    }

    /// Reads a whole file, or nil if it does not exist. Files over `limitBytes` are an error.
    public func readFile(_ name: String, limitBytes: Int) throws -> [UInt8]? {
        let f: Int32
        do {
            f = try openFile(name, flags: O_RDONLY)
        } catch AppGroupError.io(_, _, let e) where e == ENOENT {
            return nil
        }
        defer { close(f) }
        return try readAll(fd: f, name: name, limitBytes: limitBytes)
    }

    func readAll(fd f: Int32, name: String, limitBytes: Int) throws -> [UInt8] {
        var st = stat()
        if fstat(f, &st) != 0 { throw AppGroupError.io(operation: "fstat", path: child(name), errno: errno) }
        if (st.st_mode & S_IFMT) != S_IFREG { throw AppGroupError.malformedFile(path: child(name), reason: "not a regular file") }
        if Int(st.st_size) > limitBytes {
            throw AppGroupError.malformedFile(path: child(name), reason: "\(st.st_size) bytes exceeds the \(limitBytes)-byte limit")
        }
        var buf = [UInt8](repeating: 0, count: max(Int(st.st_size) + 1, 64))
        var total = 0
        while true {
            if total == buf.count {
                if total > limitBytes {
                    throw AppGroupError.malformedFile(path: child(name), reason: "grew past the \(limitBytes)-byte limit")
                }
                buf.append(contentsOf: repeatElement(0, count: buf.count))
            }
            let n = buf.withUnsafeMutableBytes { read(f, $0.baseAddress! + total, $0.count - total) }
            if n < 0 {
                if errno == EINTR { continue }
                throw AppGroupError.io(operation: "read", path: child(name), errno: errno)
            }
            if n == 0 { break }
            total += n
        }
        buf.removeSubrange(total...)
        return buf
    }

    nonisolated(unsafe) private static var tempCounter: UInt64 = 0
    private static let tempLock = NSLock()
    nonisolated(unsafe) private static var cachedPid: Int32 = 0
    nonisolated(unsafe) private static var cachedPrefix = ""

    /// A temp name no other writer uses: `.tmp.<pid>.<counter>.[<tag>.]<name>` (dot-prefixed so
    /// watchers ignore it; the pid lets a later writer sweep temps of dead processes; the tag lets
    /// a watcher learn something about the rename from IN_MOVED_FROM without reading the file).
    static func tempName(for name: String, tag: String? = nil) -> String {
        tempLock.lock()
        tempCounter &+= 1
        let c = tempCounter
        let pid = getpid()  // re-read: a forked child must not reuse its parent's prefix
        if pid != cachedPid {
            cachedPid = pid
            cachedPrefix = ".tmp.\(pid)."
        }
        let prefix = cachedPrefix
        tempLock.unlock()
        var base = prefix + String(c) + "."
        if let tag { base += tag + "." }
        return base + String(decoding: name.utf8.prefix(255 - base.utf8.count), as: UTF8.self)
    }

    /// The `<tag>` of a temp name made by `tempName(for: finalName, tag:)`, or nil for any other
    /// name (or one whose final name was truncated to fit 255 bytes).
    public static func tag(ofTempName t: String, finalName: String) -> Substring? {
        // ".tmp.<pid>.<counter>.<tag>.<final name>" — the final name may itself contain dots.
        let parts = t.split(separator: ".", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "tmp",
            parts[2].allSatisfy(\.isNumber), parts[3].allSatisfy(\.isNumber),
            let dot = parts[4].firstIndex(of: ".")
        else { return nil }
        let rest = parts[4]
        guard rest[rest.index(after: dot)...] == finalName[...] else { return nil }
        return rest[..<dot]
    }

    /// Reads a small file in three syscalls (open, one read, close) — the notify hot path.
    /// Nil when absent; `malformedFile` when larger than `maxBytes` or not a regular file.
    public func readSmallFile(_ name: String, maxBytes: Int) throws -> [UInt8]? {
        let f = sth_openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0)
        if f < 0 {
            if errno == ENOENT { return nil }
            throw fileOpenError(name, errno)
        }
        defer { close(f) }
        if let kind = Self.nonRegularKind(fd: f) {
            throw AppGroupError.malformedFile(path: child(name), reason: "not a regular file (\(kind))")
        }
        return try [UInt8](unsafeUninitializedCapacity: maxBytes + 1) { buf, count in
            var total = 0
            while total <= maxBytes {
                let n = read(f, buf.baseAddress! + total, maxBytes + 1 - total)
                if n < 0 {
                    if errno == EINTR { continue }
                    // EISDIR and friends: not a regular file.
                    throw AppGroupError.malformedFile(path: child(name), reason: String(cString: strerror(errno)))
                }
                if n == 0 { break }
                total += n
                // A regular file hands out everything up to `count` in one read: a short read
                // is EOF, no second read needed (one syscall less on the notify hot path).
                if total <= maxBytes { break }
            }
            if total > maxBytes { throw AppGroupError.malformedFile(path: child(name), reason: "larger than \(maxBytes) bytes") }
            count = total
        }
    }

    /// Writes `bytes` to `name` as temp + (fsync) + rename: a SIGKILL at any instruction leaves
    /// either the old file or the new one, never a torn one.
    /// `mode`: the file's mode when not the protocol's 0600 (a user's output file); `beforeRename`:
    /// a last check of the target, after the bytes are down (`OutputFile` refuses a FIFO or symlink
    /// that appeared meanwhile).
    public func writeAtomically(
        _ name: String, bytes: UnsafeRawBufferPointer, fsync doSync: Bool, tempTag: String? = nil, mode: mode_t? = nil,
        beforeRename: (() throws -> Void)? = nil, inodeBeforeRename: ((UInt64) -> Void)? = nil
    ) throws {
        try Self.validate(component: name)
        let tmp = Self.tempName(for: name, tag: tempTag)
        let f = sth_openat(fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if f < 0 { throw openError("create", tmp, errno) }
        var ok = false
        defer {
            if !ok { unlinkat(fd, tmp, 0) }
        }
        if let mode, fchmod(f, mode) != 0 {
            let e = errno
            close(f)
            throw AppGroupError.io(operation: "chmod", path: child(tmp), errno: e)
        }
        try writeAll(f, bytes, path: tmp)
        // The inode the file will have once renamed (a rename keeps it): what a suite's writer
        // records before its rename (PROTOCOL.md §3).
        var inode: UInt64 = 0
        if inodeBeforeRename != nil {
            var st = stat()
            if fstat(f, &st) != 0 {
                let e = errno
                close(f)
                throw AppGroupError.io(operation: "fstat", path: child(tmp), errno: e)
            }
            inode = UInt64(st.st_ino)
        }
        if doSync && fsync(f) != 0 {
            let e = errno
            close(f)
            throw AppGroupError.io(operation: "fsync", path: child(tmp), errno: e)
        }
        // close(2) reports a deferred write error (NFS, a full disk without fsync): never renamed.
        if close(f) != 0 && errno != EINTR { throw AppGroupError.io(operation: "close", path: child(tmp), errno: errno) }
        try beforeRename?()
        inodeBeforeRename?(inode)
        if renameat(fd, tmp, fd, name) != 0 {
            throw AppGroupError.io(operation: "rename", path: child(name), errno: errno)
        }
        ok = true
    }

    /// Writes all of `bytes` to `f` (retrying short writes and EINTR); on an error closes `f` and
    /// throws, naming `path`.
    private func writeAll(_ f: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var off = 0
        while off < bytes.count {
            let n = write(f, bytes.baseAddress! + off, bytes.count - off)
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(f)
                throw AppGroupError.io(operation: "write", path: child(path), errno: e)
            }
            off += n
        }
    }

    /// What `exchangeAtomically` put in place and what it replaced.
    public struct Exchange {
        /// The new file's metadata, taken before it was renamed into place.
        public var written: stat
        /// What `name` held just before (never followed if a symlink), nil when absent; its bytes
        /// when it was a regular file of at most `limitBytes` and `wantsBytes` asked for them.
        public var replaced: (stat: stat, bytes: [UInt8]?)?
    }

    /// Writes `bytes` to `name` as temp + rename, and says what the rename replaced — with no gap
    /// between looking and replacing: the temp and `name` are exchanged atomically
    /// (`renameat2(RENAME_EXCHANGE)`), then the old file, now under the temp's name, is examined
    /// and removed. A writer that must notice anyone else's change to its file (the harness's
    /// clock, PROTOCOL.md §2) cannot have one slip in between a check and its own rename. Where
    /// the filesystem cannot exchange, the old file is examined just before a plain rename.
    /// `wantsBytes`: whether the old file's bytes are worth reading, from its metadata (a writer
    /// that finds its own file there reads nothing: one `fstatat` more than a plain rename).
    public func exchangeAtomically(_ name: String, bytes: [UInt8], limitBytes: Int, wantsBytes: (stat) -> Bool) throws -> Exchange {
        try Self.validate(component: name)
        let tmp = Self.tempName(for: name, tag: "x")
        let f = sth_openat(fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if f < 0 { throw openError("create", tmp, errno) }
        var renamed = false
        defer { if !renamed { unlinkat(fd, tmp, 0) } }
        try bytes.withUnsafeBytes { try writeAll(f, $0, path: tmp) }
        var written = stat()
        if fstat(f, &written) != 0 {
            let e = errno
            close(f)
            throw AppGroupError.io(operation: "fstat", path: child(tmp), errno: e)
        }
        if close(f) != 0 && errno != EINTR { throw AppGroupError.io(operation: "close", path: child(tmp), errno: errno) }
        if sth_rename_exchange(fd, tmp, name) == 0 {
            renamed = true
            // The old file is under the temp's name now: look at it, then remove it.
            let old = try examine(tmp, limitBytes: limitBytes, wantsBytes: wantsBytes)
            if unlinkat(fd, tmp, 0) != 0 && errno == EISDIR { unlinkat(fd, tmp, AT_REMOVEDIR) }
            return Exchange(written: written, replaced: old)
        }
        let e = errno
        guard e == ENOENT || e == EINVAL || e == ENOSYS else { throw AppGroupError.io(operation: "rename", path: child(name), errno: e) }
        // Absent (nothing to exchange with), or no exchange here: look, then rename.
        let old = try examine(name, limitBytes: limitBytes, wantsBytes: wantsBytes)
        if renameat(fd, tmp, fd, name) != 0 { throw AppGroupError.io(operation: "rename", path: child(name), errno: errno) }
        renamed = true
        return Exchange(written: written, replaced: old)
    }

    /// lstat of `name` and, for a regular file within `limitBytes` that `wantsBytes`, its bytes; nil when absent.
    private func examine(_ name: String, limitBytes: Int, wantsBytes: (stat) -> Bool) throws -> (stat: stat, bytes: [UInt8]?)? {
        guard let st = try statEntry(name) else { return nil }
        guard (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) <= limitBytes, wantsBytes(st) else { return (st, nil) }
        return (st, try? readFile(name, limitBytes: limitBytes))
    }

    public func writeAtomically(
        _ name: String, bytes: [UInt8], fsync doSync: Bool, tempTag: String? = nil, mode: mode_t? = nil, beforeRename: (() throws -> Void)? = nil,
        inodeBeforeRename: ((UInt64) -> Void)? = nil
    ) throws {
        try bytes.withUnsafeBytes {
            try writeAtomically(name, bytes: $0, fsync: doSync, tempTag: tempTag, mode: mode, beforeRename: beforeRename, inodeBeforeRename: inodeBeforeRename)
        }
    }

    /// lstat-style metadata (never follows a symlink), or nil when absent.
    public func statEntry(_ name: String) throws -> stat? {
        var st = stat()
        if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == ENOENT { return nil }
            throw AppGroupError.io(operation: "stat", path: child(name), errno: errno)
        }
        return st
    }

    public func rename(_ from: String, to: String) throws {
        if renameat(fd, from, fd, to) != 0 {
            throw AppGroupError.io(operation: "rename", path: child(from), errno: errno)
        }
    }

    public func remove(_ name: String) {
        unlinkat(fd, name, 0)
    }

    /// Entry names of this directory (bounded: at most `limit`).
    public func entries(limit: Int = 100_000) throws -> [String] {
        let dupfd = dup(fd)
        if dupfd < 0 { throw AppGroupError.io(operation: "dup", path: path, errno: errno) }
        guard let dir = fdopendir(dupfd) else {
            let e = errno
            close(dupfd)
            throw AppGroupError.io(operation: "opendir", path: path, errno: e)
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var out: [String] = []
        while out.count < limit, let ent = readdir(dir) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            out.append(name)
        }
        return out
    }

    /// A temp file younger than this is never swept, whatever its pid says: a writer in another
    /// pid namespace (its pid means nothing here) finishes a write in milliseconds.
    public static let staleTempSeconds = 60

    /// Removes temp files (`.tmp.<pid>.*`) left by writers that died: the pid is gone (in our pid
    /// namespace) and the file is older than `staleTempSeconds` (PROTOCOL.md §1). A reused pid
    /// only delays the sweep. Bounded by `entries(limit:)`; best effort.
    public func sweepDeadTemps(matching suffix: String? = nil) {
        guard let names = try? entries(limit: 10_000) else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for n in names where n.hasPrefix(".tmp.") {
            if let suffix, !n.hasSuffix(suffix) { continue }
            let parts = n.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: true)
            guard parts.count >= 2, let pid = Int32(parts[1]) else { continue }
            if pid == getpid() { continue }
            guard let st = try? statEntry(n), Int(now.tv_sec) - Int(st.st_mtim.tv_sec) > Self.staleTempSeconds else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlinkat(fd, n, 0) }
        }
    }
}
