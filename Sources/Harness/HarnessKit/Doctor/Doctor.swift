import AppGroup
import Foundation
import TreeWatch

#if canImport(Glibc)
import Glibc
#endif

/// `harness doctor`: can this machine run the harness? Each check is one table row; any `fail`
/// makes the command exit non-zero.
public enum Doctor {
    public enum Status: String, Codable, Sendable { case ok, warn, fail }

    public struct Check: Codable, Sendable {
        public var name: String
        public var value: String
        public var status: Status
        public var detail: String
    }

    /// Below these, the harness cannot work (fail) or works poorly (warn).
    static let minFreeBytes: UInt64 = 64 << 20
    static let warnFreeBytes: UInt64 = 512 << 20
    static let minQueuedEvents = 1024
    static let minUserWatches = 64
    static let minUserInstances = 8

    static func readInt(_ path: String) -> Int? {
        guard let s = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int(s.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    public static func run(rootPath: String) -> [Check] {
        var out: [Check] = []
        let watches = readInt("/proc/sys/fs/inotify/max_user_watches")
        let queued = readInt("/proc/sys/fs/inotify/max_queued_events")
        let instances = readInt("/proc/sys/fs/inotify/max_user_instances")
        func limit(_ name: String, _ v: Int?, _ min: Int, _ what: String) -> Check {
            guard let v else { return Check(name: name, value: "unreadable", status: .fail, detail: "is /proc mounted?") }
            return Check(name: name, value: String(v), status: v >= min ? .ok : .fail, detail: v >= min ? what : "needs >= \(min): sysctl fs.inotify.\(name.split(separator: " ").last!)=\(min * 4)")
        }
        out.append(limit("inotify max_user_watches", watches, minUserWatches, "one watch per process per device root"))
        out.append(limit("inotify max_queued_events", queued, minQueuedEvents, "beyond it: IN_Q_OVERFLOW, handled by a rescan"))
        out.append(limit("inotify max_user_instances", instances, minUserInstances, "one per stand-in process"))

        let root: DeviceRoot
        do {
            root = try DeviceRoot(path: rootPath)
            out.append(Check(name: "device root", value: rootPath, status: .ok, detail: "opened, directories 0700"))
        } catch {
            out.append(Check(name: "device root", value: rootPath, status: .fail, detail: "\(error)"))
            return out
        }
        let fs = root.filesystemType
        out.append(Check(
            name: "filesystem", value: fs, status: fs == "tmpfs" || fs == "ext4" ? .ok : .warn,
            detail: fs == "tmpfs" ? "fastest (notify round trip ~4x ext4)" : (fs == "ext4" ? "works; /dev/shm (tmpfs) is faster" : "untested filesystem: inotify rename semantics may differ")))
        var sv = statvfs()
        if fstatvfs(root.directory.fd, &sv) == 0 {
            let free = UInt64(sv.f_bavail) * UInt64(sv.f_frsize)
            let st: Status = free < minFreeBytes ? .fail : (free < warnFreeBytes ? .warn : .ok)
            out.append(Check(name: "free space", value: String(format: "%.1f GiB", Double(free) / Double(1 << 30)), status: st, detail: st == .ok ? "" : "needs >= \(minFreeBytes >> 20) MiB"))
        }
        // Writability + symlink guard + notify round trip, in a scratch subdirectory.
        let scratch = rootPath + "/doctor-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            let sroot = try DeviceRoot(path: scratch)
            try sroot.directory.writeAtomically("probe", bytes: Array("ok".utf8), fsync: true)
            out.append(Check(name: "atomic write", value: "temp+fsync+rename", status: .ok, detail: ""))
            symlink("/etc", scratch + "/planted")
            do {
                _ = try sroot.subdirectory("planted/x", create: false)
                out.append(Check(name: "symlink guard", value: "FOLLOWED a planted link", status: .fail, detail: "O_NOFOLLOW not honoured"))
            } catch AppGroupError.symlinkRefused {
                out.append(Check(name: "symlink guard", value: "planted link refused", status: .ok, detail: ""))
            }
            let center = try DarwinNotificationCenter(deviceRoot: sroot)
            defer { center.shutdown() }
            let sem = DispatchSemaphore(value: 0)
            try center.addObserver("doctor.selftest") { _ in sem.signal() }
            let t0 = DispatchTime.now().uptimeNanoseconds
            try center.post("doctor.selftest")
            if sem.wait(timeout: .now() + .seconds(2)) == .success {
                let us = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000
                out.append(Check(name: "notify self-test", value: String(format: "post -> callback %.0f µs", us), status: .ok, detail: "the inotify watcher thread"))
            } else {
                out.append(Check(name: "notify self-test", value: "no callback within 2 s", status: .fail, detail: "inotify events are not delivered on \(fs)"))
            }
        } catch {
            out.append(Check(name: "self-test", value: "failed", status: .fail, detail: "\(error)"))
        }
        out.append(recursiveWatch(scratch + "-watch"))
        out.append(coverageTools(ProcessInfo.processInfo.environment))
        return out
    }

    /// The toolchain's llvm tools `harness coverage` needs (only it: a warning, not a failure).
    static func coverageTools(_ environment: [String: String]) -> Check {
        let name = "coverage tools"
        do {
            let t = try CoverageTools.find(environment: environment)
            return Check(
                name: name, value: "llvm-profdata, llvm-cov" + (t.demangle == nil ? "" : ", swift-demangle"), status: .ok,
                detail: PathText.directory(of: t.cov) + " (harness coverage)")
        } catch {
            return Check(name: name, value: "missing", status: .warn, detail: "\(error) (only harness coverage needs them)")
        }
    }

    /// libinotifytools, linked, watching a tree: a write in a subdirectory made after the watch
    /// began is seen (what `harness watch` and the run's tamper detection rely on).
    static func recursiveWatch(_ dir: String) -> Check {
        let name = "recursive watch"
        let fm = FileManager.default
        defer { try? fm.removeItem(atPath: dir) }
        do {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let watch: TreeWatch
            do { watch = try TreeWatch(root: dir) } catch {
                return Check(name: name, value: "cannot watch", status: .fail, detail: "libinotifytools: \(error); tamper detection falls back to a 20 ms scan, harness watch cannot run")
            }
            defer { watch.close() }
            let t0 = DispatchTime.now().uptimeNanoseconds
            try fm.createDirectory(atPath: dir + "/fresh/deeper", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/fresh/deeper/probe"))
            while DispatchTime.now().uptimeNanoseconds - t0 < 2_000_000_000 {
                if watch.events().contains(where: { $0.path == "fresh/deeper/probe" }) {
                    let us = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000
                    return Check(name: name, value: String(format: "write in a new subdirectory seen in %.0f µs", us), status: .ok, detail: "libinotifytools")
                }
                usleep(500)
            }
            return Check(name: name, value: "a write in a new subdirectory not seen in 2 s", status: .fail, detail: "libinotifytools does not follow new directories here")
        } catch {
            return Check(name: name, value: "failed", status: .fail, detail: "\(error)")
        }
    }

    public static func table(_ checks: [Check]) -> String {
        let w0 = max(5, checks.map(\.name.count).max() ?? 0)
        let w1 = max(5, checks.map(\.value.count).max() ?? 0)
        func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
        var lines = [pad("check", w0) + "  " + pad("value", w1) + "  status  detail"]
        for c in checks {
            lines.append(pad(c.name, w0) + "  " + pad(c.value, w1) + "  " + pad(c.status.rawValue.uppercased(), 6) + "  " + c.detail)
        }
        return lines.joined(separator: "\n")
    }
}
