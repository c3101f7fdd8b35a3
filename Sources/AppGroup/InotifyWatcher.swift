import CInotifyTools
import CSystemShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Receives events for one watched directory, on the watcher thread.
protocol DirectoryEventSink: AnyObject, Sendable {
    /// A complete file arrived under `name` (IN_MOVED_TO: only a rename means "complete").
    /// `from` is the temp name it was renamed from, when the paired IN_MOVED_FROM was seen.
    func fileMovedIn(name: String, from: String?)
    /// The kernel queue overflowed: events were lost; re-read everything of interest.
    func rescan()
}

/// The process's one owner of libinotifytools (whose state is process-global and not
/// thread-safe): a dedicated thread that watches directories and forwards IN_MOVED_TO events.
///
/// Other threads talk to it through a command queue and wake it by writing a byte to a pipe that
/// the thread itself watches through `/proc/self/fd/<w>` (IN_MODIFY) — so `stop()` and new
/// watches take effect at once instead of after a `next_event` timeout.
final class InotifyWatcher: @unchecked Sendable {
    static let shared = InotifyWatcher()

    /// Bound on waiting for the watcher thread to carry out a command.
    static let commandTimeout: Duration = .seconds(5)

    private enum Command {
        case watch(path: String, sink: DirectoryEventSink, done: Completion)
        case unwatch(path: String, sink: ObjectIdentifier, done: Completion)
        case stop
    }

