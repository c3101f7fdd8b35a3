import Foundation
import HarnessKit
import Testing

/// `bench time`'s launch figures: from the harness's `spawn` line to the child's first history
/// line, per role, read from a history alone.
@Suite(.timeLimit(.minutes(1))) struct LaunchLatencyTests {
    static func line(_ mono: Int64, pid: Int, _ event: String, _ extra: [String: String] = [:]) -> Data {
        var o: [String: Any] = ["mono": mono, "t": 0.0, "pid": pid, "event": event, "process": "p"]
        for (k, v) in extra { o[k] = v }
        return try! JSONSerialization.data(withJSONObject: o)
    }

    @Test func eachSpawnIsTimedToItsChildsFirstLineNotItsLaterOnes() {
        let h = [
            Self.line(1_000_000, pid: 1, "spawn", ["childPid": "10", "target": "host-app"]),
            Self.line(1_500_000, pid: 1, "spawn", ["childPid": "11", "target": "server"]),
            Self.line(4_000_000, pid: 10, "launched"),
            Self.line(9_000_000, pid: 10, "heartbeat"),
            Self.line(21_500_000, pid: 11, "started"),
            Self.line(30_000_000, pid: 1, "spawn", ["childPid": "12", "target": "host-app"]),
            Self.line(36_000_000, pid: 12, "launched"),
        ]
        let s = LaunchLatency.summary(lines: h)
        #expect(s.roles.map(\.role) == ["host-app", "server"])
        #expect(s.roles[0].stats.count == 2)
        #expect(s.roles[0].stats.p50Nanos == 3_000_000)
        #expect(s.roles[0].stats.maxNanos == 6_000_000)
        #expect(s.roles[1].stats.p50Nanos == 20_000_000)
        #expect(s.all?.count == 3)
        #expect(s.all?.maxNanos == 20_000_000)
    }

    /// The harness writes its spawn line after the spawn returns, so a quick child's first line
    /// can come first in the history: that launch took no longer than the line's delay (0).
    @Test func aChildWhoseFirstLineCameBeforeTheSpawnLineCountsAsZero() {
        let h = [
            Self.line(2_000_000, pid: 20, "launched"),
            Self.line(2_300_000, pid: 1, "spawn", ["childPid": "20", "target": "host-app"]),
            Self.line(5_000_000, pid: 20, "heartbeat"),
        ]
        let s = LaunchLatency.summary(lines: h)
        #expect(s.roles.first?.stats.count == 1)
        #expect(s.roles.first?.stats.maxNanos == 0)
    }

    /// A spawn line that says when the spawn began (`spawnMono`: on one CPU the spawn returns only
    /// after the child's start-up) is timed from then, its child's first line before it or after.
    @Test func aSpawnIsTimedFromWhenItBegan() {
        let h = [
            Self.line(1_000_000, pid: 1, "spawn", ["childPid": "40", "target": "host-app", "spawnMono": "500000"]),
            Self.line(3_000_000, pid: 40, "launched"),
            Self.line(7_000_000, pid: 41, "started"),
            Self.line(7_200_000, pid: 1, "spawn", ["childPid": "41", "target": "server", "spawnMono": "4000000"]),
        ]
        let s = LaunchLatency.summary(lines: h)
        #expect(s.roles.map(\.role) == ["host-app", "server"])
        #expect(s.roles[0].stats.maxNanos == 2_500_000, "from 0.5 ms, not from the line at 1 ms")
        #expect(s.roles[1].stats.maxNanos == 3_000_000, "a first line before the spawn line: from when the spawn began, not 0")
    }

    /// A child killed before its first line is counted as silent, not timed; a reused pid is timed
    /// from its own spawn line; a partial last line (a killed harness) is skipped.
    @Test func silentChildrenAndReusedPidsAndCutLines() {
        let h = [
            Self.line(1_000_000, pid: 1, "spawn", ["childPid": "30", "target": "server"]),
            Self.line(2_000_000, pid: 30, "started"),
            Self.line(3_000_000, pid: 30, "exit"),
            Self.line(50_000_000, pid: 1, "spawn", ["childPid": "30", "target": "server"]),
            Self.line(57_000_000, pid: 30, "started"),
            Self.line(60_000_000, pid: 1, "spawn", ["childPid": "31", "target": "server"]),
            Data("{\"mono\": 61000000, \"pid\": 31, \"ev".utf8),
        ]
        let s = LaunchLatency.summary(lines: h)
        #expect(s.roles.count == 1)
        #expect(s.roles[0].stats.count == 2)
        #expect(s.roles[0].stats.p50Nanos == 1_000_000)
        #expect(s.roles[0].stats.maxNanos == 7_000_000)
        #expect(s.roles[0].silent == 1)
    }

    @Test func aHistoryWithoutSpawnsHasNoFigures() {
        let s = LaunchLatency.summary(lines: [Self.line(1, pid: 1, "run_started")])
        #expect(s.roles.isEmpty)
        #expect(s.all == nil)
    }
}
