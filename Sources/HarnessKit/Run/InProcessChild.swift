import AppGroup
import Foundation
import Supervision
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// What the run does with one of its children: a process (`ChildProcess`) or a stand-in it runs
/// inside its own process (`InProcessChild`).
protocol RunChild: AnyObject {
    var pid: Int32 { get }
    /// A pidfd readable once the child exited; -1 when there is none to wait on.
    var exitFd: Int32 { get }
    var isRunningUserCode: Bool? { get }
    @discardableResult func signal(_ sig: Int32, group: Bool) -> Bool
    @discardableResult func stopAndWait(timeoutMillis: Int) -> Bool
    func poll() -> ChildProcess.ExitStatus?
    func wait(timeout: Duration) -> ChildProcess.ExitStatus?
    @discardableResult func killAndReap(timeout: Duration) -> ChildProcess.ExitStatus?
}

extension RunChild {
    @discardableResult func signal(_ sig: Int32) -> Bool { signal(sig, group: false) }
    @discardableResult func stopAndWait() -> Bool { stopAndWait(timeoutMillis: 200) }
    @discardableResult func killAndReap() -> ChildProcess.ExitStatus? { killAndReap(timeout: .seconds(5)) }
}

extension ChildProcess: RunChild {}

/// A one-call extension stand-in run inside the harness (`harness run --in-process`): the role's
/// own command on a thread of its own, started when the run next looks at its children (so its
/// `callback_delivered` is recorded first, as for a process), run to its end before the run goes
/// on. Its pid is a number no process can have (above the kernel's `pid_max` limit), so the
/// history and the process table tell the two apart and nothing is ever signalled by mistake.
///
/// Only what an extension process meets is supported: it runs once and ends (exit status), or a
/// failpoint's `kill` ends it where it stands (`signal 9`). A signal from the run (a reboot's
/// kill while it has not run yet) ends it before it starts.
final class InProcessChild: RunChild, @unchecked Sendable {
    /// Above Linux's largest `pid_max` (2^22): never a real process.
    static let firstPid: Int32 = 1 << 23
    nonisolated(unsafe) private static var nextPid = firstPid
    private static let pidLock = NSLock()

    let pid: Int32
    let role: String
    let arguments: [String]
    let environment: [String: String]
    let entry: InProcessStandIns.Entry
    /// The process's stderr (its log); the command's own error lines go there.
    let logPath: String
    private let lock = NSLock()
    private var status: ChildProcess.ExitStatus?
    private var started = false

    var exitFd: Int32 { -1 }

    init(role: String, arguments: [String], environment: [String: String], entry: @escaping InProcessStandIns.Entry, logPath: String) {
        Self.pidLock.lock()
        pid = Self.nextPid
        Self.nextPid = Self.nextPid == Int32.max ? Self.firstPid : Self.nextPid + 1
        Self.pidLock.unlock()
        self.role = role
        self.arguments = arguments
        self.environment = environment
        self.entry = entry
        self.logPath = logPath
    }

    /// Runs the stand-in to its end (once; later calls return at once), bounded: a stand-in that
    /// does not end within `bound` is recorded as killed and left (its thread stays blocked).
    func runToEnd(bound: Duration = .seconds(30)) {
        lock.lock()
        guard !started, status == nil else {
            lock.unlock()
            return
        }
        started = true
        lock.unlock()
        let done = DispatchSemaphore(value: 0)
        let box = self
        let thread = Thread {
            let end: @Sendable (ChildProcess.ExitStatus) -> Void = { s in
                box.finish(s)
                done.signal()
            }
            let park: @Sendable (ChildProcess.ExitStatus) -> Never = { s in
                end(s)
                // This stand-in is dead: its thread never runs again (its memory is let go).
                while true { pause() }
            }
            let crashPoints = CrashPoints.State(onKill: { park(.signalled(SIGKILL)) })
            CrashPoints.installOnThisThread(crashPoints)
            StandInEnvironment.setForThisThread(box.environment)
            InProcessStandIns.setCurrent(.init(environment: box.environment, end: { park(.exited($0)) }))
            let s: ChildProcess.ExitStatus
            do {
                try box.entry(box.arguments)
                s = .exited(0)
            } catch let e as InProcessExit {
                s = .exited(e.code)
            } catch {
                box.log("\(box.role): \(error)")
                s = .exited(1)
            }
            crashPoints.close()
            InProcessStandIns.setCurrent(nil)
            StandInEnvironment.setForThisThread(nil)
            CrashPoints.installOnThisThread(nil)
            end(s)
        }
        thread.name = "in-process \(role)"
        thread.stackSize = 8 << 20
        thread.start()
        if done.wait(timeout: .now() + .nanoseconds(Int(bound.components.seconds * 1_000_000_000))) == .timedOut {
            finish(.signalled(SIGKILL))
            log("\(role): did not end within \(bound); recorded as killed")
        }
    }

