/// The system's processes as plain data: which role runs as which pid, which are stopped or down
/// and until when, which extension calls are running — and what to do next. Pure: times are
/// handed in as "ticks" — CLOCK_MONOTONIC nanoseconds at a fixed clock rate, device milliseconds
/// under virtual time (`ticksPerMillisecond` says which) — plus wall nanoseconds for the
/// extension watchdog, and every decision comes back as `Command`s that the runner carries out
/// (spawn, signal, record a history line). Tested without processes.
///
/// Long-lived roles (app, server) are kept alive: relaunched after the nemesis's kill once its
/// down time is over, and after a crash (bounded). Extension calls are one process each; iOS's
/// watchdog kills one that runs too long.
package struct ProcessTable: Sendable {
    package enum Signal: String, Sendable {
        case kill = "KILL", term = "TERM", stop = "STOP", cont = "CONT"
    }

    package enum Command: Sendable, Equatable {
        case spawn(role: String)
        case signal(pid: Int32, Signal)
        /// A harness history line.
        case record(HarnessLine, [String: String])
    }

    package struct LongLived: Sendable, Equatable {
        package var role: String
        package var pid: Int32?
        /// When to (re)start it; nil = not scheduled.
        package var restartAtNanos: Int64?
        /// While SIGSTOPped: when to SIGCONT.
        package var resumeAtNanos: Int64?
        /// True while the harness expects it to be gone (nemesis kill/term, final shutdown).
        package var expectedExit = false
        /// Restarts after exits nobody caused (crashes): bounded.
        package var unexpectedExits = 0
        /// SIGSTOPped by iOS (an app in the background): continued only when iOS resumes it.
        package var osSuspended = false
        /// Terminated by iOS (force quit): not brought back until iOS launches it.
        package var heldDownByOS = false

        package var isStopped: Bool { resumeAtNanos != nil }
    }

    package struct ExtensionCall: Sendable, Equatable {
        package var role: String
        package var pid: Int32
        package var callback: String
        package var delivery: Int
        /// Wall nanoseconds (the watchdog's clock).
        package var startedWallNanos: Int64
        /// Ticks.
        package var resumeAtNanos: Int64?
    }

    /// Under virtual time a fault on an extension role waits for that role's next call (none runs
    /// while the system is idle): killed as it starts, or stopped for the hold.
    package struct ArmedFault: Sendable, Equatable {
        package var kind: FaultKind
        package var holdTicks: Int64
        /// Ticks; a call after this is not hit.
        package var untilTicks: Int64

        package init(kind: FaultKind, holdTicks: Int64, untilTicks: Int64) {
            self.kind = kind
            self.holdTicks = holdTicks
            self.untilTicks = untilTicks
        }
    }

    // Bounds.
    package static let maxUnexpectedExits = 50
    /// A crashed long-lived process comes back after this.
    package static let crashRestartDelayMillis: Int64 = 50
    /// A failed spawn is retried after this.
    package static let spawnRetryMillis: Int64 = 100
    /// An extension still running after this is killed, as iOS's watchdog would.
    package static let extensionWatchdogNanos: Int64 = 3_000_000_000
    /// Extension calls running at once (the OS queues nothing: past this, a call is refused).
    package static let maxExtensionCalls = 256

    /// In the order the system lists its roles.
    package internal(set) var longLived: [LongLived]
    package private(set) var extensions: [ExtensionCall] = []
    /// Faults carried out, by kind (`kill`, `term`, `stop`).
    package private(set) var faultCounts: [String: Int] = [:]
    /// 1_000_000 (wall ns) at a fixed rate, 1 (device ms) under virtual time.
    package let ticksPerMillisecond: Int64
    /// Virtual time: extension faults wait for the role's next call.
    package let armsExtensionFaults: Bool
    package private(set) var armed: [String: ArmedFault] = [:]

    package init(longLivedRoles: [String], ticksPerMillisecond: Int64 = 1_000_000, armsExtensionFaults: Bool = false) {
        longLived = longLivedRoles.map { LongLived(role: $0) }
        self.ticksPerMillisecond = ticksPerMillisecond
        self.armsExtensionFaults = armsExtensionFaults
    }

    /// The earliest tick at which `due(now:)` has something to do (nil: nothing scheduled).
    package var nextDueTicks: Int64? {
        let longLivedTimes = longLived.flatMap { [$0.resumeAtNanos, $0.pid == nil && !$0.heldDownByOS ? $0.restartAtNanos : nil] }.compactMap { $0 }
        return (longLivedTimes + extensions.compactMap(\.resumeAtNanos)).min()
    }

    package func entry(_ role: String) -> LongLived? { longLived.first { $0.role == role } }

    package var extensionCallsRunning: Bool { !extensions.isEmpty }

    package var extensionCallsFull: Bool { extensions.count >= Self.maxExtensionCalls }

    // MARK: Spawning

    package mutating func spawned(role: String, pid: Int32) {
        guard let i = index(role) else { return }
        longLived[i].pid = pid
        longLived[i].restartAtNanos = nil
        longLived[i].resumeAtNanos = nil
        longLived[i].expectedExit = false
        longLived[i].osSuspended = false
        longLived[i].heldDownByOS = false
    }

    package mutating func spawnFailed(role: String, error: String, now: Int64) -> [Command] {
        guard let i = index(role) else { return [] }
        longLived[i].restartAtNanos = now + Self.spawnRetryMillis * ticksPerMillisecond
        return [.record(.spawnFailed, ["target": role, "error": error])]
    }

    /// A call started.
    package mutating func extensionStarted(role: String, pid: Int32, callback: String, delivery: Int, wallNanos: Int64) {
        extensions.append(ExtensionCall(role: role, pid: pid, callback: callback, delivery: delivery, startedWallNanos: wallNanos))
    }

    /// Under virtual time: the fault armed for `role`'s next call, if one is and its hold has not
    /// run out; it is used up (and counted).
    package mutating func takeArmedFault(role: String, now: Int64) -> ArmedFault? {
        guard let fault = armed.removeValue(forKey: role), now <= fault.untilTicks else { return nil }
        faultCounts[fault.kind.rawValue, default: 0] += 1
        return fault
    }

    // MARK: Exits

    /// `pid` exited with `status` (its description); `clean` = exit code 0.
    package mutating func exited(pid: Int32, status: String, clean: Bool, now: Int64) -> [Command] {
        if let e = extensions.firstIndex(where: { $0.pid == pid }) {
            let call = extensions.remove(at: e)
            let fields = ["callback": call.callback, "delivery": String(call.delivery), "childPid": String(pid), "status": status]
            return [.record(clean ? .callbackCompleted : .callbackFailed, fields)]
        }
        guard let i = longLived.firstIndex(where: { $0.pid == pid }) else { return [] }
        var commands: [Command] = [.record(.exit, ["target": longLived[i].role, "childPid": String(pid), "status": status])]
        longLived[i].pid = nil
        longLived[i].resumeAtNanos = nil
        longLived[i].osSuspended = false
        if !longLived[i].expectedExit {
            // It died on its own (a crash): iOS/the user brings it back, but not forever.
            longLived[i].unexpectedExits += 1
            if longLived[i].unexpectedExits <= Self.maxUnexpectedExits {
                longLived[i].restartAtNanos = now + Self.crashRestartDelayMillis * ticksPerMillisecond
            } else {
                commands.append(.record(.gaveUpRestarting, ["target": longLived[i].role]))
            }
        }
        longLived[i].expectedExit = false
        return commands
    }

    // MARK: The nemesis

    package mutating func apply(_ fault: PlannedFault, now: Int64) -> [Command] {
        let signal: Signal
        switch fault.kind {
        case .kill: signal = .kill
        case .term: signal = .term
        case .stop: signal = .stop
        }
        let hold = Int64(fault.holdMillis) * ticksPerMillisecond
        if let i = index(fault.target) {
            guard let pid = longLived[i].pid, !longLived[i].isStopped, !(fault.kind == .stop && longLived[i].osSuspended) else {
                let why = longLived[i].pid == nil ? "not running" : longLived[i].isStopped ? "stopped" : "suspended by iOS"
                return [.record(.faultSkipped, ["target": fault.target, "kind": fault.kind.rawValue, "why": why])]
            }
            faultCounts[fault.kind.rawValue, default: 0] += 1
            if fault.kind == .stop {
                longLived[i].resumeAtNanos = now + hold
            } else {
                longLived[i].expectedExit = true
                longLived[i].restartAtNanos = now + hold
            }
            var commands: [Command] = [
                .signal(pid: pid, signal),
                .record(.signal, ["target": fault.target, "childPid": String(pid), "signal": signal.rawValue, "by": "nemesis"]),
            ]
            // A process iOS suspended holds a SIGTERM pending until it runs again: continue it so
            // it can handle the signal and exit (as `kill -TERM` + `kill -CONT`; iOS itself ends a
            // suspended app with SIGKILL). Without this it would never exit and every tick would
            // wait out its bounded quiescence wait.
            if fault.kind == .term, longLived[i].osSuspended {
                commands += [
                    .signal(pid: pid, .cont),
                    .record(.signal, ["target": fault.target, "childPid": String(pid), "signal": "CONT", "by": "nemesis"]),
                ]
            }
            return commands
        }
        guard let e = extensions.firstIndex(where: { $0.role == fault.target && $0.resumeAtNanos == nil }) else {
            if armsExtensionFaults {
                armed[fault.target] = ArmedFault(kind: fault.kind, holdTicks: hold, untilTicks: now + hold)
                return [.record(.faultArmed, ["target": fault.target, "kind": fault.kind.rawValue])]
            }
            return [.record(.faultSkipped, ["target": fault.target, "kind": fault.kind.rawValue, "why": "not running"])]
        }
        faultCounts[fault.kind.rawValue, default: 0] += 1
        if fault.kind == .stop { extensions[e].resumeAtNanos = now + hold }
        let call = extensions[e]
        return [
            .signal(pid: call.pid, signal),
            .record(.signal, [
                "target": call.role, "childPid": String(call.pid), "signal": signal.rawValue, "by": "nemesis",
                "delivery": String(call.delivery),
            ]),
        ]
    }

    // MARK: Time passing

    /// Stopped processes whose stop is over are continued; long-lived ones whose down time is over
    /// are restarted.
    package mutating func due(now: Int64) -> [Command] {
        var commands: [Command] = []
        for i in longLived.indices {
            if let r = longLived[i].resumeAtNanos, r <= now {
                longLived[i].resumeAtNanos = nil
                // A process iOS suspended meanwhile stays stopped until iOS resumes it.
                if let pid = longLived[i].pid, !longLived[i].osSuspended {
                    commands += [
                        .signal(pid: pid, .cont),
                        .record(.signal, ["target": longLived[i].role, "childPid": String(pid), "signal": "CONT", "by": "nemesis"]),
                    ]
                }
            }
        }
        for e in extensions.indices {
            if let r = extensions[e].resumeAtNanos, r <= now {
                extensions[e].resumeAtNanos = nil
                let call = extensions[e]
                commands += [
                    .signal(pid: call.pid, .cont),
                    .record(.signal, ["target": call.role, "childPid": String(call.pid), "signal": "CONT", "by": "nemesis"]),
                ]
            }
        }
        // Relaunching the app = the user opening it again.
        for i in longLived.indices {
            if let r = longLived[i].restartAtNanos, r <= now, longLived[i].pid == nil, !longLived[i].heldDownByOS {
                longLived[i].restartAtNanos = nil
                commands.append(.spawn(role: longLived[i].role))
            }
        }
        return commands
    }

    /// Extensions running past iOS's watchdog (wall time; a stopped one is the nemesis's) are killed.
    package func watchdog(wallNanos: Int64) -> [Command] {
        var commands: [Command] = []
        for call in extensions where wallNanos - call.startedWallNanos > Self.extensionWatchdogNanos && call.resumeAtNanos == nil {
            commands += [
                .signal(pid: call.pid, .kill),
                .record(.signal, ["target": call.role, "childPid": String(call.pid), "signal": "KILL", "by": "watchdog"]),
            ]
        }
        return commands
    }

    /// The workload is over: nothing stays stopped or down while the system settles.
    package mutating func beginQuiesce(now: Int64) -> [Command] {
        var commands: [Command] = []
        for i in longLived.indices {
            if longLived[i].isStopped, let pid = longLived[i].pid, !longLived[i].osSuspended {
                longLived[i].resumeAtNanos = nil
                commands += [
                    .signal(pid: pid, .cont),
                    .record(.signal, ["target": longLived[i].role, "childPid": String(pid), "signal": "CONT", "by": "harness"]),
                ]
            }
            if longLived[i].pid == nil { longLived[i].restartAtNanos = now }
        }
        // (A host iOS suspended or terminated stays so: iOS decides, not the harness.)
        armed.removeAll()
        for e in extensions.indices where extensions[e].resumeAtNanos != nil {
            extensions[e].resumeAtNanos = nil
            commands += [
                .signal(pid: extensions[e].pid, .cont),
                .record(.signal, [
                    "target": extensions[e].role, "childPid": String(extensions[e].pid), "signal": "CONT", "by": "harness",
                ]),
            ]
        }
        return commands
    }

    /// The final shutdown: every long-lived process is expected to go.
    package mutating func shuttingDown() {
        for i in longLived.indices {
            longLived[i].expectedExit = true
            longLived[i].restartAtNanos = nil
            longLived[i].resumeAtNanos = nil
        }
    }

    private func index(_ role: String) -> Int? { longLived.firstIndex { $0.role == role } }
}
