import CInotifyTools
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A live watch of a whole directory tree: every change below a root, recursively, with new
/// directories followed as they appear — on libinotifytools (`inotifytools_watch_recursively`, its
/// event queue and its watch-descriptor-to-path table; Debian's `libinotifytools0-dev`).
///
/// Used where a tree is watched as it changes (`harness watch`, the run's tamper detection). Not
/// on the notify hot path: a participant's notify watcher reads inotify(7) itself (one directory,
/// no paths to build, measured by `harness bench notify`).
///
/// libinotifytools keeps one inotify instance per process in global state and is not
/// thread-safe, so every call goes through one lock; the events of every tree watched in the
/// process are read in one place and handed to each tree by path. A wait (`events(waitSeconds:)`
/// with a positive wait) holds that lock: wait only where one tree is watched. Two trees must not
/// share directories (a directory has one watch per instance, with one tree's mask).
public final class TreeWatch: @unchecked Sendable {
    public struct Event: Equatable, Sendable {
        public enum Kind: String, Sendable {
            /// Made in place: `creat`, `mkdir`, `mkfifo`, `symlink`, `bind`.
            case created
            /// Closed after being written in place (`IN_CLOSE_WRITE`).
            case written
            /// Renamed into its directory (`IN_MOVED_TO`): how the protocol's writers put files in place.
            case movedIn
            /// Renamed away from its directory (`IN_MOVED_FROM`); `cookie` pairs it with its `movedIn`.
            case movedOut
            case deleted
            /// Events were lost (`IN_Q_OVERFLOW`, or a new directory that could not be watched):
            /// look at the whole tree again. `reason` says which.
            case lost
            /// The root itself was removed or moved away: nothing more will come.
            case rootGone
        }
        public var kind: Kind
        /// Relative to the root, no leading or trailing `/`; "" for the root itself.
        public var path: String
        public var isDirectory: Bool
        public var cookie: UInt32
        /// Found by a walk of a directory that appeared (what it held before its watch existed).
        public var found: Bool
        public var reason: String?

        public init(kind: Kind, path: String, isDirectory: Bool = false, cookie: UInt32 = 0, found: Bool = false, reason: String? = nil) {
            self.kind = kind
            self.path = path
            self.isDirectory = isDirectory
            self.cookie = cookie
            self.found = found
            self.reason = reason
        }
    }

    public struct WatchError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// What is watched: files made, written, renamed in and out, the root's own removal, and —
    /// when asked — deletions.
    public static func mask(deletions: Bool) -> Int32 {
        let m = UInt32(IN_CREATE) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM)
            | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | (deletions ? UInt32(IN_DELETE) : 0)
        return Int32(bitPattern: m)
    }

    /// Bounds of the walk of a directory that appeared: entries, and depth below it.
    static let maxFoundEntries = 50_000
    static let maxFoundDepth = 8

    public let root: String
    let rootSlash: String
    let mask: Int32
    /// Events read for this tree and not yet taken (guarded by the library's lock).
    fileprivate var queued: [Event] = []
    fileprivate var closed = false

    /// Watches `root` (a directory) and everything below it. Throws when inotify cannot: no
    /// instance left (`fs.inotify.max_user_instances`), no watch left (`max_user_watches`), no
    /// such directory.
    public init(root: String, deletions: Bool = false) throws(WatchError) {
        var r = root
        while r.count > 1 && r.hasSuffix("/") { r.removeLast() }
        self.root = r
        self.rootSlash = r == "/" ? "/" : r + "/"
        self.mask = Self.mask(deletions: deletions)
        try Library.shared.register(self)
    }

    deinit { close() }

    /// The events since the last call, in order; waits up to `waitSeconds` (whole seconds, the
    /// library's unit) for the first when there are none.
    public func events(waitSeconds: Int = 0) -> [Event] {
        Library.shared.drain(for: self, waitSeconds: waitSeconds)
    }

    /// Stops watching (the last tree of the process closes the library's inotify instance).
    public func close() {
        Library.shared.unregister(self)
    }

    /// Watches in use by every tree of this process (`inotifytools_get_num_watches`).
    public static var watchCount: Int { Library.shared.watchCount }
}

/// The one libinotifytools instance of the process and the trees it serves.
private final class Library: Sendable {
    static let shared = Library()

    struct State {
        var initialized = false
        var trees: [ObjectIdentifier: TreeWatch] = [:]
        /// A directory renamed away (`IN_MOVED_FROM`), by cookie: its `IN_MOVED_TO` renames its watches.
        var movedDirectories: [UInt32: String] = [:]
    }
    let state = Mutex(State())

    func register(_ tree: TreeWatch) throws(TreeWatch.WatchError) {
        let failure: String? = state.withLock { s in
            if !s.initialized {
                guard inotifytools_initialize() == 1 else {
                    return "inotify: " + String(cString: strerror(inotifytools_error()))
                }
                s.initialized = true
                Self.closeOnExec()
            }
            guard inotifytools_watch_recursively(tree.root, tree.mask) == 1 else {
                let why = String(cString: strerror(inotifytools_error()))
                if s.trees.isEmpty { Self.cleanup(&s) }
                return "cannot watch \(tree.root): \(why)"
            }
            s.trees[ObjectIdentifier(tree)] = tree
            return nil
        }
        if let failure { throw TreeWatch.WatchError(description: failure) }
    }