    final class Completion: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        var error: AppGroupError?
    }

    private let mutex = NSLock()
    private var commands: [Command] = []
    private var running = false
    private var thread: Thread?
    private var stopped: DispatchSemaphore?
    private var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1
    // Touched only by the watcher thread:
    private var sinks: [Int32: (path: String, sinks: [ObjectIdentifier: DirectoryEventSink])] = [:]
    private var wakeWd: Int32 = -1
    /// IN_MOVED_FROM temp names by rename cookie, awaiting their IN_MOVED_TO (bounded).
    private var movedFrom: [UInt32: String] = [:]
    static let maxPendingMoves = 1024

    /// Starts the thread if needed. Caller holds `mutex`.
    private func ensureRunningLocked() throws {
        if running { return }
        var fds: [Int32] = [-1, -1]
        if sth_pipe_cloexec(&fds, 1) != 0 { throw AppGroupError.io(operation: "pipe2", path: "wake pipe", errno: errno) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        running = true
        let started = Completion()
        let done = DispatchSemaphore(value: 0)
        stopped = done
        let t = Thread { [self] in
            self.run(started: started)
            done.signal()
        }
        t.name = "screentime.inotify"
        t.stackSize = 1 << 20
        thread = t
        t.start()
        if started.semaphore.wait(timeout: .now() + .seconds(5)) == .timedOut {
            throw AppGroupError.io(operation: "start watcher thread", path: "", errno: ETIMEDOUT)
        }
        if let e = started.error {
            running = false
            throw e
        }
    }

    private func wake() {
        var b: UInt8 = 1
        _ = write(wakeWrite, &b, 1)
    }

    private func submit(_ makeCommand: (Completion) -> Command) throws {
        let c = Completion()
        mutex.lock()
        do { try ensureRunningLocked() } catch {
            mutex.unlock()
            throw error
        }
        commands.append(makeCommand(c))
        mutex.unlock()
        wake()
        let ms = Int(Self.commandTimeout.components.seconds * 1000)
        if c.semaphore.wait(timeout: .now() + .milliseconds(ms)) == .timedOut {
            throw AppGroupError.io(operation: "inotify watcher command", path: "", errno: ETIMEDOUT)
        }
        if let e = c.error { throw e }
    }

    func watch(directory path: String, sink: DirectoryEventSink) throws {
        try submit { .watch(path: path, sink: sink, done: $0) }
    }

    func unwatch(directory path: String, sink: DirectoryEventSink) throws {
        mutex.lock()
        let isRunning = running
        mutex.unlock()
        if !isRunning { return }
        try submit { .unwatch(path: path, sink: ObjectIdentifier(sink), done: $0) }
    }

    /// Stops the thread promptly (wakes it; no timeout wait) and releases libinotifytools.
    /// Returns after the thread has exited, or after `commandTimeout`.
    func stop() {
        mutex.lock()
        guard running, let done = stopped else {
            mutex.unlock()
            return
        }
        commands.append(.stop)
        mutex.unlock()
        wake()
        let ms = Int(Self.commandTimeout.components.seconds * 1000)
        _ = done.wait(timeout: .now() + .milliseconds(ms))
        mutex.lock()
        running = false
        thread = nil
        close(wakeRead)
        close(wakeWrite)
        wakeRead = -1
        wakeWrite = -1
        mutex.unlock()
    }

    var isRunning: Bool {
        mutex.lock()
        defer { mutex.unlock() }
        return running
    }

    // MARK: The watcher thread

    private func run(started: Completion) {
        if inotifytools_initialize() == 0 {
            started.error = .io(operation: "inotifytools_initialize", path: "", errno: Int32(inotifytools_error()))
            started.semaphore.signal()
            return
        }
        Self.markInotifyFdsCloseOnExec()
        wakeWd = -1
        if inotifytools_watch_file("/proc/self/fd/\(wakeWrite)", Int32(IN_MODIFY)) != 0 {
            wakeWd = Int32(inotifytools_wd_from_filename("/proc/self/fd/\(wakeWrite)"))
        }
        if wakeWd < 0 {
            started.error = .io(operation: "watch wake pipe", path: "/proc/self/fd/\(wakeWrite)", errno: Int32(inotifytools_error()))
            inotifytools_cleanup()
            started.semaphore.signal()
            return
        }
        started.semaphore.signal()
        var consecutiveErrors = 0
        loop: while true {
            // Commands first: they may add the very watch the next event belongs to.
            mutex.lock()
            let pending = commands
            commands.removeAll()
            mutex.unlock()
            for c in pending {
                switch c {
                case .watch(let path, let sink, let done):
                    if inotifytools_watch_file(path, Int32(IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR)) != 0 {
                        // libinotifytools files directories under "path/" in its table.
                        var wd = Int32(inotifytools_wd_from_filename(path + "/"))
                        if wd < 0 { wd = Int32(inotifytools_wd_from_filename(path)) }
                        if wd >= 0 {
                            sinks[wd, default: (path, [:])].sinks[ObjectIdentifier(sink)] = sink
                        } else {
                            done.error = .io(operation: "inotify watch (no wd)", path: path, errno: EINVAL)
                        }
                    } else {
                        done.error = .io(operation: "inotify watch", path: path, errno: Int32(inotifytools_error()))
                    }
                    done.semaphore.signal()
                case .unwatch(let path, let sink, let done):
                    for (wd, s) in sinks where s.path == path {
                        sinks[wd]?.sinks[sink] = nil
                        if sinks[wd]?.sinks.isEmpty == true {
                            inotifytools_remove_watch_by_wd(wd)
                            sinks[wd] = nil
                        }
                    }
                    done.semaphore.signal()
                case .stop:
                    break loop
                }
            }
            guard let ev = inotifytools_next_event(0) else {
                // A read error: bounded retry, then give up loudly rather than spin.
                consecutiveErrors += 1
                if consecutiveErrors > 100 {
                    FileHandle.standardError.write(Data("screentime: inotify watcher giving up after repeated read errors\n".utf8))
                    break loop
                }
                usleep(1000)
                continue
            }
            consecutiveErrors = 0
            let wd = ev.pointee.wd
            let mask = ev.pointee.mask
            if wd == wakeWd {
                var buf = [UInt8](repeating: 0, count: 256)
                while read(wakeRead, &buf, buf.count) > 0 {}
                continue
            }
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                movedFrom.removeAll()
                for s in sinks.values { for k in s.sinks.values { k.rescan() } }
                continue
            }
            if mask & UInt32(IN_MOVED_FROM) != 0 {
                // A rename's IN_MOVED_FROM is queued right before its IN_MOVED_TO, same cookie.
                if movedFrom.count >= Self.maxPendingMoves { movedFrom.removeAll() }
                movedFrom[ev.pointee.cookie] = String(cString: sth_inotify_event_name(ev))
                continue
            }
            if mask & UInt32(IN_IGNORED) != 0 {
                sinks[wd] = nil  // the directory went away
                continue
            }
            if mask & UInt32(IN_MOVED_TO) != 0 {
                let from = movedFrom.removeValue(forKey: ev.pointee.cookie)
                if let s = sinks[wd] {
                    let name = String(cString: sth_inotify_event_name(ev))
                    if !name.isEmpty && !name.hasPrefix(".") { for k in s.sinks.values { k.fileMovedIn(name: name, from: from) } }
                }
            }
        }
        sinks.removeAll()
        inotifytools_cleanup()
    }

    /// libinotifytools opens its inotify fd without O_CLOEXEC, so every child we spawn would
    /// inherit it. Find it in /proc/self/fd and fix that.
    static func markInotifyFdsCloseOnExec() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        var buf = [CChar](repeating: 0, count: 256)
        for n in names {
            guard let fd = Int32(n) else { continue }
            let len = readlink("/proc/self/fd/\(n)", &buf, buf.count - 1)
            guard len > 0 else { continue }
            let target = String(decoding: buf[0..<len].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target == "anon_inode:inotify" { _ = sth_set_cloexec(fd) }
        }
    }
}
