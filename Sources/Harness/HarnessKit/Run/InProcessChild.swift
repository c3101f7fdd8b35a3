import AppGroup
import Foundation
import History
import StandInRuntime
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

/// A stand-in run inside the harness (`harness run --in-process`): the role's own command on a
/// thread of its own that runs only while the harness lets it — one of the two threads runs at a
/// time, so the run is as deterministic as with processes under virtual time.
///
/// An extension call is started when the run next looks at its children (so its
/// `callback_delivered` is recorded first, as for a process) and runs to its end. An app runs
/// until it is idle (`InProcessStandIns.Current.idle`, what a process reports through the
/// scheduler FIFO), and again whenever `wantsToRun` says so. Its pid is a number no process can
/// have (above the kernel's `pid_max` limit), so the history tells the two apart and nothing is
/// ever signalled by mistake. Signals: KILL ends it (an idle thread is never run again), TERM is
/// taken when it next runs, STOP and CONT are the process table's (a stopped one is not run).
final class InProcessChild: RunChild, @unchecked Sendable {
    /// Above Linux's largest `pid_max` (2^22): never a real process.
    static let firstPid: Int32 = 1 << 23
    nonisolated(unsafe) private static var nextPid = firstPid
    private static let pidLock = NSLock()
    /// The longest one turn of a stand-in may take (wall): past it, it is recorded as killed.
    static let turnBound: Duration = .seconds(30)

    let pid: Int32
    let role: String
    let arguments: [String]
    let environment: [String: String]
    let entry: InProcessStandIns.Entry
    /// The process's stderr (its log); the command's own error lines go there.
    let logPath: String

    private enum State {
        case notStarted
        /// Its thread has the turn.
        case running
        case idle(InProcessStandIns.IdleReport)
        case ended(ChildProcess.ExitStatus)
    }
    private let lock = NSLock()
    private var state = State.notStarted
    private var terminate = false
    /// SIGSTOP'd and not continued since (by the nemesis or by iOS): it gets no turn, as a stopped
    /// process does not run — whatever signals came meanwhile (a TERM waits for the CONT).
    private var stopped = false
    /// The stand-in's thread waits on `go` for its turn; the harness waits on `back` for it to end.
    private let go = DispatchSemaphore(value: 0)
    private let back = DispatchSemaphore(value: 0)
    /// Its crash points, and the flocks it holds (released when it is killed).
    private lazy var crashPoints = CrashPoints.State(onKill: { [unowned self] in self.endHere(.signalled(SIGKILL)) })
    /// Lends (true) or takes back (false) this stand-in's context to threads its code starts.
    private var holds: @Sendable (Bool) -> Void = { _ in }

    var exitFd: Int32 { -1 }

    nonisolated(unsafe) private static var runsBegun = 0

    /// A run that carries stand-ins begins: false when this process carried one already. One per
    /// process, ever: a seed's own code keeps process-wide state (Seed000's `AppGroupStorage.shared`
    /// holds the suite of the device it first saw), which a second run would find in place.
    static func beginRun() -> Bool {
        pidLock.lock()
        defer { pidLock.unlock() }
        guard runsBegun == 0 else { return false }
        runsBegun += 1
        // Trace lines carry the pid of the stand-in that writes them.
        TraceLog.processID = { StandInEnvironment.processID }
        return true
    }


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

    /// What it waits for, while it is idle.
    var idleReport: InProcessStandIns.IdleReport? {
        lock.lock()
        defer { lock.unlock() }
        if case .idle(let r) = state { return r }
        return nil
    }

    /// True when a turn now would do something: it has not started, it was told to end, its
    /// deadline came, or a name it observes moved past what it took in.
    func wantsToRun(now: Double, generation: (String) -> UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopped { return false }
        switch state {
        case .notStarted: return true
        case .running, .ended: return false
        case .idle(let r):
            if terminate { return true }
            if let next = r.next, next <= now { return true }
            return r.consumed.contains { generation($0.key) > $0.value }
        }
    }

    /// Gives the stand-in one turn: until it is idle or has ended (bounded by `turnBound`).
    func runTurn() {
        lock.lock()
        switch state {
        case .running, .ended:
            lock.unlock()
            return
        case .notStarted:
            state = .running
            lock.unlock()
            startThread()
        case .idle:
            state = .running
            lock.unlock()
            go.signal()
        }
        let nanos = Int(Self.turnBound.components.seconds) * 1_000_000_000
        if back.wait(timeout: .now() + .nanoseconds(nanos)) == .timedOut {
            finish(.signalled(SIGKILL))
            log("\(role): its turn did not end within \(Self.turnBound); recorded as killed")
        }
    }

