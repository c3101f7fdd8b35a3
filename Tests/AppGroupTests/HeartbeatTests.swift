import AppGroup
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct HeartbeatClassifierTests {
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
}

@Suite struct HeartbeatProcessTests {
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

@Suite struct DeviceClockTests {
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
        let r0 = ContinuousClock.now
        b.sleep(untilUnixSeconds: b.nowUnixSeconds() + 300)  // 5 virtual minutes
        #expect(ContinuousClock.now - r0 < .seconds(2))
    }

    @Test func malformedClockFileFallsBackToRealTime() throws {
        let t = try TestRoot()
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: t.path + "/clock"))
        let c = DeviceClock(deviceRoot: t.root)
        #expect(abs(c.nowUnixSeconds() - Date().timeIntervalSince1970) < 0.5)
        #expect(throws: AppGroupError.self) { try DeviceClock.write(.init(epochUnixSeconds: 0, rate: 0), to: t.root) }
    }
}
