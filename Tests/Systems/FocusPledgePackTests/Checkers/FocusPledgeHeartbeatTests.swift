@testable import FocusPledgePack
import HarnessKit
import History
import Testing

/// Seed 000's stale-session job judged as a heartbeat monitor, on histories shaped as
/// the server writes them: beats are its `heartbeat` lines, a decision its `stale-expired` line.
@Suite(.timeLimit(.minutes(1))) struct FocusPledgeHeartbeatTests {
    /// The server's lines about session `sid`.
    static func server(_ h: inout HistoryBuilder, _ event: String, _ sid: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        h.line("settlement-server", pid: 900, event, ["sessionId": sid].merging(fields) { a, _ in a })
    }

    static func created(_ h: inout HistoryBuilder, _ sid: String) {
        let now = h.line("harness", pid: 1, "quiesce")  // device time now
        _ = server(&h, "created", sid, ["createdAtUnixMillis": String(Int64(now.t * 1000)), "origin": "plan"])
    }

    static func beats(_ h: inout HistoryBuilder, _ sid: String, minutes: Double) {
        for _ in 0..<Int(minutes * 60 / 5) {
            h.wait(deviceMinutes: 5.0 / 60)
            _ = server(&h, "heartbeat", sid, ["sessionStatus": "ACTIVE"])
        }
    }

    static func staleExpired(_ h: inout HistoryBuilder, _ sid: String) {
        _ = server(&h, "stale-expired", sid, ["origin": "staleJob", "reason": "no_heartbeat", "resolution": "FAILURE"])
    }

    @Test func theStaleJobOnASuspendedHostIsAFalseAlarmAndOnAKilledOneATrueAlarm() throws {
        var h = HistoryBuilder()
        var host = h.spawnHost()
        // s-1: the user leaves; iOS suspends the host; 16 minutes later the job settles it.
        Self.created(&h, "s-1")
        Self.beats(&h, "s-1", minutes: 2)
        h.harness("signal", ["target": "host-app", "childPid": String(host), "signal": "STOP", "by": "ios"])
        h.wait(deviceMinutes: 16)
        Self.staleExpired(&h, "s-1")
        h.harness("signal", ["target": "host-app", "childPid": String(host), "signal": "CONT", "by": "ios"])
        // s-2: the host is killed and not reopened; the job settles it: a true alarm.
        Self.created(&h, "s-2")
        Self.beats(&h, "s-2", minutes: 2)
        h.killHost(host)
        h.wait(deviceMinutes: 16)
        Self.staleExpired(&h, "s-2")
        host = h.spawnHost()
        let verdict = try #require(HeartbeatJudge.verdicts(FocusPledgePack().descriptor, h.finish()).first)
        #expect(verdict.monitor == "stale-session-job" && verdict.thresholdSeconds == 900)
        #expect((verdict.decisions, verdict.trueAlarms, verdict.falseAlarms) == (2, 1, 1))
        #expect(verdict.falseAlarmStates == ["suspended-by-ios": 1])
        #expect((verdict.deaths, verdict.detected, verdict.missed) == (1, 1, 0))
        let latency = try #require(verdict.detectionLatencyP50Seconds)
        #expect(latency > 15 * 60 && latency < 17 * 60)
        #expect(verdict.findings.first?.subject == "s-1")
    }
}
