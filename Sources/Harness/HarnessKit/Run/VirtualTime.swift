import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

/// Virtual time (PROTOCOL.md §9) as the run keeps it: the device time the harness last wrote to
/// `<root>/clock`, the participants' idle reports (`VirtualScheduler`, pure) and how the waits
/// for quiet went. The loop steps the clock straight to the next instant anything happens, once
/// nothing holds time at this one.
struct VirtualTime {
    /// Device unix seconds now (the harness is the clock's only writer).
    var now: Double
    var scheduler = VirtualScheduler()
    /// Where the participants' reports arrive (nil at a fixed rate).
    let inbox: SchedulerInbox?
    /// The participants' wake FIFOs (nil at a fixed rate).
    let wakes: WakeSender?
    /// Clock moves, and quiescence waits that ran into their bound.
    var steps = 0
    /// CLOCK_MONOTONIC as each step began, before the clock moved: the crash points that fell in
    /// each step (`CrashPoints.recorded(in:stepStarts:)`).
    var stepStartMonos: [Int64] = []
    var quiescenceTimeouts = 0
    var lastQuiesceTimedOut = false

    init(now: Double, inbox: SchedulerInbox?, wakes: WakeSender? = nil) {
        self.now = now
        self.inbox = inbox
        self.wakes = wakes
    }
}

extension LiveRun {
    /// How long (wall) the system may take to go quiet at one device instant before the harness
    /// records who held it and moves on anyway: never a hang.
    static let quiescenceWallNanos: Int64 = 5_000_000_000

    func loopStepped() {
        let actionTimes = plan.workload.actionTimes
        var actionIndex = 0
        let deviceStart = setup.deviceStart
        let workloadEnd = deviceStart + Double(plan.deviceDurationSeconds)
        let end = workloadEnd + Double(o.scenario.settleSeconds)
        var quiescing = false
        // Virtual time is far faster than the device; bound the wall time anyway.
        let hardDeadline = runningNow() + Self.overrunWallNanos + Int64(Double(plan.deviceDurationSeconds + o.scenario.settleSeconds) / 100 * 1e9)
        var lastProgress = Self.now()
        var lastTick = Int64(0)
        quiesce()
        while true {
            if stopRequested() { return }
            // Everything due at this instant, in a fixed order, each followed by `settle()`: quiet,
            // and the OS's view of what the processes did recorded, before anything else happens.
            if scanEmulatedOSIfNeeded() { settle() }
            let due = processes.table.due(now: ticks())
            if !due.isEmpty {
                execute(due)
                settle()
            }
            if launchDeferredCalls() { settle() }
            if !quiescing && rebootIfDue() {
                settle()
                continue
            }
            if osScheduleIfDue() { settle() }
            if !quiescing { applyDueFaultsAtInstant() }
            while actionIndex < actionTimes.count, deviceStart + actionTimes[actionIndex] <= virtualTime.now {
                processes.resumesHeld = true
                unlockDevice(by: "user")
                play(plan.workload.move(action: actionIndex, seeing: self))
                processes.resumesHeld = false
                let held = processes.heldResumes
                processes.heldResumes = []
                execute(held)
                actionIndex += 1
                settle()
            }
            if !quiescing && actionIndex == actionTimes.count && virtualTime.now >= workloadEnd {
                quiescing = true
                rec.record(.quiesce, [:])
                armedFaultsDropped()
                execute(processes.table.beginQuiesce(now: ticks()))
                reopenHostForSettling()
                settle()
                continue
            }
            if quiescing && virtualTime.now >= end && !processes.table.extensionCallsRunning && nemesis.deferredCalls.isEmpty { return }
            if runningNow() > hardDeadline {
                rec.record(.runOverran, [
                    "why": "virtual time did not reach the end within its wall-time bound",
                    "extensionCallsRunning": String(processes.table.extensions.count),
                ])
                return
            }
            // The next instant anything happens.
            let stopped = stoppedNow()
            var candidates: [Double] = [quiescing ? end : workloadEnd]
            if let t = virtualTime.scheduler.nextDeadline(after: virtualTime.now, stopped: stopped.pids) { candidates.append(t) }
            if actionIndex < actionTimes.count { candidates.append(deviceStart + actionTimes[actionIndex]) }
            if !quiescing, let t = nextPlannedFault { candidates.append(t) }
            if let t = processes.table.nextDueTicks { candidates.append(Double(t) / 1000) }
            if let t = nemesis.deferredCalls.map(\.ticks).min() { candidates.append(Double(t) / 1000) }
            if let t = emulated.deadline { candidates.append(t) }
            if let t = inProcessNextDeadline { candidates.append(t) }
            if !quiescing, let t = nextReboot { candidates.append(t) }
            if let t = nextScheduledOSEvent { candidates.append(t) }
            let next = candidates.filter { $0 > virtualTime.now }.min() ?? (virtualTime.now + 0.001)
            // Every step above ended with `settle()`, so nothing is left unrecorded at this
            // instant when the clock moves (a checker must never blame an app for the harness's
            // lag); after the move, the top of the loop looks at the OS's files again.
            advance(to: next)
            quiesce()
            let wall = Self.now()
            if let tick = o.tick, wall - lastTick > 200_000_000 {
                lastTick = wall
                tick(RunProgress(
                    deviceSeconds: virtualTime.now - deviceStart, deviceTotalSeconds: end - deviceStart,
                    faults: processes.table.faultCounts.values.reduce(0, +)))
            }
            if o.tick == nil, wall - lastProgress > 2_000_000_000 {
                lastProgress = wall
                let pct = Int(100 * min(1, (virtualTime.now - deviceStart) / max(1, end - deviceStart)))
                let faultCount = processes.table.faultCounts.values.reduce(0, +)
                o.progress("\(o.scenario.name)/\(o.variant.rawValue) seed \(o.seed): \(pct)% of device time, \(faultCount) faults (virtual time)")
            }
        }
    }