    /// An extension call: started and run to its end (a few turns at most: one, for a call).
    func runToEnd(turns: Int = 4) {
        for _ in 0..<turns where poll() == nil {
            lock.lock()
            let startable: Bool
            if case .notStarted = state { startable = true } else if case .idle = state { startable = true } else { startable = false }
            lock.unlock()
            guard startable else { return }
            runTurn()
        }
    }

    private func startThread() {
        let box = self
        let crashPoints = self.crashPoints
        let thread = Thread {
            let wait: @Sendable (String, UInt64) -> Void = { name, generation in
                box.yieldIdle(.init(next: nil, consumed: [name: generation], holdsTime: true))
            }
            box.holds = { holding in
                CrashPoints.setTurnHolder(holding ? crashPoints : nil)
                StandInEnvironment.setTurnHolder(
                    holding ? box.environment : nil, wait: holding ? wait : nil, incarnation: holding ? box : nil, pid: holding ? box.pid : nil)
            }
            box.holds(true)
            CrashPoints.installOnThisThread(crashPoints)
            StandInEnvironment.setForThisThread(box.environment)
            StandInEnvironment.setWaitForPost(wait)
            StandInEnvironment.setIncarnationForThisThread(box)
            StandInEnvironment.setProcessIDForThisThread(box.pid)
            InProcessStandIns.setCurrent(.init(
                environment: box.environment, end: { box.endHere(.exited($0)) }, idle: { box.yieldIdle($0) },
                terminateRequested: { box.terminateRequested }, alive: { box.poll() == nil }, report: { box.updateIdle($0) }))
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
            crashPoints.processEnded()
            InProcessStandIns.setCurrent(nil)
            StandInEnvironment.setForThisThread(nil)
            StandInEnvironment.setWaitForPost(nil)
            StandInEnvironment.setIncarnationForThisThread(nil)
            StandInEnvironment.setProcessIDForThisThread(nil)
            CrashPoints.installOnThisThread(nil)
            box.finish(s)
            box.holds(false)
            box.back.signal()
        }
        thread.name = "in-process \(role)"
        thread.stackSize = 8 << 20
        thread.start()
    }

