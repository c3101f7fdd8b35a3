import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// The system's processes as the run carries them out: the process table (`ProcessTable`, pure:
/// who runs as which pid, who is stopped or down and until when, what to do next) and the children
/// it names. Its `Command`s are carried out here — spawn, signal, record — and exits are reaped
/// and shown to the table, the virtual-time scheduler and the OS.
struct RunProcesses {
    var table: ProcessTable
    /// Every child not yet reaped, by pid.
    var children: [Int32: any RunChild] = [:]
    /// Virtual time: children SIGKILLed at a quiescent instant whose exit is already recorded and
    /// which the kernel is still tearing down (reaped when it is done; see `killQuiescent`).
    var dying: [Int32: any RunChild] = [:]
    /// Their exits, recorded after the batch of commands that killed them.
    var killedQuiescent: [Int32] = []
    /// Virtual time: while a user action is performed, the processes it resumes (SIGCONT) are
    /// continued only once the whole action is in place — its taps in the inboxes, its files
    /// written — so what a resumed app finds first never depends on how fast it woke.
    var resumesHeld = false
    var heldResumes: [ProcessTable.Command] = []
    /// Every child's environment: the device root, the entitlements, the run, the variant.
    let environment: [String: String]
    /// `os.faults` of the App Group (stale_defaults, torn_write), as each role's environment.
    let defaultsFaults: [String: String]
    /// `harness coverage`: the processes started so far (each one's profile file is named by it).
    var launches = 0
}

