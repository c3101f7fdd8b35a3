import HarnessKit
import Testing

/// Supervision and the nemesis as plain data: every decision checked without a process.
@Suite(.timeLimit(.minutes(1))) struct ProcessTableTests {
    static let ms: Int64 = 1_000_000

    func table() -> ProcessTable {
        var t = ProcessTable(longLivedRoles: ["app", "server"])
        t.spawned(role: "app", pid: 100)
        t.spawned(role: "server", pid: 200)
        return t
    }

    func fault(_ target: String, _ kind: FaultKind, hold: Int = 50) -> PlannedFault {
        PlannedFault(atWallOffsetMillis: 0, target: target, kind: kind, holdMillis: hold)
    }

    @Test func aKilledAppIsRelaunchedWhenItsDownTimeIsOverNotBefore() {
        var t = table()
        #expect(t.apply(fault("app", .kill, hold: 50), now: 0) == [
            .signal(pid: 100, .kill), .record(.signal, ["target": "app", "childPid": "100", "signal": "KILL", "by": "nemesis"]),
        ])
        #expect(t.exited(pid: 100, status: "signalled(9)", clean: false, now: 1 * Self.ms) == [
            .record(.exit, ["target": "app", "childPid": "100", "status": "signalled(9)"]),
        ])
        #expect(t.due(now: 49 * Self.ms).isEmpty)
        #expect(t.due(now: 50 * Self.ms) == [.spawn(role: "app")])
        #expect(t.due(now: 51 * Self.ms).isEmpty, "one relaunch, not one per tick")
        t.spawned(role: "app", pid: 101)
        #expect(t.entry("app")?.pid == 101)
        #expect(t.faultCounts == ["kill": 1])
    }

    @Test func aStopIsContinuedAfterItsHoldAndAStoppedTargetIsSkipped() {
        var t = table()
        _ = t.apply(fault("server", .stop, hold: 20), now: 0)
        #expect(t.entry("server")?.isStopped == true)
        #expect(t.apply(fault("server", .kill), now: 5 * Self.ms) == [
            .record(.faultSkipped, ["target": "server", "kind": "kill", "why": "stopped"]),
        ])
        #expect(t.due(now: 20 * Self.ms) == [
            .signal(pid: 200, .cont), .record(.signal, ["target": "server", "childPid": "200", "signal": "CONT", "by": "nemesis"]),
        ])
        #expect(t.entry("server")?.isStopped == false)
        #expect(t.faultCounts == ["stop": 1])
    }

    @Test func aTermToAnAppIOSSuspendedIsFollowedByAContSoItCanExitAndAStopIsSkipped() {
        var t = table()
        _ = t.osSuspend(role: "app")
        #expect(t.apply(fault("app", .stop), now: 0) == [
            .record(.faultSkipped, ["target": "app", "kind": "stop", "why": "suspended by iOS"]),
        ])
        #expect(t.apply(fault("app", .term, hold: 30), now: 0) == [
            .signal(pid: 100, .term), .record(.signal, ["target": "app", "childPid": "100", "signal": "TERM", "by": "nemesis"]),
            .signal(pid: 100, .cont), .record(.signal, ["target": "app", "childPid": "100", "signal": "CONT", "by": "nemesis"]),
        ])
        // Not suspended: a TERM alone.
        #expect(t.apply(fault("server", .term), now: 0) == [
            .signal(pid: 200, .term), .record(.signal, ["target": "server", "childPid": "200", "signal": "TERM", "by": "nemesis"]),
        ])
    }

    @Test func aCrashIsRestartedQuicklyButNotForever() {
        var t = ProcessTable(longLivedRoles: ["app"])
        var pid: Int32 = 1
        t.spawned(role: "app", pid: pid)
        var now: Int64 = 0
        for crash in 1...ProcessTable.maxUnexpectedExits + 1 {
            let commands = t.exited(pid: pid, status: "exited(1)", clean: false, now: now)
            if crash <= ProcessTable.maxUnexpectedExits {
                #expect(commands.count == 1)
                #expect(t.due(now: now + ProcessTable.crashRestartDelayMillis * Self.ms - 1).isEmpty, "not before the restart delay")
                now += ProcessTable.crashRestartDelayMillis * Self.ms
                #expect(t.due(now: now) == [.spawn(role: "app")])
                pid += 1
                t.spawned(role: "app", pid: pid)
            } else {
                #expect(commands.last == .record(.gaveUpRestarting, ["target": "app"]))
                #expect(t.due(now: now + 10_000 * Self.ms).isEmpty)
            }
        }
    }

    @Test func extensionCallsEndWithTheirExitAndTheWatchdogKillsALongOne() {
        var t = table()
        t.extensionStarted(role: "monitor", pid: 300, callback: "intervalDidStart", delivery: 1, wallNanos: 0)
        t.extensionStarted(role: "monitor", pid: 301, callback: "intervalDidEnd", delivery: 2, wallNanos: 0)
        #expect(t.exited(pid: 300, status: "exited(0)", clean: true, now: 1) == [
            .record(.callbackCompleted, ["callback": "intervalDidStart", "delivery": "1", "childPid": "300", "status": "exited(0)"]),
        ])
        #expect(t.watchdog(wallNanos: ProcessTable.extensionWatchdogNanos).isEmpty)
        #expect(t.watchdog(wallNanos: ProcessTable.extensionWatchdogNanos + 1) == [
            .signal(pid: 301, .kill), .record(.signal, ["target": "monitor", "childPid": "301", "signal": "KILL", "by": "watchdog"]),
        ])
        #expect(t.exited(pid: 301, status: "signalled(9)", clean: false, now: 2).first == .record(
            .callbackFailed, ["callback": "intervalDidEnd", "delivery": "2", "childPid": "301", "status": "signalled(9)"]))
        #expect(!t.extensionCallsRunning)
    }

    @Test func theNemesisHitsARunningExtensionOrSkips() {
        var t = table()
        #expect(t.apply(fault("monitor", .kill), now: 0) == [
            .record(.faultSkipped, ["target": "monitor", "kind": "kill", "why": "not running"]),
        ])
        t.extensionStarted(role: "monitor", pid: 300, callback: "intervalDidStart", delivery: 7, wallNanos: 0)
        #expect(t.apply(fault("monitor", .stop, hold: 10), now: 0).first == .signal(pid: 300, .stop))
        // A stopped extension is not the watchdog's: the nemesis holds it.
        #expect(t.watchdog(wallNanos: ProcessTable.extensionWatchdogNanos * 2).isEmpty)
        #expect(t.due(now: 10 * Self.ms).first == .signal(pid: 300, .cont))
    }

    @Test func aFaultOnAnExtensionRoleHitsOnlyACallOfThatRole() {
        var t = table()
        t.extensionStarted(role: "shield", pid: 300, callback: "shieldAction", delivery: 1, wallNanos: 0)
        #expect(t.apply(fault("monitor", .kill), now: 0) == [
            .record(.faultSkipped, ["target": "monitor", "kind": "kill", "why": "not running"]),
        ])
        t.extensionStarted(role: "monitor", pid: 301, callback: "intervalDidStart", delivery: 2, wallNanos: 0)
        #expect(t.apply(fault("monitor", .kill), now: 0).first == .signal(pid: 301, .kill))
    }

    /// iOS suspends the host in the background; the nemesis stops processes for its hold. Neither
    /// continues a process the other still holds.
    @Test func anIOSSuspensionAndANemesisStopNeverUndoEachOther() {
        var t = table()
        #expect(t.osSuspend(role: "app") == [
            .signal(pid: 100, .stop), .record(.signal, ["target": "app", "childPid": "100", "signal": "STOP", "by": "ios"]),
        ])
        // A nemesis STOP of a suspended host is skipped: its CONT would wake what iOS suspended.
        #expect(t.apply(fault("app", .stop, hold: 10), now: 0) == [
            .record(.faultSkipped, ["target": "app", "kind": "stop", "why": "suspended by iOS"]),
        ])
        #expect(t.osResume(role: "app").first == .signal(pid: 100, .cont))
        // Stopped by the nemesis, then suspended by iOS: the end of the hold does not continue it.
        #expect(t.apply(fault("app", .stop, hold: 10), now: 20 * Self.ms).first == .signal(pid: 100, .stop))
        #expect(t.osSuspend(role: "app").first == .signal(pid: 100, .stop))
        #expect(t.due(now: 30 * Self.ms).isEmpty, "iOS still has it suspended")
        #expect(t.osResume(role: "app").first == .signal(pid: 100, .cont))
        // And iOS's resume does not continue a process the nemesis still holds.
        #expect(t.apply(fault("app", .stop, hold: 10), now: 40 * Self.ms).first == .signal(pid: 100, .stop))
        _ = t.osSuspend(role: "app")
        #expect(t.osResume(role: "app").isEmpty, "the nemesis still holds it")
        #expect(t.due(now: 50 * Self.ms) == [
            .signal(pid: 100, .cont), .record(.signal, ["target": "app", "childPid": "100", "signal": "CONT", "by": "nemesis"]),
        ])
    }

    @Test func aHostIOSTerminatedStaysDownUntilIOSLaunchesIt() {
        var t = table()
        #expect(t.osTerminate(role: "app").first == .signal(pid: 100, .kill))
        #expect(t.exited(pid: 100, status: "signalled(9)", clean: false, now: 0).count == 1, "an expected exit: no restart")
        // Not brought back when the workload ends either: iOS decides, not the harness.
        _ = t.beginQuiesce(now: 1 * Self.ms)
        #expect(t.due(now: 10_000 * Self.ms).isEmpty)
        #expect(t.osLaunch(role: "app") == [.spawn(role: "app")])
    }

    @Test func aRebootKillsTheDevicesProcessesAndEveryExtensionCallNotTheServer() {
        var t = table()
        t.extensionStarted(role: "monitor", pid: 300, callback: "intervalDidStart", delivery: 3, wallNanos: 0)
        let commands = t.reboot(deviceRoles: ["app", "monitor"])
        #expect(commands.contains(.signal(pid: 100, .kill)))
        #expect(commands.contains(.signal(pid: 300, .kill)), "\(commands)")
        #expect(!commands.contains(.signal(pid: 200, .kill)), "the server is not on the device")
        _ = t.exited(pid: 100, status: "signalled(9)", clean: false, now: 0)
        #expect(t.due(now: 10_000 * Self.ms).isEmpty, "the app stays down until iOS launches it")
    }

    @Test func atTheFinalShutdownNothingIsRelaunched() {
        var t = table()
        t.shuttingDown()
        #expect(t.exited(pid: 100, status: "signalled(15)", clean: false, now: 0) == [
            .record(.exit, ["target": "app", "childPid": "100", "status": "signalled(15)"]),
        ])
        #expect(t.nextDueTicks == nil)
        #expect(t.due(now: 10_000 * Self.ms).isEmpty)
        #expect(t.entry("app")?.unexpectedExits == 0)
    }

    @Test func quiesceContinuesTheStoppedAndRestartsTheDown() {
        var t = table()
        _ = t.apply(fault("app", .stop, hold: 10_000), now: 0)
        _ = t.apply(fault("server", .kill, hold: 10_000), now: 0)
        _ = t.exited(pid: 200, status: "signalled(9)", clean: false, now: 0)
        let commands = t.beginQuiesce(now: 5 * Self.ms)
        #expect(commands.first == .signal(pid: 100, .cont))
        #expect(t.due(now: 5 * Self.ms) == [.spawn(role: "server")])
    }

    @Test func aFailedSpawnIsRetriedAndRecorded() {
        var t = ProcessTable(longLivedRoles: ["app"])
        #expect(t.spawnFailed(role: "app", error: "ENOENT", now: 0) == [.record(.spawnFailed, ["target": "app", "error": "ENOENT"])])
        #expect(t.due(now: ProcessTable.spawnRetryMillis * Self.ms) == [.spawn(role: "app")])
    }

    // MARK: Virtual time (ticks are device milliseconds)

    @Test func underVirtualTimeHoldsAreDeviceMillisecondsAndTheNextDueTimeIsKnown() {
        var t = ProcessTable(longLivedRoles: ["app"], ticksPerMillisecond: 1, armsExtensionFaults: true)
        t.spawned(role: "app", pid: 100)
        #expect(t.nextDueTicks == nil)
        _ = t.apply(fault("app", .kill, hold: 30_000), now: 1_000)
        _ = t.exited(pid: 100, status: "signalled(9)", clean: false, now: 1_000)
        #expect(t.nextDueTicks == 31_000, "relaunched 30 device seconds later")
        #expect(t.due(now: 30_999).isEmpty)
        #expect(t.due(now: 31_000) == [.spawn(role: "app")])
    }

    @Test func underVirtualTimeAnExtensionFaultWaitsForTheRolesNextCallWithinItsHold() {
        var t = ProcessTable(longLivedRoles: [], ticksPerMillisecond: 1, armsExtensionFaults: true)
        #expect(t.apply(fault("monitor", .kill, hold: 5_000), now: 0) == [.record(.faultArmed, ["target": "monitor", "kind": "kill"])])
        #expect(t.takeArmedFault(role: "shield", now: 100) == nil)
        #expect(t.takeArmedFault(role: "monitor", now: 200) == ProcessTable.ArmedFault(kind: .kill, holdTicks: 5_000, untilTicks: 5_000))
        #expect(t.faultCounts == ["kill": 1])
        // Armed once: the next call runs free.
        #expect(t.takeArmedFault(role: "monitor", now: 300) == nil)
        // A call after the fault's hold is not hit, and the fault is not counted.
        _ = t.apply(fault("monitor", .stop, hold: 1_000), now: 1_000)
        #expect(t.takeArmedFault(role: "monitor", now: 2_001) == nil)
        #expect(t.faultCounts == ["kill": 1])
        // With a call running, the fault hits it at once instead of arming.
        t.extensionStarted(role: "monitor", pid: 4, callback: "x", delivery: 4, wallNanos: 0)
        #expect(t.apply(fault("monitor", .stop, hold: 60_000), now: 3_000).first == .signal(pid: 4, .stop))
        #expect(t.nextDueTicks == 63_000)
    }
}
