import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.timeLimit(.minutes(1))) struct HeartbeatClassifierTests {
    func record(_ seq: UInt64, at t: Double, launch: String = "L1", interval: Double = 1) -> HeartbeatRecord {
        HeartbeatRecord(writer: "w", pid: 1, launchId: launch, sequence: seq, wallTime: t, monotonicTime: t, intervalSeconds: interval)
    }

    @Test func fixedThresholdGoesAliveLateDeadAndBack() {
        var c = HeartbeatClassifier(detector: .fixed(thresholdSeconds: 300))
        #expect(c.observe(record(0, at: 0), wallTime: 0, monotonicTime: 0).map(\.to) == [.alive])
        #expect(c.evaluate(wallTime: 1.5, monotonicTime: 1.5).isEmpty)
        #expect(c.evaluate(wallTime: 2.5, monotonicTime: 2.5).map(\.to) == [.late])
        #expect(c.evaluate(wallTime: 299, monotonicTime: 299).isEmpty)
        let dead = c.evaluate(wallTime: 300.5, monotonicTime: 300.5)
        #expect(dead.map(\.to) == [.dead])
        #expect(dead.first?.from == .late)
        #expect(dead.first?.ageSeconds == 300.5)
        #expect(c.observe(record(1, at: 301), wallTime: 301, monotonicTime: 301).map(\.to) == [.alive])
    }

    @Test func newLaunchIdIsARestart() {
        var c = HeartbeatClassifier(detector: .fixed(thresholdSeconds: 10))
        _ = c.observe(record(5, at: 0), wallTime: 0, monotonicTime: 0)
        _ = c.evaluate(wallTime: 11, monotonicTime: 11)
        let tr = c.observe(record(0, at: 12, launch: "L2"), wallTime: 12, monotonicTime: 12)
        #expect(tr.map(\.to) == [.restarted, .alive])
        #expect(tr.first?.from == .dead)
        #expect(c.status(of: "w") == .alive)
    }

    @Test func phiGrowsWithSilenceAndDeclaresDeadPastThreshold() {
        var c = HeartbeatClassifier(detector: .phiAccrual(threshold: 8, lateThreshold: 1, minStdDevSeconds: 0.1, window: 50))
        for i in 0...20 { _ = c.observe(record(UInt64(i), at: Double(i)), wallTime: Double(i), monotonicTime: Double(i)) }
        #expect(c.evaluate(wallTime: 21, monotonicTime: 21).isEmpty)  // on time
        let p1 = HeartbeatClassifier.phi(age: 1.0, intervals: Array(repeating: 1, count: 20), declared: 1, minStdDev: 0.1)
        let p2 = HeartbeatClassifier.phi(age: 1.5, intervals: Array(repeating: 1, count: 20), declared: 1, minStdDev: 0.1)
        #expect(p1 < 1 && p2 > p1)
        let tr = c.evaluate(wallTime: 22.0, monotonicTime: 22.0)  // two intervals of silence
        #expect(tr.last?.to == .dead)
        #expect((tr.last?.phi ?? 0) >= 8)
    }

    /// Between alive and dead lies the `late` band (phi ≥ lateThreshold, < threshold): 20 beats a
    /// second apart, then 1.2 s of silence, is late — not dead, not alive.
    @Test func phiLateBandSitsBetweenAliveAndDead() {
        var c = HeartbeatClassifier(detector: .phiAccrual(threshold: 8, lateThreshold: 1))
        for i in 0..<20 { _ = c.observe(record(UInt64(i), at: Double(i)), wallTime: Double(i), monotonicTime: Double(i)) }
        #expect(c.evaluate(wallTime: 19.9, monotonicTime: 19.9).isEmpty)  // on time
        let late = c.evaluate(wallTime: 20.2, monotonicTime: 20.2)
        #expect(late.map(\.to) == [.late])
        let phi = late.first?.phi ?? 0
        #expect(phi >= 1 && phi < 8, "phi \(phi)")
        let dead = c.evaluate(wallTime: 21, monotonicTime: 21)
        #expect(dead.map(\.to) == [.dead])
        #expect(dead.first?.from == .late)
        // A late writer that beats again is alive.
        var d = HeartbeatClassifier(detector: .phiAccrual(threshold: 8, lateThreshold: 1))
        for i in 0..<20 { _ = d.observe(record(UInt64(i), at: Double(i)), wallTime: Double(i), monotonicTime: Double(i)) }
        _ = d.evaluate(wallTime: 20.2, monotonicTime: 20.2)
        #expect(d.observe(record(20, at: 20.3), wallTime: 20.3, monotonicTime: 20.3).map(\.to) == [.alive])
    }

    /// phi judges by the rhythm it observed, not the one the writer declared: a writer that says
    /// 1 s but beats every 2 s is on time 2 s after its last beat.
    @Test func phiLearnsTheObservedRhythmNotTheDeclaredOne() {
        var c = HeartbeatClassifier(detector: .phiAccrual(threshold: 8, lateThreshold: 1))
        for i in 0..<10 { _ = c.observe(record(UInt64(i), at: 2 * Double(i)), wallTime: 2 * Double(i), monotonicTime: 2 * Double(i)) }
        #expect(c.evaluate(wallTime: 19.9, monotonicTime: 19.9).isEmpty)
        #expect(c.status(of: "w") == .alive)
        // Fewer than 3 intervals: the declared interval stands in (mean 1 s, sd 0.25 s).
        var young = HeartbeatClassifier(detector: .phiAccrual(threshold: 8, lateThreshold: 1))
        _ = young.observe(record(0, at: 0), wallTime: 0, monotonicTime: 0)
        #expect(young.evaluate(wallTime: 1.0, monotonicTime: 1.0).isEmpty)
        #expect(young.evaluate(wallTime: 3.0, monotonicTime: 3.0).map(\.to) == [.dead])
    }

    /// The window bounds the history: after the rhythm changes, the old one is forgotten.
    @Test func phiForgetsIntervalsOlderThanItsWindow() {
        var c = HeartbeatClassifier(detector: .phiAccrual(threshold: 8, lateThreshold: 1, window: 10))
        var t = 0.0
        for i in 0..<60 {
            t += i < 50 ? 1 : 0.1  // 50 s-long intervals, then 10 of 0.1 s
            _ = c.observe(record(UInt64(i), at: t), wallTime: t, monotonicTime: t)
        }
        // Only the last 10 (0.1 s) intervals count: half a second of silence is death.
        #expect(c.evaluate(wallTime: t + 0.5, monotonicTime: t + 0.5).map(\.to) == [.dead])
    }

    /// A monitor that polls slower than the writer sees every 5th beat: the sequence numbers say
    /// how many beats the gap held, so the learnt interval is still 1 s.
    @Test func beatsMissedBetweenPollsAreCountedInTheInterval() {
        var c = HeartbeatClassifier(detector: .phiAccrual(threshold: 8, lateThreshold: 1))
        for i in stride(from: 0, through: 50, by: 5) {
            _ = c.observe(record(UInt64(i), at: Double(i)), wallTime: Double(i), monotonicTime: Double(i))
        }
        #expect(c.evaluate(wallTime: 52, monotonicTime: 52).map(\.to) == [.dead])  // 2 s: dead for a 1 s beat
    }

    /// The same file read again (a writer that died leaves its last beat behind) is no new beat:
    /// it must not bring a dead writer back.
    @Test func anOldBeatReadAgainDoesNotReviveADeadWriter() {
        for detector in [HeartbeatDetector.fixed(thresholdSeconds: 3), .phiAccrual(threshold: 8)] {
            var c = HeartbeatClassifier(detector: detector)
            for i in 0..<5 { _ = c.observe(record(UInt64(i), at: Double(i)), wallTime: Double(i), monotonicTime: Double(i)) }
            #expect(c.evaluate(wallTime: 10, monotonicTime: 10).last?.to == .dead)
            #expect(c.observe(record(4, at: 4), wallTime: 11, monotonicTime: 11).isEmpty)
            #expect(c.observe(record(3, at: 3), wallTime: 11, monotonicTime: 11).isEmpty)
            #expect(c.evaluate(wallTime: 12, monotonicTime: 12).isEmpty)
            #expect(c.status(of: "w") == .dead)
        }
    }
}

