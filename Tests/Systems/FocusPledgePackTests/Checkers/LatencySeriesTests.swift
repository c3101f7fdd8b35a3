import Foundation
@testable import FocusPledgePack
import HarnessKit
import History
import Testing

@Suite("FocusPledgeChecker: the violation-to-host latency series", .timeLimit(.minutes(1)))
struct LatencySeriesTests {
    @Test func nearestRankOverKnownSamples() throws {
        let stats = LatencySeries(name: "x", what: "", samplesNanos: (1...100).reversed().map { Int64($0) * 1000 })
        #expect(stats.count == 100)
        #expect(stats.p50Micros == 50)
        #expect(stats.p99Micros == 99)
        let three = LatencySeries(name: "x", what: "", samplesNanos: [3000, 1000, 2000])
        #expect(three.p50Micros == 2)
        #expect(three.p99Micros == 3)
        #expect(LatencySeries(name: "x", what: "", samplesNanos: []).p50Micros == nil)
    }

    @Test func measuredFromFailureRecordedToFailureSeenBySameHost() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        for (i, micros) in [400, 120, 900].enumerated() {
            let sid = "s\(i)"
            b.startSession(sid, host: host, minutes: 30)
            b.violation(sid)
            b.hostSeesFailure(sid, host: host, afterMicroseconds: Int64(micros))
            b.hostSettles(sid, "FAILURE", host: host)
        }
        let latency = try #require(FocusPledgeChecker.check(b.finish()).latency("violation-to-host"))
        #expect(latency.count == 3)
        #expect(latency.buckets == [[120, 1], [400, 1], [900, 1]])
        #expect(latency.p50Micros == 400)
        #expect(latency.p99Micros == 900)
    }

    /// hardened writes its failure as one record (H5): that write is the violation's record too.
    @Test func hardenedFailureRecordIsMeasuredLikeTheSeedsFlag() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1", write: .record)
        b.hostSeesFailure("s1", host: host, afterMicroseconds: 250)
        b.hostSettles("s1", "FAILURE", host: host)
        let latency = try #require(FocusPledgeChecker.check(b.finish()).latency("violation-to-host"))
        #expect(latency.buckets == [[250, 1]])
    }

    /// The series is read from what the extension wrote to the App Group (`defaults_set`), not
    /// from a trace line a stand-in writes about itself (as-written runs the seed's Swift, which
    /// writes none): a `failure_recorded` alone, or a write that removes the record, is no sample.
    @Test func onlyAnAppGroupWriteOfTheFailureCounts() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        let pid = b.newPid()
        b.harness("callback_delivered", [
            "callback": "shieldAction", "delivery": "d9", "sid": "s1", "activity": "focuspledge_s1", "app": "com.example.game", "childPid": String(pid),
        ])
        b.line("shield-action-extension", pid: pid, "failure_recorded", ["sessionId": "s1", "reason": "app_opened"])
        b.line("shield-action-extension", pid: pid, "defaults_set", [
            "suite": "group.com.focuspledge.shared", "keys": "focuspledge_failure", "v.focuspledge_failure": "<removed>",
        ])
        b.line("shield-action-extension", pid: pid, "defaults_set", [
            "suite": "group.com.focuspledge.shared", "keys": "focuspledge_session_failed", "v.focuspledge_session_failed": "false",
        ])
        b.harness("callback_completed", ["callback": "shieldAction", "delivery": "d9", "childPid": String(pid)])
        b.line("host-app", pid: host, "failure_seen", ["sessionId": "s1", "reason": "app_opened"])
        b.hostSettles("s1", "FAILURE", host: host)
        let latency = try #require(FocusPledgeChecker.check(b.finish()).latency("violation-to-host"))
        #expect(latency.count == 0)
        #expect(latency.excluded("unseen") == 0)
    }

    @Test func secondViolationOfASessionIsNotASample() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        b.hostSeesFailure("s1", host: host, afterMicroseconds: 300)
        b.violation("s1")
        b.hostSettles("s1", "FAILURE", host: host)
        let latency = try #require(FocusPledgeChecker.check(b.finish()).latency("violation-to-host"))
        #expect(latency.buckets == [[300, 1]])
        #expect(latency.excluded("unseen") == 0)
    }

    @Test func hostThatDiesBeforeSeeingItIsUnseenNotASample() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        b.killHost(host)
        let relaunched = b.spawnHost()
        b.hostSeesFailure("s1", host: relaunched, afterMicroseconds: 5000)
        b.hostSettles("s1", "FAILURE", host: relaunched)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.latency("violation-to-host")?.count == 0)
        #expect(report.latency("violation-to-host")?.excluded("unseen") == 1)
        #expect(report.passed, "\(report.humanSummary())")
    }

    @Test func suspendedHostIsLeftOut() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        b.signalHost(host, "STOP")
        b.wait(microseconds: 50_000)
        b.signalHost(host, "CONT")
        b.line("host-app", pid: host, "failure_seen", ["sessionId": "s1", "reason": "app_opened"])
        b.hostSettles("s1", "FAILURE", host: host)
        let latency = try #require(FocusPledgeChecker.check(b.finish()).latency("violation-to-host"))
        #expect(latency.count == 0)
        #expect(latency.excluded("suspended") == 1)
    }

    /// Found in a real run (seed 7): the host was stopped *before* the failure was recorded and
    /// resumed 97 ms later; that sample measures the nemesis, not the protocol.
    @Test func hostAlreadyStoppedWhenTheFailureIsRecordedIsLeftOut() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.signalHost(host, "STOP")
        b.wait(microseconds: 10_000)
        b.violation("s1")
        b.wait(microseconds: 90_000)
        b.signalHost(host, "CONT")
        b.line("host-app", pid: host, "failure_seen", ["sessionId": "s1", "reason": "app_opened"])
        b.hostSettles("s1", "FAILURE", host: host)
        let latency = try #require(FocusPledgeChecker.check(b.finish()).latency("violation-to-host"))
        #expect(latency.count == 0)
        #expect(latency.excluded("suspended") == 1)
    }

    @Test func runsPoolBySeriesNameAndKeepTheirExclusions() {
        let a = LatencySeries(name: "a", what: "first", samplesNanos: [1000, 2000], excluded: ["unseen": 1])
        let b = LatencySeries(name: "b", what: "second", samplesNanos: [5000])
        let a2 = LatencySeries(name: "a", what: "first", samplesNanos: [3000], excluded: ["unseen": 2, "suspended": 1])
        let pooled = LatencySeries.merged([[a, b], [a2]])
        #expect(pooled.map(\.name) == ["a", "b"])
        #expect(pooled[0].count == 3)
        #expect(pooled[0].p99Micros == 3)
        #expect(pooled[0].excluded == ["unseen": 3, "suspended": 1])
        #expect(pooled[1].count == 1)
        #expect(pooled[0].summaryLine == "a: n=3 p50=2.0 µs p99=3.0 µs (suspended 1, unseen 3)")
    }

    @Test func aReportNamesItsSchemaVersionAndItsSeriesInJSON() throws {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        b.hostSeesFailure("s1", host: host, afterMicroseconds: 250)
        b.hostSettles("s1", "FAILURE", host: host)
        let report = FocusPledgeChecker.check(b.finish())
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        #expect(json["schemaVersion"] as? Int == CheckReport.currentSchemaVersion)
        let series = try #require(json["latencies"] as? [[String: Any]])
        #expect(series.map { $0["name"] as? String } == ["violation-to-host"])
        #expect(try JSONDecoder().decode(CheckReport.self, from: JSONEncoder().encode(report)) == report)
    }
}