    private var terminateRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return terminate
    }

    /// A new report of an idle stand-in, made while another had the turn.
    private func updateIdle(_ report: InProcessStandIns.IdleReport) {
        lock.lock()
        if case .idle = state { state = .idle(report) }
        lock.unlock()
    }

    /// On the stand-in's thread: idle until its next turn.
    private func yieldIdle(_ report: InProcessStandIns.IdleReport) {
        lock.lock()
        if case .running = state { state = .idle(report) }
        lock.unlock()
        holds(false)
        back.signal()
        go.wait()
        holds(true)
        lock.lock()
        let ended: Bool
        if case .ended = state { ended = true } else { ended = false }
        lock.unlock()
        // Killed while idle: it never runs again.
        if ended { Self.parkForever() }
    }

    /// On the stand-in's thread: it ends here (a kill, its exit); it never runs again.
    private func endHere(_ s: ChildProcess.ExitStatus) -> Never {
        // A process that ends, however, gives up its flocks (a server's journal, a suite's lock)
        // and its open files (the crash-point log).
        crashPoints.processEnded()
        finish(s)
        holds(false)
        back.signal()
        Self.parkForever()
    }

    /// The thread of a stand-in that ended where it stood: blocked for the life of the harness
    /// (what it held in memory goes with the harness; its flocks were released, CrashPoints).
    private static func parkForever() -> Never {
        let never = DispatchSemaphore(value: 0)
        while true { never.wait() }
    }

    private func finish(_ s: ChildProcess.ExitStatus) {
        lock.lock()
        if case .ended = state {} else { state = .ended(s) }
        lock.unlock()
    }

    private func log(_ line: String) {
        let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        _ = (line + "\n").withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    var isRunningUserCode: Bool? { poll() == nil }

    func signal(_ sig: Int32, group: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .ended: return false
        case .running: return false  // never: the harness signals only between turns
        case .notStarted, .idle:
            if sig == SIGKILL {
                state = .ended(.signalled(SIGKILL))
                // The kernel releases a killed process's flocks (a server's journal, a suite's lock)
                // and closes its files (the crash-point log).
                crashPoints.processEnded()
                return true
            }
            if sig == SIGTERM { terminate = true }
            if sig == SIGSTOP { stopped = true }
            if sig == SIGCONT { stopped = false }
            return true
        }
    }

    func stopAndWait(timeoutMillis: Int) -> Bool {
        _ = signal(SIGSTOP, group: false)
        return true
    }

    /// SIGSTOP'd and not continued since.
    var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    func poll() -> ChildProcess.ExitStatus? {
        lock.lock()
        defer { lock.unlock() }
        if case .ended(let s) = state { return s }
        return nil
    }

    /// Gives a stand-in told to end its turn to end (the harness's shutdown), then its status.
    func wait(timeout: Duration) -> ChildProcess.ExitStatus? {
        if poll() == nil, terminateRequested || idleReport == nil { runToEnd() }
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
        guard o.inProcess.carries(role) else { return nil }
        return InProcessStandIns.entry(for: role.executable)
    }

    /// Gives every in-process app that has something to do its turn, until none has (bounded,
    /// like `settle`); true when any ran. Their order is the process table's.
    @discardableResult
    func runInProcessApps() -> Bool {
        var ran = false
        for _ in 0..<Self.settleRoundsMax {
            let generation = center.generationSnapshot()
            var any = false
            for entry in processes.table.longLived {
                guard let pid = entry.pid, let child = processes.children[pid] as? InProcessChild,
                    child.wantsToRun(now: virtualTime.now, generation: generation)
                else { continue }
                child.runTurn()
                any = true
            }
            if !any { break }
            ran = true
        }
        return ran
    }

    /// In-process apps that hold device time — waiting for an answer in the middle of their
    /// work, or with something to do at this instant (a post they have not taken in) — as the
    /// quiescence wait names its blockers.
    var inProcessHolders: [String] {
        let generation = center.generationSnapshot()
        return processes.table.longLived.compactMap { entry in
            guard let pid = entry.pid, let child = processes.children[pid] as? InProcessChild else { return nil }
            // A stopped one holds nothing (as a stopped process is no blocker).
            if !child.isStopped, child.idleReport?.holdsTime == true { return "\(entry.role) (in the harness) waits for an answer" }
            if child.wantsToRun(now: virtualTime.now, generation: generation) {
                return "\(entry.role) (in the harness) has something to do"
            }
            return nil
        }
    }

    /// True when an in-process app would do something if given a turn now.
    var inProcessAppWantsToRun: Bool {
        let generation = center.generationSnapshot()
        return processes.table.longLived.contains { entry in
            guard let pid = entry.pid, let child = processes.children[pid] as? InProcessChild else { return false }
            return child.wantsToRun(now: virtualTime.now, generation: generation)
        }
    }

    /// The earliest deadline of the in-process apps that may run (a stopped one waits).
    var inProcessNextDeadline: Double? {
        processes.table.longLived.compactMap { entry in
            entry.pid.flatMap { processes.children[$0] as? InProcessChild }.flatMap { $0.isStopped ? nil : $0.idleReport?.next }
        }.min()
    }
}

extension InProcessScope {
    /// Whether this scope carries `role` inside the harness.
    public func carries(_ role: ProcessRole) -> Bool {
        switch (self, role.lifetime) {
        case (.none, _): false
        case (_, .extension): true
        case (.device, .app): true
        case (.all, _): true
        default: false
        }
    }

    /// Why a run of `scenario` cannot carry its roles in the harness as this scope asks (nil: it
    /// can): a stand-in in the harness must never signal it (`term`, `stop`). What a stand-in
    /// reads once per process (App Group faults, data protection) is read once per launch there.
    public func refusal(scenario: Scenario, failpoints: [Failpoint]) -> String? {
        guard self != .none else { return nil }
        let pack = scenario.system
        let roles = pack.descriptor.roles.filter(carries)
        if let missing = roles.first(where: { InProcessStandIns.entry(for: $0.executable) == nil }) {
            return "--in-process \(rawValue): \(pack.id)'s \(missing.name) (\(missing.executable)) cannot run inside the harness; run without --in-process"
        }
        if scenario.clock.mode != .virtual {
            return "--in-process needs virtual time (clock.mode: virtual, the default); \(scenario.name) runs at a fixed rate"
        }
        if let f = (scenario.failpoints + failpoints).first(where: { $0.terms.contains { $0.action == .term || $0.action == .stop } }) {
            return "--in-process: failpoint \(f) signals its process (term, stop), which a stand-in inside the harness cannot; run without --in-process"
        }
        return nil
    }
}
