import CSystemShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Receives events for one watched directory, on the watcher thread.
package protocol DirectoryEventSink: AnyObject, Sendable {
    /// A complete file arrived under `name` (IN_MOVED_TO: only a rename means "complete").
    /// `from` is the temp name it was renamed from, when the paired IN_MOVED_FROM was seen.
    func fileMovedIn(name: String, from: String?)
    /// The kernel queue overflowed: events were lost; re-read everything of interest.
    func rescan()
}

/// The process's one inotify instance: a dedicated thread that watches directories and forwards
/// IN_MOVED_TO events (with the temp name of the paired IN_MOVED_FROM).
///
/// Other threads talk to it through a command queue and wake it by writing a byte to a pipe that
/// the thread itself watches through `/proc/self/fd/<w>` (IN_MODIFY) — so `stop()` and new
/// watches take effect at once, and the thread waits in one blocking `read` of its inotify fd.
package final class InotifyWatcher: @unchecked Sendable {
    package static let shared = InotifyWatcher()

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
    private var inotifyFd: Int32 = -1
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
        if let t = thread, Thread.current === t {
            // A sink's callback (an observer's handler) asking for a watch or an unwatch — e.g.
            // a handler that observes on a new center: the watcher thread carries it out now,
            // where queueing it and waiting would wait for itself until `commandTimeout`.
            mutex.unlock()
            _ = perform(makeCommand(c))
            if let e = c.error { throw e }
            return
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

    package func watch(directory path: String, sink: DirectoryEventSink) throws {
        try submit { .watch(path: path, sink: sink, done: $0) }
    }

    package func unwatch(directory path: String, sink: DirectoryEventSink) throws {
        mutex.lock()
        let isRunning = running
        mutex.unlock()
        if !isRunning { return }
        try submit { .unwatch(path: path, sink: ObjectIdentifier(sink), done: $0) }
    }

    /// Stops the thread promptly (wakes it; no timeout wait) and closes its inotify fd.
    /// Returns after the thread has exited, or after `commandTimeout`.
    package func stop() {
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

    /// Room for 2,048 events with a name of up to 15 bytes (16 + 16 bytes each); one `read` takes
    /// what is queued, up to that.
    static let readBufferBytes = 1 << 16

    private func run(started: Completion) {
        // Raw inotify, not libinotifytools' `next_event`: that one asks `pselect` and
        // `ioctl(FIONREAD)` before every `read` (three system calls per wake where one blocking
        // `read` does; measured in `bench notify`) and keeps its state process-global.
        let ifd = inotify_init1(Int32(IN_CLOEXEC))
        if ifd < 0 {
            started.error = .io(operation: "inotify_init1", path: "", errno: errno)
            started.semaphore.signal()
            return
        }
        inotifyFd = ifd
        defer {
            inotifyFd = -1
            close(ifd)
        }
        wakeWd = inotify_add_watch(ifd, "/proc/self/fd/\(wakeWrite)", UInt32(IN_MODIFY))
        if wakeWd < 0 {
            started.error = .io(operation: "watch wake pipe", path: "/proc/self/fd/\(wakeWrite)", errno: errno)
            started.semaphore.signal()
            return
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.readBufferBytes, alignment: 8)
        defer { buffer.deallocate() }
        started.semaphore.signal()
        var consecutiveErrors = 0
        loop: while true {
            if runCommands() { break loop }
            let n = read(ifd, buffer, Self.readBufferBytes)
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
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
            // `struct inotify_event`: wd, mask, cookie, len (4 bytes each), then `len` bytes of
            // NUL-padded name. The kernel never splits an event across reads.
            var offset = 0
            while offset + 16 <= n {
                let e = buffer + offset
                let len = Int(e.load(fromByteOffset: 12, as: UInt32.self))
                guard offset + 16 + len <= n else { break }
                // Commands between events, as before: an unwatch takes effect at the next event.
                if runCommands() { break loop }
                handle(
                    wd: e.load(as: Int32.self), mask: e.load(fromByteOffset: 4, as: UInt32.self), cookie: e.load(fromByteOffset: 8, as: UInt32.self),
                    name: UnsafePointer((e + 16).assumingMemoryBound(to: CChar.self))
                )
                offset += 16 + len
            }
        }
        sinks.removeAll()
    }

    /// Carries out queued commands; true when told to stop.
    private func runCommands() -> Bool {
        mutex.lock()
        if commands.isEmpty {
            mutex.unlock()
            return false
        }
        let pending = commands
        commands.removeAll()
        mutex.unlock()
        for c in pending where perform(c) { return true }
        return false
    }

    /// Carries out one command on the watcher thread; true for `.stop`.
    private func perform(_ c: Command) -> Bool {
        let ifd = inotifyFd
        switch c {
        case .watch(let path, let sink, let done):
            let wd = inotify_add_watch(ifd, path, UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR))
            if wd >= 0 {
                sinks[wd, default: (path, [:])].sinks[ObjectIdentifier(sink)] = sink
            } else {
                done.error = .io(operation: "inotify watch", path: path, errno: errno)
            }
            done.semaphore.signal()
        case .unwatch(let path, let sink, let done):
            for (wd, s) in sinks where s.path == path {
                sinks[wd]?.sinks[sink] = nil
                if sinks[wd]?.sinks.isEmpty == true {
                    inotify_rm_watch(ifd, wd)
                    sinks[wd] = nil
                }
            }
            done.semaphore.signal()
        case .stop:
            return true
        }
        return false
    }

    private func handle(wd: Int32, mask: UInt32, cookie: UInt32, name: UnsafePointer<CChar>) {
        if wd == wakeWd {
            var buf = [UInt8](repeating: 0, count: 256)
            while read(wakeRead, &buf, buf.count) > 0 {}
            return
        }
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            movedFrom.removeAll()
            for s in sinks.values { for k in s.sinks.values { k.rescan() } }
            return
        }
        if mask & UInt32(IN_MOVED_FROM) != 0 {
            // A rename's IN_MOVED_FROM is queued right before its IN_MOVED_TO, same cookie.
            if movedFrom.count >= Self.maxPendingMoves { movedFrom.removeAll() }
            movedFrom[cookie] = String(cString: name)
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            sinks[wd] = nil  // the directory went away
            return
        }
        if mask & UInt32(IN_MOVED_TO) != 0 {
            let from = movedFrom.removeValue(forKey: cookie)
            if let s = sinks[wd] {
                let name = String(cString: name)
                if !name.isEmpty && !name.hasPrefix(".") { for k in s.sinks.values { k.fileMovedIn(name: name, from: from) } }
            }
        }
    }
}