    private func finish(_ s: ChildProcess.ExitStatus) {
        lock.lock()
        if status == nil { status = s }
        lock.unlock()
    }

    private func log(_ line: String) {
        let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        _ = (line + "\n").withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    var isRunningUserCode: Bool? {
        lock.lock()
        defer { lock.unlock() }
        return status == nil
    }

    /// Only a kill before it ran can end it from outside (it runs to its end once started).
    func signal(_ sig: Int32, group: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return false }
        if sig == SIGKILL && !started {
            status = .signalled(SIGKILL)
            return true
        }
        return sig == 0
    }

    func stopAndWait(timeoutMillis: Int) -> Bool { poll() != nil }

    func poll() -> ChildProcess.ExitStatus? {
        lock.lock()
        defer { lock.unlock() }
        return status
    }

    func wait(timeout: Duration) -> ChildProcess.ExitStatus? {
        runToEnd()
        return poll()
    }

    func killAndReap(timeout: Duration) -> ChildProcess.ExitStatus? {
        _ = signal(SIGKILL, group: false)
        return poll()
    }
}

extension LiveRun {
    /// The in-process entry of `role` when this run carries it inside the harness (`--in-process`).
    func inProcessEntry(_ role: ProcessRole) -> InProcessStandIns.Entry? {
        guard o.inProcess == .extensions, case .extension = role.lifetime else { return nil }
        return InProcessStandIns.entry(for: role.executable)
    }
}

extension InProcessScope {
    /// Why a run of `scenario` cannot carry its roles in the harness as this scope asks (nil: it
    /// can). What a stand-in reads once per process (App Group faults, data protection) cannot
    /// differ per thread, and a stand-in in the harness must never signal it (`term`, `stop`).
    public func refusal(scenario: Scenario, failpoints: [Failpoint]) -> String? {
        guard self != .none else { return nil }
        let pack = scenario.system
        let roles = pack.descriptor.roles.filter { if case .extension = $0.lifetime { true } else { false } }
        if let missing = roles.first(where: { InProcessStandIns.entry(for: $0.executable) == nil }) {
            return "--in-process \(rawValue): \(pack.id)'s \(missing.name) (\(missing.executable)) cannot run inside the harness; run without --in-process"
        }
        if scenario.clock.mode != .virtual {
            return "--in-process needs virtual time (clock.mode: virtual, the default); \(scenario.name) runs at a fixed rate"
        }
        if scenario.os.faults.contains(where: { if case .staleDefaults = $0.kind { true } else if case .tornWrite = $0.kind { true } else { false } }) {
            return "--in-process: \(scenario.name)'s os.faults act on the App Group (stale_defaults, torn_write), which only a process of its own can have; run without --in-process"
        }
        if scenario.os.lockedAfterReboot != nil {
            return "--in-process: \(scenario.name)'s os.lockedAfterReboot (data protection) needs processes of their own; run without --in-process"
        }
        if let f = (scenario.failpoints + failpoints).first(where: { $0.terms.contains { $0.action == .term || $0.action == .stop } }) {
            return "--in-process: failpoint \(f) signals its process (term, stop), which a stand-in inside the harness cannot; run without --in-process"
        }
        return nil
    }
}
