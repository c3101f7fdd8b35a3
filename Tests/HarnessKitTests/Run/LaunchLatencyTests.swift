import Foundation
import HarnessKit
import History
import Supervision
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

/// `bench explore`'s fork-server bound: the launches a run made, by executable, from its history;
/// each executable's start-up measured by starting it.
@Suite(.timeLimit(.minutes(1))) struct ForkServerBoundTests {
    static let roles = [
        ProcessRole(name: "host-app", lifetime: .app, executable: "sth-app", arguments: ["host-app"], summary: "the app"),
        ProcessRole(name: "server", lifetime: .server, executable: "/opt/x/sth-server", summary: "a server"),
        ProcessRole(name: "monitor", lifetime: .extension(.deviceActivityMonitor), executable: "sth-app", summary: "the monitor"),
        ProcessRole(name: "shield", lifetime: .extension(.shieldConfiguration), executable: "sth-app", summary: "the shield"),
    ]

    static func line(_ mono: Int64, _ event: String, _ fields: [String: String]) -> HistoryEvent {
        HistoryEvent(mono: mono, t: 0, process: HistoryEvent.harnessProcessName, pid: 1, event: event, fields: fields)
    }

    @Test func launchesAreSpawnsAndTheExtensionCallsThatStartedAProcess() {
        let h = [
            Self.line(1, "spawn", ["target": "host-app", "childPid": "10"]),
            Self.line(2, "spawn", ["target": "server", "childPid": "11"]),
            Self.line(3, "callback_delivered", ["callback": "intervalDidStart", "childPid": "12", "delivery": "1"]),
            // Killed at launch: no process started.
            Self.line(4, "callback_delivered", ["callback": "shieldConfiguration", "childPid": "-", "delivery": "2"]),
            // Held by a stop at launch, started later.
            Self.line(5, "callback_started", ["callback": "shieldConfiguration", "childPid": "13", "delivery": "3"]),
            Self.line(6, "spawn", ["target": "server", "childPid": "14"]),
            HistoryEvent(mono: 7, t: 0, process: "host-app", pid: 10, event: "spawn", fields: ["target": "server", "childPid": "9"]),
        ]
        #expect(ForkServerBound.launches(in: h, roles: Self.roles) == ["sth-app": 3, "sth-server": 2])
    }

    @Test func theBoundIsEachLaunchsStartUpLessAFork() throws {
        let harness = try Executables.path(of: "harness")
        let roles = [ProcessRole(name: "host-app", lifetime: .app, executable: harness, summary: "the harness as an app")]
        let b = try #require(ForkServerBound.measure(launches: ["harness": 4], roles: roles, binDirectory: "/nowhere", samples: 3))
        let millis = try #require(b.startupMillis["harness"])
        #expect(millis >= 0 && b.forkMillis >= 0)
        #expect(abs(b.savedCPUSecondsPerRun - 4 * millis / 1000) < 1e-9)
        // An executable that does not exit 0 with --help gives no bound.
        let falseRole = [ProcessRole(name: "host-app", lifetime: .app, executable: "/bin/false", summary: "no parser")]
        #expect(ForkServerBound.measure(launches: ["false": 1], roles: falseRole, binDirectory: "/", samples: 1) == nil)
    }
}

/// A benchmark's ratio measured round by round: median, range and spread (interquartile range over
/// the median), and whether it is steady enough to be compared.
@Suite(.timeLimit(.minutes(1))) struct RatioSpreadTests {
    @Test func theSpreadIsTheInterquartileRangeOverTheMedian() {
        let r = RatioSpread([1.30, 1.20, 1.25, 1.40, 1.35, 1.28, 1.32, 1.27, 1.29, 1.31])
        #expect(r.median == (1.29 + 1.30) / 2 && r.min == 1.20 && r.max == 1.40)
        // Sorted: 1.20 1.25 1.27 1.28 1.29 1.30 1.31 1.32 1.35 1.40 -> q1 = 3rd (1.27), q3 = 8th (1.32).
        #expect(abs(r.spread - (1.32 - 1.27) / 1.295) < 1e-12)
        #expect(r.trusted)
        #expect(r.text.contains("(rounds 1.20-1.40, spread 3.9 %)"))
    }

    /// One slow round moves the range, not the spread; rounds that disagree throughout are not trusted.
    @Test func oneOutlierRoundIsToleratedADisagreementIsNot() {
        let outlier = RatioSpread([1.30, 1.31, 1.29, 1.30, 2.66, 1.30, 1.31, 1.29, 1.30, 1.30])
        #expect(outlier.trusted && outlier.max == 2.66)
        let noisy = RatioSpread([1.67, 1.47, 2.66, 1.50, 1.90, 1.40, 2.20, 1.60, 1.45, 2.00])
        #expect(!noisy.trusted)
        #expect(noisy.text.hasSuffix(": too wide to trust)"))
        #expect(RatioSpread([1.0]).spread == 0)
    }
}
