@testable import FocusPledgePack
import HarnessKit
import History
import Testing

@Suite("FocusPledgeChecker: detection latency", .timeLimit(.minutes(1)))
struct DetectionLatencyTests {
    @Test func nearestRankOverKnownSamples() {
        let stats = DetectionLatency(samplesNanos: (1...100).reversed().map { Int64($0) * 1000 })
        #expect(stats.count == 100)
        #expect(stats.p50Micros == 50)
        #expect(stats.p99Micros == 99)
        let three = DetectionLatency(samplesNanos: [3000, 1000, 2000])
        #expect(three.p50Micros == 2)
        #expect(three.p99Micros == 3)
        #expect(DetectionLatency(samplesNanos: []).p50Micros == nil)
    }

    @Test func measuredFromFailureRecordedToFailureSeenBySameHost() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        for (i, micros) in [400, 120, 900].enumerated() {
            let sid = "s\(i)"
            b.startSession(sid, host: host, minutes: 30)
            b.violation(sid)
            b.hostSeesFailure(sid, host: host, afterMicroseconds: Int64(micros))
            b.hostSettles(sid, "FAILURE", host: host)
        }
        let latency = FocusPledgeChecker.check(b.finish()).detectionLatency
        #expect(latency.count == 3)
        #expect(latency.buckets == [[120, 1], [400, 1], [900, 1]])
        #expect(latency.p50Micros == 400)
        #expect(latency.p99Micros == 900)
    }

    @Test func secondViolationOfASessionIsNotASample() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        b.hostSeesFailure("s1", host: host, afterMicroseconds: 300)
        b.violation("s1")
        b.hostSettles("s1", "FAILURE", host: host)
        let latency = FocusPledgeChecker.check(b.finish()).detectionLatency
        #expect(latency.buckets == [[300, 1]])
        #expect(latency.unseenCount == 0)
    }

    @Test func hostThatDiesBeforeSeeingItIsUnseenNotASample() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        b.killHost(host)
        let relaunched = b.spawnHost()
        b.hostSeesFailure("s1", host: relaunched, afterMicroseconds: 5000)
        b.hostSettles("s1", "FAILURE", host: relaunched)
        let report = FocusPledgeChecker.check(b.finish())
        #expect(report.detectionLatency.count == 0)
        #expect(report.detectionLatency.unseenCount == 1)
        #expect(report.passed, "\(report.humanSummary())")
    }

    @Test func suspendedHostIsLeftOut() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host, minutes: 30)
        b.violation("s1")
        b.signalHost(host, "STOP")
        b.wait(microseconds: 50_000)
        b.signalHost(host, "CONT")
        b.line("host-app", pid: host, "failure_seen", ["sessionId": "s1", "reason": "app_opened"])
        b.hostSettles("s1", "FAILURE", host: host)
        let latency = FocusPledgeChecker.check(b.finish()).detectionLatency
        #expect(latency.count == 0)
        #expect(latency.suspendedCount == 1)
    }

    /// Found in a real run (seed 7): the host was stopped *before* the failure was recorded and
    /// resumed 97 ms later; that sample measures the nemesis, not the protocol.
    @Test func hostAlreadyStoppedWhenTheFailureIsRecordedIsLeftOut() {
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
        let latency = FocusPledgeChecker.check(b.finish()).detectionLatency
        #expect(latency.count == 0)
        #expect(latency.suspendedCount == 1)
    }
}