@Suite(.timeLimit(.minutes(3))) struct HeartbeatProcessTests {
    /// A SIGKILLed writer is reported dead within threshold + one interval (+ one monitor poll).
    @Test(arguments: [HeartbeatDetector.fixed(thresholdSeconds: 1.0), .phiAccrual(threshold: 8, lateThreshold: 3, minStdDevSeconds: 0.05, window: 100)])
    func killedWriterIsDeclaredDeadInTime(detector: HeartbeatDetector) throws {
        let t = try TestRoot()
        let interval = 0.1
        let w = try t.helper(["heartbeat", "--root", t.path, "--writer", "host-app", "--interval", String(interval)])
        defer { w.killAndReap() }
        #expect(w.readLine(timeout: .seconds(10)) == "ready")
        let clock = DeviceClock(deviceRoot: t.root)
        let monitor = try HeartbeatMonitor(container: t.container(), detector: detector, clock: clock)
        let pollInterval = 0.02
        // Let it beat long enough for phi to learn the rhythm.
        let learnUntil = clock.nowUnixSeconds() + 2
        while clock.nowUnixSeconds() < learnUntil {
            for tr in monitor.poll() { #expect(tr.to != .dead, "false alarm while healthy: \(tr)") }
            usleep(UInt32(pollInterval * 1e6))
        }
        #expect(monitor.status(of: "host-app") == .alive)
        let killedAt = clock.monotonicSeconds()
        w.signal(SIGKILL)
        _ = w.wait(timeout: .seconds(5))
        var deadAt: Double?
        let giveUp = clock.monotonicSeconds() + 10
        while deadAt == nil && clock.monotonicSeconds() < giveUp {
            for tr in monitor.poll() where tr.to == .dead { deadAt = tr.atMonotonicTime }
            usleep(UInt32(pollInterval * 1e6))
        }
        let bound: Double
        switch detector {
        case .fixed(let threshold): bound = threshold + interval + pollInterval + 0.05
        case .phiAccrual: bound = 1.0  // phi 8 at sd ≥ 0.05 s is well under a second of silence
        }
        #expect(deadAt != nil, "never declared dead")
        if let deadAt { #expect(deadAt - killedAt <= bound, "declared dead \(deadAt - killedAt) s after the kill; bound \(bound) s") }
    }

    @Test func healthyWriterRaisesNoFalseAlarmOverTenSeconds() throws {
        let t = try TestRoot()
        let w = try t.helper(["heartbeat", "--root", t.path, "--writer", "monitor-extension", "--interval", "0.1"])
        defer { w.killAndReap() }
        #expect(w.readLine(timeout: .seconds(10)) == "ready")
        let clock = DeviceClock(deviceRoot: t.root)
        let fixed = try HeartbeatMonitor(container: t.container(), detector: .fixed(thresholdSeconds: 1), clock: clock)
        let phi = try HeartbeatMonitor(container: t.container(), detector: .phiAccrual(threshold: 8, lateThreshold: 3, minStdDevSeconds: 0.05, window: 100), clock: clock)
        var alarms: [HeartbeatTransition] = []
        var observedBeats = 0
        let end = clock.nowUnixSeconds() + 10
        while clock.nowUnixSeconds() < end {
            for tr in fixed.poll() + phi.poll() {
                if tr.to == .dead || tr.to == .restarted { alarms.append(tr) }
                if tr.to == .alive { observedBeats += 1 }
            }
            usleep(50_000)
        }
        #expect(alarms.isEmpty, "false alarms: \(alarms)")
        #expect(fixed.status(of: "monitor-extension") == .alive && phi.status(of: "monitor-extension") == .alive)
        #expect(w.poll() == nil)
    }

    @Test func restartOfTheWriterIsReported() throws {
        let t = try TestRoot()
        let clock = DeviceClock(deviceRoot: t.root)
        let monitor = try HeartbeatMonitor(container: t.container(), detector: .fixed(thresholdSeconds: 1), clock: clock)
        let w1 = try t.helper(["heartbeat", "--root", t.path, "--writer", "w", "--interval", "0.05"])
        #expect(w1.readLine(timeout: .seconds(10)) == "ready")
        #expect(monitor.poll().map(\.to) == [.alive])
        w1.killAndReap()
        let w2 = try t.helper(["heartbeat", "--root", t.path, "--writer", "w", "--interval", "0.05"])
        defer { w2.killAndReap() }
        #expect(w2.readLine(timeout: .seconds(10)) == "ready")
        #expect(monitor.poll().map(\.to) == [.restarted, .alive])
    }
}

@Suite(.timeLimit(.minutes(3))) struct DeviceClockTests {
    @Test func realTimeWithoutAClockFile() throws {
        let t = try TestRoot()
        let c = DeviceClock(deviceRoot: t.root)
        #expect(abs(c.nowUnixSeconds() - Date().timeIntervalSince1970) < 0.5)
        #expect(c.rate == 1)
    }

    @Test func virtualTimeRunsAtTheRateForEveryReader() throws {
        let t = try TestRoot()
        let epoch = 1_771_300_000.0
        try DeviceClock.write(.init(epochUnixSeconds: epoch, rate: 600, timeZone: "Europe/Berlin"), to: t.root)
        let a = DeviceClock(deviceRoot: t.root), b = DeviceClock(deviceRoot: t.root)
        let t0 = a.nowUnixSeconds()
        usleep(100_000)
        let t1 = b.nowUnixSeconds()
        #expect(t0 >= epoch && t0 < epoch + 30)
        #expect(t1 - t0 >= 55 && t1 - t0 < 200)  // 0.1 s real ≈ 60 s virtual
        #expect(a.timeZone.identifier == "Europe/Berlin")
        // Moving the clock (offset) is seen at once; sleeping in virtual time is short in real time.
        var cfg = try #require(a.configuration())
        cfg.offsetSeconds = 3600
        try DeviceClock.write(cfg, to: t.root)
        #expect(b.nowUnixSeconds() - t1 >= 3600)
        // Device monotonic time follows the rate and ignores the jump.
        let m0 = a.monotonicSeconds()
        usleep(100_000)
        let m1 = b.monotonicSeconds()
        #expect(m1 - m0 >= 55 && m1 - m0 < 200, "monotonic advanced \(m1 - m0) s in 0.1 s real at rate 600")
        cfg.offsetSeconds = 7200
        try DeviceClock.write(cfg, to: t.root)
        #expect(b.monotonicSeconds() - m1 < 200)
        let r0 = ContinuousClock.now
        // 5 virtual minutes; given up after 10 s so that a clock ignoring its rate fails, not hangs.
        let woke = b.sleep(untilUnixSeconds: b.nowUnixSeconds() + 300, cancelled: { ContinuousClock.now - r0 > .seconds(10) })
        #expect(woke && ContinuousClock.now - r0 < .seconds(2))
    }

    /// A sleeper re-reads the clock at least every 50 ms (PROTOCOL.md §2): when the harness jumps
    /// the clock past its deadline, it wakes at once instead of sleeping out the old distance.
    @Test func clockJumpWakesASleeper() throws {
        let t = try TestRoot()
        try DeviceClock.write(.init(epochUnixSeconds: 1_771_300_000, rate: 1), to: t.root)
        let clock = DeviceClock(deviceRoot: t.root)
        let deadline = clock.nowUnixSeconds() + 3600  // an hour of real time at rate 1
        let woke = DispatchSemaphore(value: 0)
        let cancelled = Box<Bool>()
        Thread {
            clock.sleep(untilUnixSeconds: deadline, cancelled: { cancelled.count > 0 })
            woke.signal()
        }.start()
        usleep(100_000)
        var cfg = try #require(clock.configuration())
        cfg.offsetSeconds = 3600
        try DeviceClock.write(cfg, to: t.root)
        let result = woke.wait(timeout: .now() + .seconds(10))
        cancelled.append(true)
        #expect(result == .success, "the sleeper did not notice the jump within 10 s")
    }

    @Test func malformedClockFileFallsBackToRealTime() throws {
        let t = try TestRoot()
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: t.path + "/clock"))
        let c = DeviceClock(deviceRoot: t.root)
        #expect(abs(c.nowUnixSeconds() - Date().timeIntervalSince1970) < 0.5)
        #expect(throws: AppGroupError.self) { try DeviceClock.write(.init(epochUnixSeconds: 0, rate: 0), to: t.root) }
    }
}
