import CSystemShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process that dies with us.
///
/// Spawned by fork+exec (`sth_spawn`) in its own process group (so a whole group can be killed)
/// with PR_SET_PDEATHSIG(SIGKILL). PDEATHSIG fires when the *thread* that forked exits, not the
/// process, so every spawn happens on one long-lived spawner thread (`Spawner`).
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let executable: String
    public let arguments: [String]
    private let stdoutFd: Int32
    /// A pidfd of the child (readable once it has exited: a waiter can `poll` it instead of
    /// asking again every millisecond), or -1 where the kernel has none.
    public let exitFd: Int32
    private var buffer: [UInt8] = []
    private let mutex = NSLock()
    private var exitStatus: ExitStatus?

    public enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        public var description: String {
            switch self {
            case .exited(let c): return "exit \(c)"
            case .signalled(let s): return "signal \(s)"
            }
        }
    }

    init(pid: pid_t, executable: String, arguments: [String], stdoutFd: Int32) {
        self.pid = pid
        self.executable = executable
        self.arguments = arguments
        self.stdoutFd = stdoutFd
        // The child is not reaped before `poll` is asked, so even one that already exited has its
        // pid still: the pidfd is always its own.
        exitFd = sth_pidfd_open(pid)
    }

    deinit {
        if stdoutFd >= 0 { close(stdoutFd) }
        if exitFd >= 0 { close(exitFd) }
    }

    /// Starts `executable`. `captureStdout`: read its stdout with `readLine`; otherwise it goes
    /// to `stdoutTo` (an fd, or inherited when -1). Its stderr goes to `stderrTo` (or inherited).
    /// `inheritFd`: one close-on-exec descriptor the child keeps under the same number (its copy
    /// only; -1: none).
    public static func spawn(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        captureStdout: Bool = true, stdoutTo: Int32 = -1, stderrTo: Int32 = -1,
        processGroup: ProcessGroup = .new, workingDirectory: String? = nil, inheritFd: Int32 = -1
    ) throws -> ChildProcess {
        var readEnd: Int32 = -1
        var writeEnd: Int32 = stdoutTo
        if captureStdout {
            var fds: [Int32] = [-1, -1]
            guard sth_pipe_cloexec(&fds, 0) == 0 else { throw SpawnError(executable: executable, errno: errno) }
            readEnd = fds[0]
            writeEnd = fds[1]
        }
        let env = environment.map { e in e.map { "\($0.key)=\($0.value)" } }
        let pid = Spawner.shared.spawn(
            path: executable, argv: [executable] + arguments, env: env,
            group: processGroup, stdoutFd: writeEnd, stderrFd: stderrTo, cwd: workingDirectory, inheritFd: inheritFd)
        let err = errno
        if captureStdout { close(writeEnd) }
        guard pid > 0 else {
            if readEnd >= 0 { close(readEnd) }
            throw SpawnError(executable: executable, errno: err)
        }
        return ChildProcess(pid: pid, executable: executable, arguments: arguments, stdoutFd: readEnd)
    }

    public enum ProcessGroup: Sendable {
        case new
        case join(pid_t)
        case inherit
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let executable: String
        public let errno: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(errno)))" }
    }

    /// Sends `sig` to the child (or its whole process group).
    @discardableResult
    public func signal(_ sig: Int32, group: Bool = false) -> Bool {
        if hasExited { return false }
        return (group ? kill(-pid, sig) : kill(pid, sig)) == 0
    }

    /// The child's scheduler state from `/proc/<pid>/stat` (`R`, `S`, `T`, `Z`, …); nil when it
    /// cannot be read.
    public var procState: String? {
        #if os(Linux)
        guard !hasExited, let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ").first.map(String.init)
        #else
        return nil
        #endif
    }

    /// Sends SIGSTOP and waits (at most `timeoutMillis`) until the kernel has stopped the child:
    /// `kill` returns before a busy or not-yet-scheduled target has taken the signal, so a caller
    /// that records "stopped" right after it could be wrong for a moment (seen under load: a
    /// stopped host still `R`). True when it is stopped (or exited).
    @discardableResult
    public func stopAndWait(timeoutMillis: Int = 200) -> Bool {
        guard signal(SIGSTOP) else { return hasExited }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMillis) * 1_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline {
            guard let state = procState else { return true }
            if state == "T" || state == "t" || state == "Z" { return true }
            usleep(200)
        }
        return false
    }

    /// True while the child is still running user code: not a zombie, and not already on its way
    /// out (the kernel's PF_EXITING on its main thread, from `/proc/<pid>/stat`). False when that
    /// cannot be read (Linux only; elsewhere nil).
    public var isRunningUserCode: Bool? {
        #if os(Linux)
        guard !hasExited, let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return false }
        // After "(comm)": state ppid pgrp session tty_nr tpgid flags ...
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 6, let flags = UInt64(fields[6]) else { return false }
        let pfExiting: UInt64 = 0x4
        return !["Z", "X", "x"].contains(String(fields[0])) && flags & pfExiting == 0
        #else
        return nil
        #endif
    }

    public var hasExited: Bool {
        mutex.lock()
        defer { mutex.unlock() }
        return exitStatus != nil
    }

    /// Reaps the child if it has exited, without blocking.
    public func poll() -> ExitStatus? {
        mutex.lock()
        defer { mutex.unlock() }
        if let s = exitStatus { return s }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = Self.decode(status)
        } else if r < 0 && errno == ECHILD {
            exitStatus = .exited(-1)  // reaped elsewhere
        }
        return exitStatus
    }

    static func decode(_ status: Int32) -> ExitStatus {
        let sig = status & 0x7F
        if sig == 0 { return .exited((status >> 8) & 0xFF) }
        return .signalled(sig)
    }

    /// Waits at most `timeout` for the child to exit.
    public func wait(timeout: Duration) -> ExitStatus? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var sleepUs: UInt32 = 100
        while true {
            if let s = poll() { return s }
            if ContinuousClock.now >= deadline { return nil }
            usleep(sleepUs)
            sleepUs = min(sleepUs * 2, 10_000)
        }
    }

    /// SIGKILL (the group too, if it leads one) and reap, bounded.
    @discardableResult
    public func killAndReap(timeout: Duration = .seconds(5)) -> ExitStatus? {
        if poll() == nil {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
        }
        return wait(timeout: timeout)
    }

    /// The next line of the child's stdout (without the newline), or nil on EOF or timeout.
    public func readLine(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline - ContinuousClock.now
            if left <= .zero { return nil }
            let ms = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            var pfd = pollfd(fd: stdoutFd, events: Int16(POLLIN), revents: 0)
            let r = Glibc.poll(&pfd, 1, ms)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(stdoutFd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                // EOF: hand out a final unterminated line, if any.
                if buffer.isEmpty { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}

/// The one long-lived thread every child is forked from (see `ChildProcess`).
final class Spawner: @unchecked Sendable {
    static let shared = Spawner()

    private struct Request {
        let path: String
        let argv: [String]
        let env: [String]?
        let group: ChildProcess.ProcessGroup
        let stdoutFd: Int32
        let stderrFd: Int32
        let cwd: String?
        let inheritFd: Int32
        /// The requesting thread's CPU mask, given to the child (nil: the spawner thread's).
        let cpus: sth_cpu_mask?
        let done: DispatchSemaphore
        let result: UnsafeMutablePointer<(pid_t, Int32)>
    }

    private let cond = NSCondition()
    private var queue: [Request] = []

    private init() {
        let t = Thread { [self] in loop() }
        t.name = "screentime.spawner"
        t.start()
    }

    private func loop() {
        while true {
            cond.lock()
            while queue.isEmpty { cond.wait() }
            let r = queue.removeFirst()
            cond.unlock()
            let pid = Self.forkExec(r)
            r.result.pointee = (pid, errno)
            r.done.signal()
        }
    }

    private static func forkExec(_ r: Request) -> pid_t {
        func cStrings(_ a: [String]) -> [UnsafeMutablePointer<CChar>?] { a.map { strdup($0) } + [nil] }
        var argv = cStrings(r.argv)
        defer { argv.forEach { free($0) } }
        var newGroup: Int32 = 0
        var pgid: pid_t = 0
        switch r.group {
        case .new: newGroup = 1
        case .join(let g): pgid = g
        case .inherit: break
        }
        var cpus = r.cpus ?? sth_cpu_mask()
        return withUnsafePointer(to: &cpus) { mask in
            let mask = r.cpus == nil ? nil : mask
            if var env = r.env.map(cStrings) {
                defer { env.forEach { free($0) } }
                return sth_spawn(r.path, &argv, &env, newGroup, pgid, r.stdoutFd, r.stderrFd, r.cwd, mask, r.inheritFd)
            }
            return sth_spawn(r.path, &argv, nil, newGroup, pgid, r.stdoutFd, r.stderrFd, r.cwd, mask, r.inheritFd)
        }
    }

    func spawn(path: String, argv: [String], env: [String]?, group: ChildProcess.ProcessGroup, stdoutFd: Int32, stderrFd: Int32, cwd: String?, inheritFd: Int32) -> pid_t {
        let result = UnsafeMutablePointer<(pid_t, Int32)>.allocate(capacity: 1)
        defer { result.deallocate() }
        result.pointee = (-1, 0)
        let done = DispatchSemaphore(value: 0)
        // The child runs where its caller may (posix_spawn's rule), not where this spawner thread may.
        var mask = sth_cpu_mask()
        let cpus = sth_get_thread_cpus(&mask) == 0 ? mask : nil
        cond.lock()
        queue.append(Request(
            path: path, argv: argv, env: env, group: group, stdoutFd: stdoutFd, stderrFd: stderrFd, cwd: cwd, inheritFd: inheritFd, cpus: cpus, done: done, result: result))
        cond.signal()
        cond.unlock()
        done.wait()  // fork+exec of a local binary; bounded by the kernel
        errno = result.pointee.1
        return result.pointee.0
    }
}

/// Finds the package's sibling executables (next to the running binary, e.g. `.build/debug/`).
public enum Executables {
    /// The running executable's path (`/proc/self/exe`), or nil where it cannot be read.
    public static var current: String? {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static var directory: String {
        guard let path = current else { return "." }
        return (path as NSString).deletingLastPathComponent
    }

    /// The running executable's file name: `harness`, or a team's own harness executable
    /// (`HarnessCLI.main(systems:)`), which starts itself again for `explore-point`.
    public static var currentName: String {
        guard let path = current else { return "harness" }
        return (path as NSString).lastPathComponent
    }

    /// Path of `name` beside the running executable; throws a one-line error when missing.
    public static func path(of name: String) throws -> String {
        let p = directory + "/" + name
        guard access(p, X_OK) == 0 else { throw MissingExecutable(name: name, searched: p) }
        return p
    }

    public struct MissingExecutable: Error, CustomStringConvertible {
        public let name: String
        public let searched: String
        public var description: String { "executable \(name) not found at \(searched) (build the package first: swift build)" }
    }

    /// Makes this process die when its parent does (for executables started by something else
    /// than `ChildProcess`). Exits at once if the parent is already gone.
    public static func dieWithParent(expectedParent: pid_t? = nil) {
        _ = sth_set_pdeathsig(SIGKILL)
        if let p = expectedParent, getppid() != p { exit(1) }
    }
}