    func unregister(_ tree: TreeWatch) {
        state.withLock { s in
            guard s.trees.removeValue(forKey: ObjectIdentifier(tree)) != nil else { return }
            tree.closed = true
            tree.queued = []
            // The kernel drops the watches of a removed tree by itself; the library's table keeps
            // their names until the instance closes, which it does once no tree is left.
            if s.trees.isEmpty { Self.cleanup(&s) }
        }
    }

    var watchCount: Int { state.withLock { s in s.initialized ? Int(inotifytools_get_num_watches()) : 0 } }

    private static func cleanup(_ s: inout State) {
        inotifytools_cleanup()
        s.initialized = false
        s.movedDirectories = [:]
    }

    /// libinotifytools opens its instance without `IN_CLOEXEC`: every child the harness spawns
    /// would inherit it. Every other inotify fd of this code base is close-on-exec, so any inotify
    /// fd without the flag is the library's.
    private static func closeOnExec() {
        guard let dir = opendir("/proc/self/fd") else { return }
        defer { closedir(dir) }
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard let fd = Int32(name) else { continue }
            let n = readlink("/proc/self/fd/" + name, &target, target.count - 1)
            guard n > 0 else { continue }
            target[n] = 0
            guard String(cString: target) == "anon_inode:inotify" else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    func drain(for tree: TreeWatch, waitSeconds: Int) -> [TreeWatch.Event] {
        state.withLock { s in
            guard s.initialized, !tree.closed else { return [] }
            var wait = tree.queued.isEmpty ? max(0, waitSeconds) : 0
            while let event = inotifytools_next_events(wait, 1) {
                wait = 0
                Self.dispatch(event, &s)
            }
            defer { tree.queued = [] }
            return tree.queued
        }
    }

    private static func dispatch(_ event: UnsafeMutablePointer<inotify_event>, _ s: inout State) {
        let mask = event.pointee.mask
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            for tree in s.trees.values {
                tree.queued.append(.init(kind: .lost, path: "", reason: "the inotify queue overflowed (IN_Q_OVERFLOW)"))
            }
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 { return }
        var eventName: UnsafePointer<CChar>?
        var dirLength = 0
        guard let dirC = inotifytools_filename_from_event(event, &eventName, &dirLength) else { return }
        let directory = String(cString: dirC)
        let name = eventName.map { String(cString: $0) } ?? ""
        let full = name.isEmpty ? directory : directory + name
        guard let tree = s.trees.values.first(where: { full.hasPrefix($0.rootSlash) || full == $0.root }) else { return }
        let isDirectory = mask & UInt32(IN_ISDIR) != 0
        var relative = full == tree.root ? "" : String(full.dropFirst(tree.rootSlash.count))
        while relative.hasSuffix("/") { relative.removeLast() }
        if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
            // A directory below reports its own removal to its parent too (IN_DELETE): only the
            // root's is news.
            if relative.isEmpty { tree.queued.append(.init(kind: .rootGone, path: "", isDirectory: true)) }
            return
        }
        let kind: TreeWatch.Event.Kind
        if mask & UInt32(IN_CREATE) != 0 {
            kind = .created
        } else if mask & UInt32(IN_MOVED_TO) != 0 {
            kind = .movedIn
        } else if mask & UInt32(IN_MOVED_FROM) != 0 {
            kind = .movedOut
        } else if mask & UInt32(IN_CLOSE_WRITE) != 0 {
            kind = .written
        } else if mask & UInt32(IN_DELETE) != 0 {
            kind = .deleted
        } else {
            return
        }
        let cookie = event.pointee.cookie
        tree.queued.append(.init(kind: kind, path: relative, isDirectory: isDirectory, cookie: cookie))
        guard isDirectory else { return }
        switch kind {
        case .movedOut:
            s.movedDirectories[cookie] = full
            if s.movedDirectories.count > 64 { s.movedDirectories = [cookie: full] }
        case .created, .movedIn:
            if kind == .movedIn, let old = s.movedDirectories.removeValue(forKey: cookie) {
                // A directory moved within the watched trees keeps its watches: rename them.
                inotifytools_replace_filename(old + "/", full + "/")
                return
            }
            guard inotifytools_watch_recursively(full, tree.mask) == 1 else {
                let why = String(cString: strerror(inotifytools_error()))
                tree.queued.append(.init(kind: .lost, path: relative, isDirectory: true, reason: "\(relative) appeared but cannot be watched: \(why)"))
                return
            }
            // What it held before its watch existed (a mkdir then a write, faster than us).
            var budget = TreeWatch.maxFoundEntries
            found(full, relative, depth: 0, budget: &budget, into: tree)
        default:
            return
        }
    }

    /// Every entry below `path` as a `created` event marked `found` (no symlink followed).
    private static func found(_ path: String, _ relative: String, depth: Int, budget: inout Int, into tree: TreeWatch) {
        guard let dir = opendir(path) else { return }
        defer { closedir(dir) }
        while budget > 0, let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            budget -= 1
            var isDirectory = entry.pointee.d_type == UInt8(DT_DIR)
            if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                var st = stat()
                isDirectory = lstat(path + "/" + name, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
            }
            tree.queued.append(.init(kind: .created, path: relative + "/" + name, isDirectory: isDirectory, found: true))
            if isDirectory && depth + 1 < TreeWatch.maxFoundDepth {
                found(path + "/" + name, relative + "/" + name, depth: depth + 1, budget: &budget, into: tree)
            }
        }
    }
}
