import HarnessKit
import History
import Testing

/// Recorded beats replayed offline through the core's detectors, each decision judged against
/// the writer's real state (`harness heartbeats`).
@Suite(.timeLimit(.minutes(1))) struct HeartbeatReplayTests {
    typealias H = HeartbeatJudgeTests.History

    @Test func aFixedThresholdDecidesOncePerSilenceAtTheLastBeatPlusTheThreshold() {
        let alarms = HeartbeatReplay.alarms(beats: [0, 10, 20, 80, 90], until: 100, detector: .fixed(thresholdSeconds: 30), declaredIntervalSeconds: 10)
        #expect(alarms.count == 1)
        #expect(abs(alarms[0] - 50) < 0.01)
        // The silence after the last beat counts up to the end of the watch.
        let tail = HeartbeatReplay.alarms(beats: [0, 10], until: 100, detector: .fixed(thresholdSeconds: 30), declaredIntervalSeconds: 10)
        #expect(tail.count == 1 && abs(tail[0] - 40) < 0.01)
        #expect(HeartbeatReplay.alarms(beats: [0, 10, 20], until: 45, detector: .fixed(thresholdSeconds: 30), declaredIntervalSeconds: 10).isEmpty)
    }

    @Test func phiAccrualDecidesSoonerOnARegularWriterAndLaterAtAHigherThreshold() throws {
        let beats = Array(stride(from: 0.0, through: 100, by: 5)).enumerated().map { $0.element + ($0.offset % 2 == 0 ? 0 : 0.5) }
        let low = try #require(HeartbeatReplay.alarms(beats: beats, until: 400, detector: .phiAccrual(threshold: 2), declaredIntervalSeconds: 5).first)
        let high = try #require(HeartbeatReplay.alarms(beats: beats, until: 400, detector: .phiAccrual(threshold: 12), declaredIntervalSeconds: 5).first)
        #expect(low > 100 && low < high && high < 130)
    }

    /// A writer suspended for 68 s, then killed: the 30 s rule misfires on the suspension and
    /// detects the death 28 s late; 120 s is quiet and slower.
    @Test func theTableCountsFalseAlarmsPerDeviceHourAndDetectionLatencyPerSetting() throws {
        var h = H.started()
        h.beats(stride(from: 0, to: 51, by: 5))
        h.harness(52, "signal", ["target": "app", "childPid": "5", "signal": "STOP", "by": "ios"])
        h.harness(120, "signal", ["target": "app", "childPid": "5", "signal": "CONT", "by": "ios"])
        h.beats(stride(from: 120, to: 301, by: 5))
        h.harness(302, "signal", ["target": "app", "childPid": "5", "signal": "KILL", "by": "nemesis"])
        h.harness(302, "exit", ["target": "app", "childPid": "5", "status": "signal 9"])
        let events = h.finished(at: 7_200)
        let input = HeartbeatReplay.RunInput(events: events, monitor: HeartbeatJudgeTests.monitor, writer: HeartbeatJudgeTests.writer, lifetime: .app)
        let settings = HeartbeatReplay.settings(seedThreshold: 30, fixed: [120], phi: [8])
        #expect(settings.map(\.name) == ["seed's rule (fixed 30 s)", "fixed 120 s", "phi 8"])
        let table = HeartbeatReplay.table(system: "test", [input], settings: settings, maxFalseAlarmsPerDay: 0)
        let seed = table.rows[0]
        #expect((seed.alarms, seed.falseAlarms, seed.deaths, seed.detected) == (2, 1, 1, 1))
        #expect(seed.falseAlarmStates == ["suspended-by-ios": 1])
        #expect(abs(seed.falseAlarmsPerDeviceHour - 0.5) < 1e-9)
        #expect(abs((seed.latencyP99Seconds ?? 0) - 28) < 0.01)
        let slow = table.rows[1]
        #expect((slow.falseAlarms, slow.detected) == (0, 1))
        #expect(abs((slow.latencyP50Seconds ?? 0) - 118) < 0.01)
        let phi = table.rows[2]
        #expect(phi.falseAlarms == 1 && phi.detected == 1 && (phi.latencyP99Seconds ?? 999) < 118)
        // No false alarm a day: only the 120 s rule meets it.
        #expect(table.meetsTarget == "fixed 120 s")
        let text = HeartbeatReplay.render(table)
        #expect(text.contains("at most 0 false alarm(s) per device day: fixed 120 s"))
        #expect(text.contains("suspended-by-ios 1"))
    }

    /// A target past Int's range (`--max-false-alarms-per-day 1e19`) is printed, never converted
    /// with `Int(_:)`, which trapped ("Illegal instruction").
    @Test func aHugeTargetIsPrintedNotTrapped() throws {
        let input = HeartbeatReplay.RunInput(events: H.started().finished(at: 3_600), monitor: HeartbeatJudgeTests.monitor, writer: HeartbeatJudgeTests.writer, lifetime: .app)
        let table = HeartbeatReplay.table(system: "test", [input], settings: HeartbeatReplay.settings(seedThreshold: 30, fixed: [], phi: []), maxFalseAlarmsPerDay: 1e19)
        #expect(HeartbeatReplay.render(table).contains("at most 10000000000000000000 false alarm(s) per device day"))
    }
}
