import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file a verb writes at a path the user chose (`--junit`, a run directory's `report.json`,
/// `history.jsonl`, `schedule.json`): a regular file only, written completely or not at all.
///
/// What sits at the path must be absent or a regular file: a device, FIFO, socket, directory or
/// symlink is refused, never replaced (a rename over `/dev/null` run as root would destroy the
/// device; a rename over a symlink would replace the link the user keeps, not its target). The
/// bytes go through `SafeDirectory.writeAtomically` in the file's own directory: temp + fsync +
/// rename, so a full disk or a kill leaves the old file or none, never a torn one, and the error
/// is one line naming the file and the reason (ENOSPC, EFBIG, EACCES …).
public enum OutputFile {
    /// Why a path cannot take an output file, or why writing it failed; one line.
    public struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
        /// What the file is, for the message: "--junit", "report.json".
        public var what: String
        public var path: String
        public var reason: String

        public init(what: String, path: String, reason: String) {
            self.what = what
            self.path = path
            self.reason = reason
        }

        public var description: String { "\(what) \(path): \(reason)" }
    }

    /// Refuses `path` unless it is absent or a regular file in an existing, writable directory.
    /// Called before a run (so a bad path never costs one) and again just before the rename.
    public static func check(_ path: String, what: String) throws(Failure) {
        func fail(_ reason: String) -> Failure { Failure(what: what, path: path, reason: reason) }
        var st = stat()
        if lstat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw fail("is a directory; name a file")
            case S_IFLNK: throw fail("is a symlink; name a regular file (the harness never writes through or replaces a symlink)")
            default:
                let kind = SafeDirectory.kind(ofMode: st.st_mode) ?? "not a regular file"
                throw fail("is \(kind), not a regular file; name a regular file (the harness never replaces one)")
            }
        } else if errno != ENOENT {
            throw fail("cannot examine it (\(String(cString: strerror(errno))))")
        }
        let dir = PathText.directory(of: path)
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { throw fail("directory \(dir) does not exist") }
        guard access(dir, W_OK | X_OK) == 0 else { throw fail("cannot write in \(dir) (\(String(cString: strerror(errno))))") }
    }

    /// Writes `bytes` to `path` (temp + fsync + rename in its directory), after `check`. Mode
    /// 0644 less the umask, like any file a command line tool creates.
    public static func write(_ bytes: [UInt8], to path: String, what: String) throws(Failure) {
        try check(path, what: what)
        let name = (path as NSString).lastPathComponent
        let dirPath = PathText.directory(of: path)
        // The user's directory may be reached through a symlink (`/tmp` → `/private/tmp`); only the
        // file itself is refused as one.
        let fd = open(dirPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(what: what, path: path, reason: "cannot open \(dirPath): \(String(cString: strerror(errno)))") }
        let dir = SafeDirectory(fd: fd, path: dirPath)
        do {
            try dir.writeAtomically(name, bytes: bytes, fsync: true, mode: 0o644, beforeRename: { () throws(Failure) in try check(path, what: what) })
        } catch let f as Failure {
            throw f
        } catch AppGroupError.io(let operation, _, let e) {
            throw Failure(what: what, path: path, reason: "cannot write it (\(operation): \(String(cString: strerror(e))))")
        } catch {
            throw Failure(what: what, path: path, reason: "cannot write it (\(error))")
        }
    }

    public static func write(_ data: Data, to path: String, what: String) throws(Failure) {
        try write([UInt8](data), to: path, what: what)
    }

}
