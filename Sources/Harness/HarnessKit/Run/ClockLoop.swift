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

/// The run's main loop: under virtual time (`loopStepped`, VirtualTime.swift) device time moves
/// only when the system is idle; at a fixed rate (`loopFixedRate`) the loop ticks every
/// millisecond against the wall clock until the workload is done and the system has settled.
extension LiveRun {
    // Bounds.
    /// The fixed-rate loop's tick.
    static let tickMicros: UInt32 = 1000
    /// Fixed rate: the least wall time the system gets to settle after the workload.
    static let quiesceMinWallNanos: Int64 = 1_500_000_000
    /// Hard bound on one run's wall time beyond its plan: past it the system "did not settle".
    static let overrunWallNanos: Int64 = 60_000_000_000
    /// How often the OS looks at the shims' files without being told (they post a notification).
    static let scanIntervalNanos: Int64 = 20_000_000

    /// Device time now, unix seconds.
    var now: Double { stepped ? virtualTime.now : clock.nowUnixSeconds() }

    /// The process table's clock: wall ns at a fixed rate, device ms under virtual time.
    func ticks() -> Int64 { stepped ? Int64((virtualTime.now * 1000).rounded()) : Self.now() }

    func loop() {
        if stepped { loopStepped() } else { loopFixedRate() }
    }

    func loopFixedRate() {
        var actionIndex = 0
        let actionTimes = plan.workload.actionTimes
        let deviceStart = setup.deviceStart
        let workloadEnd = deviceStart + Double(plan.deviceDurationSeconds)
        let quiesceUntilDevice = workloadEnd + Double(o.scenario.settleSeconds)
        var quiescing = false
        var quiesceStarted: Int64 = 0
        var lastScan: Int64 = 0
        let hardDeadline = startNanos + Int64(plan.wallSpanMillis) * 1_000_000 + Self.overrunWallNanos
        var lastProgress = Self.now()
        var lastTick = Int64(0)
        while true {
            if stopRequested() { return }
            let now = Self.now()
            if now > hardDeadline {
                rec.record(.runOverran, [
                    "why": "not settled \(Self.overrunWallNanos / 1_000_000_000) s of wall time after the plan's end",
                    "extensionCallsRunning": String(processes.table.extensions.count),
                ])
                return
            }
            let deviceNow = clock.nowUnixSeconds()
            reap()
            execute(processes.table.due(now: now))
            if !quiescing { applyDueFaults(elapsedMillis: Int((now - startNanos) / 1_000_000), now: now) }
            while actionIndex < actionTimes.count, deviceStart + actionTimes[actionIndex] <= deviceNow {
                unlockDevice(by: "user")
                play(plan.workload.move(action: actionIndex, seeing: self))
                actionIndex += 1
            }
            if osDirty.take() || now - lastScan > Self.scanIntervalNanos {
                lastScan = now
                osScan()
            }
            osTick()
            answerPrompts()
            if !quiescing { _ = rebootIfDue() }
            _ = osScheduleIfDue()
            if !quiescing && actionIndex == actionTimes.count && deviceNow >= workloadEnd {
                quiescing = true
                quiesceStarted = now
                rec.record(.quiesce, [:])
                execute(processes.table.beginQuiesce(now: now))
                reopenHostForSettling()
            }
            if quiescing && deviceNow >= quiesceUntilDevice && now - quiesceStarted >= Self.quiesceMinWallNanos
                && !processes.table.extensionCallsRunning
            {
                return
            }
            if let tick = o.tick, now - lastTick > 200_000_000 {
                lastTick = now
                tick(RunProgress(
                    deviceSeconds: deviceNow - deviceStart, deviceTotalSeconds: quiesceUntilDevice - deviceStart,
                    faults: processes.table.faultCounts.values.reduce(0, +)))
            }
            if o.tick == nil, now - lastProgress > 2_000_000_000 {
                lastProgress = now
                let pct = Int(100 * min(1, (deviceNow - deviceStart) / max(1, quiesceUntilDevice - deviceStart)))
                let faultCount = processes.table.faultCounts.values.reduce(0, +)
                o.progress("\(o.scenario.name)/\(o.variant.rawValue) seed \(o.seed): \(pct)% of device time, \(faultCount) faults")
            }
            usleep(Self.tickMicros)
        }
    }
}
