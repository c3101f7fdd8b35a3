import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Who owns a run's device root: `runs/<id>/` is leased by an exclusive `flock` on `runs/<id>.lock`,
/// taken before the directory exists and held (close-on-exec, so no child holds it) until the run
/// has removed it. A harness that dies — SIGKILL included — releases the lock in the kernel, so the
/// next harness (or `harness clean`) finds the root unlocked and removes it. A lock, not a pid:
/// pids are reused and mean nothing across pid namespaces, a flock on a shared file works in both.
package final class DeviceRootLease: @unchecked Sendable {
    package let path: String
    private let fd: Int32
    /// A root without a lock file (a harness from before leases, or a crash between the two) is
    /// removed only when it has not changed for this long.
    static let locklessGraceSeconds = 600
    /// Bound on the entries one sweep looks at.
    static let maxEntries = 10_000

    /// Names the directory of leased device roots instead of the default (HISTORY.md §8). Two
    /// harnesses with different ones never sweep each other's roots: the test suite gives a test
    /// that watches a dead root its own, so a harness another test starts meanwhile cannot
    /// remove that root first (the flaky `aKilledHarness…IsSwept`).
    package static let runsDirectoryVariable = "SCREENTIME_RUNS_DIRECTORY"

    /// Where `harness run` puts its device roots and what `harness clean` sweeps:
    /// `$SCREENTIME_RUNS_DIRECTORY`, else `<base>/runs` (the base is the default device root's
    /// parent, e.g. `/dev/shm/screentime-harness-<uid>`).
    package static var managedRunsDirectory: String { managedRunsDirectory() }

    static func managedRunsDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment, currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> String {
        // Absolute: the stand-ins get the device root's path and run elsewhere.
        if let dir = environment[runsDirectoryVariable], !dir.isEmpty { return dir.hasPrefix("/") ? dir : currentDirectory + "/" + dir }
        return PathText.directory(of: DeviceRoot.resolvePath(environment: [:])) + "/runs"
    }

    package struct Busy: Error, CustomStringConvertible {
        package let path: String
        package var description: String { "device root \(path) is in use by another harness" }
    }

    /// Takes the lease on `path` (creating its parent); throws when another harness holds it.
    package init(path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: PathText.directory(of: path), withIntermediateDirectories: true)
        fd = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else { throw RunError("cannot create \(path).lock: \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw Busy(path: path)
        }
    }

    /// Removes the lock file and lets go (call after removing the root itself).
    package func release() {
        unlink(path + ".lock")
        close(fd)
    }

    /// The newest mtime (unix seconds) of `path` and everything below it (bounded by `maxEntries`;
    /// a root that large counts as changed now): a live harness's root keeps changing.
    static func newestChange(under path: String) -> Int {
        var newest = 0
        var st = stat()
        if lstat(path, &st) == 0 { newest = Int(st.st_mtim.tv_sec) }
        guard let walker = FileManager.default.enumerator(atPath: path) else { return newest }
        var seen = 0
        while let item = walker.nextObject() as? String {
            seen += 1
            if seen > maxEntries { return Int(Date().timeIntervalSince1970) }
            if lstat(path + "/" + item, &st) == 0 { newest = max(newest, Int(st.st_mtim.tv_sec)) }
        }
        return newest
    }

    /// Removes every device root under `runsDirectory` whose harness is gone; returns their paths.
    @discardableResult
    package static func sweep(runsDirectory: String, now: Date = Date()) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: runsDirectory) else { return [] }
        var removed: [String] = []
        let all = Set(names.prefix(maxEntries))
        for name in all.sorted() where !name.hasPrefix(".") {
            let path = runsDirectory + "/" + name
            if name.hasSuffix(".lock") {
                // A lock whose root is gone (a harness killed after removing it): drop it if free.
                if !all.contains(String(name.dropLast(5))), let lease = try? DeviceRootLease(path: String(path.dropLast(5))) {
                    lease.release()
                }
                continue
            }
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { continue }
            if all.contains(name + ".lock") {
                guard let lease = try? DeviceRootLease(path: path) else { continue }  // alive
                try? FileManager.default.removeItem(atPath: path)
                lease.release()
                removed.append(path)
            } else if Int(now.timeIntervalSince1970) - newestChange(under: path) > locklessGraceSeconds {
                try? FileManager.default.removeItem(atPath: path)
                removed.append(path)
            }
        }
        return removed
    }
}