extension LiveRun {
    func logFd(_ name: String) -> Int32 {
        open("\(runDir)/logs/\(name).log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    }

    func start(_ role: ProcessRole, extra: [String]) throws -> any RunChild {
        var env = processes.environment
        // The role it is (EMULATED-IOS.md §7): a team's stand-in reads it (`ScreenTimeProcess`).
        env[StandInEnvironment.processVariable] = role.name
        // Linux Foundation keeps its UserDefaults under $HOME/.config: in the role's own sandbox, as
        // an iOS app's private store is — never shared between roles or runs, and looked at after
        // the run for App Group suites that went there instead of the App Group (FoundationDefaults).
        if let root = env[DeviceRoot.environmentVariable] {
            let home = root + "/sandboxes/" + role.name
            mkdir(root + "/sandboxes", 0o700)
            mkdir(home, 0o700)
            env["HOME"] = home
            env["XDG_CONFIG_HOME"] = nil
        }
        if let spec = processes.defaultsFaults[role.name] { env[DefaultsFaults.environmentVariable] = spec }
        if o.scenario.os.appGroupUnavailable.contains(role.name) { env[AppGroupEnvironment.unavailableVariable] = "1" }
        if role.tracesDefaultsWrites { env["SCREENTIME_TRACE_DEFAULTS"] = "1" }  // PROTOCOL.md §3, traced writes
        if let entry = inProcessEntry(role) {
            // The clock page's descriptor is the harness's own: the stand-in maps it as a child would.
            let child = InProcessChild(
                role: role.name, arguments: role.arguments + extra, environment: env, entry: entry, logPath: "\(runDir)/logs/\(role.name).log")
            processes.children[child.pid] = child
            return child
        }
        let fd = logFd(role.name)
        defer { if fd >= 0 { close(fd) } }
        var profile: String?
        if let dir = o.profileDirectory {
            processes.launches += 1
            profile = CoverageProfiles.fileName(run: (runDir as NSString).lastPathComponent, role: role.name, launch: processes.launches)
            env[CoverageProfiles.environmentVariable] = dir + "/" + CoverageProfiles.pattern(profile!)
        }
        let child = try ChildProcess.spawn(
            role.executablePath(binDirectory: o.binDirectory), role.arguments + extra, environment: env, captureStdout: false,
            stdoutTo: fd, stderrTo: fd, inheritFd: clock.page?.fd ?? -1)
        processes.children[child.pid] = child
        if let dir = o.profileDirectory, let profile { CoverageProfiles.recordLaunch(directory: dir, role: pack.id + "/" + role.name, pid: child.pid, profile: profile) }
        return child
    }

    /// Virtual time: a stopped server is unreachable — its port is withdrawn until it is continued
    /// — because a request that reached a frozen server would be handled when it is continued, at
    /// a moment that depends on wall-clock scheduling. At a fixed rate requests hang, as on iOS.
    func withdrawPort(of pid: Int32, _ withdraw: Bool) {
        guard stepped, let role = processes.table.longLived.first(where: { $0.pid == pid })?.role,
            pack.descriptor.role(role)?.lifetime == .server
        else { return }
        let live = paths.portFile(role)
        let aside = paths.runDirectory + "/ports/.\(role).port.withdrawn"
        if withdraw { rename(live, aside) } else { rename(aside, live) }
    }

    /// Starts a long-lived role and records it.
    func spawn(_ name: String) throws {
        guard let role = pack.descriptor.role(name) else { throw RunError("\(pack.id) has no role \(name)") }
        // When the spawn began: on one CPU (CPUPinning) the spawn returns only once the child
        // first waits — after its start-up — so the line's own stamp would hide the launch time.
        let began = Self.now()
        let child = try start(role, extra: pack.launchArguments(for: role, configuration: o.scenario.configuration, run: paths))
        processes.table.spawned(role: name, pid: child.pid)
        // An in-process app reports to the run directly (`runInProcessApps`), not through the scheduler.
        if stepped && !(child is InProcessChild) { virtualTime.scheduler.spawned(pid: child.pid, role: name) }
        rec.record(.spawn, ["target": name, "childPid": String(child.pid), "spawnMono": String(began)])
        if name == hostRole { osApply(.hostLaunched) }
    }

    /// Starts the extension process of one call and records it (`callback_delivered`, or
    /// `callback_started` for a call a stop held back).
    func launch(_ role: ProcessRole, _ call: ExtensionCall, delivery: Int, fields: [String: String]) {
        var f = fields
        do {
            let child = try start(role, extra: call.arguments(delivery: delivery))
            processes.table.extensionStarted(role: role.name, pid: child.pid, callback: call.callbackName, delivery: delivery, wallNanos: runningNow())
            f["childPid"] = String(child.pid)
            rec.record(f["deferredUntil"] == nil ? .callbackDelivered : .callbackStarted, f)
        } catch {
            rec.record(.callbackNotDelivered, ["callback": call.callbackName, "delivery": String(delivery), "error": "\(error)"])
            osApply(.callEnded(delivery: delivery, completed: false, response: nil))
            launchWaitingCalls(of: role.name)
        }
    }

    func execute(_ commands: [ProcessTable.Command]) {
        for command in commands {
            switch command {
            case .spawn(let role):
                do { try spawn(role) } catch {
                    execute(processes.table.spawnFailed(role: role, error: "\(error)", now: ticks()))
                }
            case .signal(let pid, let signal):
                guard let child = processes.children[pid] else { continue }
                switch signal {
                case .kill:
                    if !killQuiescent(pid, child) { child.signal(SIGKILL) }
                case .term: child.signal(SIGTERM)
                case .stop:
                    withdrawPort(of: pid, true)
                    // Recorded as stopped only once it is (bounded): a checker or an inspection
                    // that reads the process right after must see it stopped.
                    child.stopAndWait()
                case .cont:
                    if processes.resumesHeld {
                        processes.heldResumes.append(command)
                        continue
                    }
                    child.signal(SIGCONT)
                    withdrawPort(of: pid, false)
                }
            case .record(let event, let fields):
                rec.record(event, fields)
            }
        }
        // After the batch: its record of the kill comes before the exit.
        while !processes.killedQuiescent.isEmpty { exited(processes.killedQuiescent.removeFirst(), .signalled(SIGKILL)) }
    }

    /// Gives the stand-ins inside the harness their turns (apps with work, extension calls not run
    /// yet), then reaps exited children; true when any ran or had exited.
    @discardableResult
    func reap() -> Bool {
        // In-process apps take their turns, then extension calls run, in the order they were made (InProcessChild).
        var any = runInProcessApps()
        for call in processes.table.extensions { (processes.children[call.pid] as? InProcessChild)?.runToEnd() }
        let order = processes.table.longLived.compactMap(\.pid) + processes.table.extensions.map(\.pid)
        for pid in order {
            guard let child = processes.children[pid], let status = child.poll() else { continue }
            any = true
            exited(pid, status)
        }
        for (pid, child) in processes.dying where child.poll() != nil { processes.dying[pid] = nil }
        execute(processes.table.watchdog(wallNanos: runningNow()))
        return any
    }

    /// Records a child's exit and does what follows from it (restarts, the OS's view).
    func exited(_ pid: Int32, _ status: ChildProcess.ExitStatus) {
        processes.children[pid] = nil
        virtualTime.scheduler.exited(pid: pid)
        virtualTime.wakes?.forget(pid)
        let call = processes.table.extensions.first { $0.pid == pid }
        let role = processes.table.longLived.first { $0.pid == pid }?.role
        execute(processes.table.exited(pid: pid, status: "\(status)", clean: status == .exited(0), now: ticks()))
        if let call { extensionEnded(delivery: call.delivery, role: call.role, clean: status == .exited(0)) }
        if let role, role == hostRole { osApply(.hostExited) }
        // A tap it died inside is tapped again once it is back (InterruptedTaps.swift).
        if let role, pack.descriptor.role(role)?.lifetime == .app { repeatInterruptedTaps(of: role) }
    }

    /// Virtual time: a planned SIGKILL of a long-lived process at a quiescent instant. The process
    /// is idle — blocked waiting, its last report sent — so once `kill` returns it can do nothing
    /// more: its exit is recorded at once instead of when the kernel has torn it down, which for a
    /// process holding an inotify instance takes an RCU grace period (~10 ms of wall time per kill,
    /// ~200 kills in a 24-hour run; `harness bench time`). A server's port is withdrawn first, so
    /// no request reaches a listening socket the kernel has not closed yet. False (nothing done)
    /// when these conditions do not hold; the caller then kills and reaps as usual.
    func killQuiescent(_ pid: Int32, _ child: any RunChild) -> Bool {
        guard stepped, nemesis.atQuiescentInstant, !virtualTime.lastQuiesceTimedOut,
            let entry = processes.table.longLived.first(where: { $0.pid == pid }), child.isRunningUserCode == true
        else { return false }
        if pack.descriptor.role(entry.role)?.lifetime == .server, !entry.isStopped { withdrawPort(of: pid, true) }
        guard child.signal(SIGKILL) else { return false }
        processes.dying[pid] = child
        processes.killedQuiescent.append(pid)
        return true
    }

    /// The end of the run (or of a failed setup): every process is ended and its exit recorded.
    func shutdownAll() {
        processes.table.shuttingDown()
        for entry in processes.table.longLived {
            guard let pid = entry.pid, let child = processes.children[pid] else { continue }
            // TERM before CONT: a process iOS left suspended wakes with the TERM already pending
            // and ends before it takes in anything queued while it was stopped (a Darwin post).
            // CONT first, which of its threads looked first decided whether a queued input ran —
            // two runs of one seed differed at their very end (Rally hardened seed 2).
            child.signal(SIGTERM)
            child.signal(SIGCONT)
            if child.wait(timeout: .seconds(2)) == nil { _ = child.killAndReap() }
            rec.record(.exit, [
                "target": entry.role, "childPid": String(pid), "status": "\(child.poll().map { "\($0)" } ?? "killed")", "by": "harness",
            ])
            processes.children[pid] = nil
        }
        for call in processes.table.extensions {
            _ = processes.children[call.pid]?.killAndReap()
            processes.children[call.pid] = nil
        }
        for (pid, child) in processes.dying {
            if child.wait(timeout: .seconds(2)) == nil { _ = child.killAndReap() }
            processes.dying[pid] = nil
        }
    }
}