    /// The pids the nemesis holds stopped, and the server roles among them.
    func stoppedNow() -> (pids: Set<Int32>, services: Set<String>) {
        var pids = Set<Int32>()
        var services = Set<String>()
        for e in processes.table.longLived where e.isStopped || e.osSuspended {
            if let pid = e.pid { pids.insert(pid) }
            if pack.descriptor.role(e.role)?.lifetime == .server { services.insert(e.role) }
        }
        for call in processes.table.extensions where call.resumeAtNanos != nil { pids.insert(call.pid) }
        return (pids, services)
    }

    /// At most this many rounds of "the OS looks at the files, the processes react" at one
    /// instant: a system that keeps the OS busy forever is recorded, never a hang.
    static let settleRoundsMax = 64

    /// Quiet, then the OS's view of the processes' reactions, repeated until the OS sees nothing
    /// new (bounded by `settleRoundsMax`): every reaction at this instant is recorded at it.
    func settle() {
        quiesce()
        var rounds = 0
        while scanEmulatedOSIfNeeded() {
            quiesce()
            rounds += 1
            if rounds >= Self.settleRoundsMax {
                rec.record(.settleBound, ["rounds": String(rounds), "why": "the OS kept seeing new writes at one instant"])
                return
            }
        }
    }

    /// Waits until nothing holds device time at this instant (bounded).
    func quiesce() {
        virtualTime.lastQuiesceTimedOut = false
        let deadline = runningNow() + Self.quiescenceWallNanos
        var blockers: [String] = []
        // Blockers are worked out again only when something changed: a report came, a child
        // exited, or we posted a wake (reading the notify records is the costly part).
        var changed = true
        while true {
            if reap() { changed = true }
            if answerPrompts() { changed = true }
            let reports = virtualTime.inbox?.read(timeoutMillis: 0) ?? []
            for report in reports { virtualTime.scheduler.received(report) }
            if !reports.isEmpty { changed = true }
            let runningCalls = processes.table.extensions.filter { $0.resumeAtNanos == nil }
            let running = runningCalls.map(\.role)
            if changed {
                changed = false
                let stopped = stoppedNow()
                // One read of the notify header per look (not one per name); a new one after our
                // own posts, which the blockers must see. A participant with a wake FIFO is woken
                // there (its `system.wake.<pid>` generation is the harness's count), else by a post.
                let wakes = virtualTime.wakes, center = self.center
                func generations() -> (String) -> UInt64 {
                    let snapshot = center.generationSnapshot()
                    return { name in wakes?.generation(ofName: name) ?? snapshot(name) }
                }
                var generation = generations()
                let toWake = virtualTime.scheduler.toWake(now: virtualTime.now, generation: generation, stopped: stopped.pids)
                var posted = false
                for pid in toWake where wakes?.wake(pid) == nil {
                    try? center.post(SchedulerChannel.wakeNotification(pid: pid))
                    posted = true
                }
                if posted { generation = generations() }
                let exiting = processes.table.longLived.filter { $0.pid != nil && $0.expectedExit && !$0.isStopped }.map(\.role)
                // A stopped server's port is withdrawn (`withdrawPort`), so every request ends at
                // once: a participant waiting for any answer holds time.
                blockers = virtualTime.scheduler.blockers(
                    now: virtualTime.now, generation: generation, stopped: stopped.pids, stoppedServices: [],
                    runningCalls: running, exiting: exiting) + inProcessHolders
                if blockers.isEmpty { return }
            }
            let gap = self.running.gapNanos
            if runningNow() > deadline { break }
            if self.running.gapNanos > gap {
                // The harness was not running: what changed meanwhile is looked at before anything
                // is waited for again.
                changed = true
                continue
            }
            // An in-process app with something to do takes its turn at the top of the loop (reap).
            if inProcessAppWantsToRun {
                changed = true
                continue
            }
            // Participants answer through the FIFO, which wakes us at once; so does the exit of a
            // process whose end we wait for (a running call, an expected exit), through its pidfd.
            // Without one (a kernel before 5.3) we look again within a millisecond.
            var exitFds: [Int32] = []
            var exitUnwatched = false
            let awaited = runningCalls.map(\.pid) + processes.table.longLived.filter({ $0.expectedExit }).compactMap(\.pid)
            for pid in awaited where !(processes.children[pid] is InProcessChild) {
                if let fd = processes.children[pid]?.exitFd, fd >= 0 { exitFds.append(fd) } else { exitUnwatched = true }
            }
            // And the exit of any other long-lived process, which nobody expects (a crash, a
            // failpoint's kill): it changes who holds time, so it is looked at now, not when the
            // wait runs out (50 ms of wall per point `harness explore` kills).
            for pid in processes.table.longLived.compactMap(\.pid) where !awaited.contains(pid) {
                if let fd = processes.children[pid]?.exitFd, fd >= 0 { exitFds.append(fd) }
            }
            let wait: Int32 = exitUnwatched ? 1 : 50
            let arrived = virtualTime.inbox?.read(timeoutMillis: wait, alsoWaitFor: exitFds) ?? []
            for report in arrived { virtualTime.scheduler.received(report) }
            if !arrived.isEmpty { changed = true }
        }
        virtualTime.lastQuiesceTimedOut = true
        virtualTime.quiescenceTimeouts += 1
        rec.record(.quiescenceTimeout, ["waitingFor": blockers.joined(separator: "; ")])
    }

    /// Moves the stepped clock to `t`; `quiesce` then wakes the participants whose deadline came.
    func advance(to t: Double) {
        virtualTime.stepStartMonos.append(Self.now())
        virtualTime.now = t
        virtualTime.steps += 1
        do {
            // Every reader inside the harness reads the page: the file is written at the end.
            let pageOnly = try o.inProcess == .all && clock.writePageOnly(.stepped(at: t, timeZone: emulated.timeZone))
            if !pageOnly { try clock.write(.stepped(at: t, timeZone: emulated.timeZone), to: root) }
        } catch {
            rec.record(.clockError, ["error": "\(error)"])
        }
    }
}
