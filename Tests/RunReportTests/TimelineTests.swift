import Foundation
import History
@testable import RunReport
import Testing

@Suite(.timeLimit(.minutes(1))) struct TimelineTests {
    func timeline() throws -> Timeline {
        Timeline(try RunRecord(name: "demo-run", history: RunReportFixture.history, report: RunReportFixture.report))
    }

    /// Lanes come from `process`; what the harness does to a process (its `target`) and its calls
    /// into an extension (`childPid` of a spawn) go on that process's lane; the harness first.
    @Test func oneLanePerProcessWithTheHarnessFirst() throws {
        let tl = try timeline()
        #expect(tl.lanes.map(\.name) == ["harness", "host-app", "server", "monitor-extension", "shield-extension"])
        let ext = try #require(tl.lanes.first { $0.name == "monitor-extension" })
        // A held call names no pid: it goes where its callback ran.
        #expect(ext.markers.map(\.event).sorted() == ["callback_begin", "callback_delivered", "callback_held", "exit", "spawn"])
        // An extension with no spawn line: its pid (the call's childPid) names its lane, and the
        // call from delivered to completed is its lifetime.
        let shield = try #require(tl.lanes.first { $0.name == "shield-extension" })
        #expect(shield.markers.map(\.event) == ["callback_delivered", "callback_begin", "callback_completed"])
        #expect(shield.spans.map { ($0.kind, $0.to - $0.from) } .elementsEqual([(Timeline.Span.Kind.alive, 5.0)]) { $0 == $1 })
        // A dropped call of a callback that never ran names no process: it stays with the harness (iOS).
        #expect(tl.lanes[0].markers.contains { $0.event == "callback_dropped" && $0.family == .callbackLost })
    }

    @Test func lifetimesShowAliveAndSuspendedByIOS() throws {
        let host = try #require(try timeline().lanes.first { $0.name == "host-app" })
        let alive = host.spans.filter { $0.kind == .alive }
        #expect(alive.count == 1)
        #expect(alive.first.map { ($0.from, $0.to) } ?? (0, 0) == (RunReportFixture.t0, RunReportFixture.t0 + 900))
        let suspended = host.spans.filter { $0.kind == .suspended }
        #expect(suspended.map { $0.to - $0.from } == [60])
        #expect(host.spans.allSatisfy { $0.kind != .stopped })
    }

    /// 400 heartbeats on one lane are drawn as bins, their counts adding up; the one a violation
    /// cites stays a marker of its own, marked as cited.
    @Test func denseSeriesAreBinnedExceptCitedLines() throws {
        let tl = try timeline()
        let server = try #require(tl.lanes.first { $0.name == "server" })
        #expect(server.binnedLines == 399)
        #expect(server.bins.reduce(0) { $0 + $1.count } == 399)
        #expect(server.bins.count <= Timeline.binsPerSeries)
        #expect(server.markers.map(\.event) == ["spawn", "heartbeat"])
        #expect(server.markers.last?.violations == [1])
        // Sparse series are never binned.
        #expect(tl.lanes.first { $0.name == "host-app" }?.binnedLines == 0)
    }

    @Test func violationsCiteTheirHistoryLineNumbers() throws {
        let tl = try timeline()
        let v = try #require(tl.violations.first)
        #expect(v.invariant == "host-survives")
        let lines = String(decoding: RunReportFixture.history, as: UTF8.self).split(separator: "\n").map(String.init)
        for c in v.cited {
            let n = try #require(c.line)
            #expect(lines[n - 1] == c.text, "history.jsonl:\(n) is the line report.json cites")
        }
        #expect(v.to == RunReportFixture.t0 + 900)
    }

    @Test func eventFamiliesAreGeneric() {
        #expect(EventFamily.of("callback_duplicated") == .callbackDuplicated)
        #expect(EventFamily.of("callback_whatever") == .callbackOther)
        #expect(EventFamily.of("notification_posted") == .notification)
        #expect(EventFamily.of("shield_shown") == .shield)
        #expect(EventFamily.of("session_settled") == .other)
        #expect(EventFamily.of("os_log", fields: ["level": "info"]) == .log)
        #expect(EventFamily.of("os_log", fields: ["level": "fault"]) == .logError)
        #expect(EventFamily.of("os_log", fields: ["level": "error"]).colour != EventFamily.log.colour)
    }

    /// The app's own log lines (Logger, os_log) go on its process's lane, errors apart from chatter,
    /// with the message in the tooltip.
    @Test func appLogLinesAreMarkersOnTheirProcessLane() throws {
        let L = RunReportFixture.line
        let tl = Timeline(try RunRecord(name: "log-run", events: [
            L(1, 0, "harness", 10, "spawn", ["childPid": "20", "target": "host-app"]),
            L(2, 5, "host-app", 20, "os_log", ["level": "info", "subsystem": "com.example", "category": "player", "message": "served ball 1"]),
            L(3, 6, "host-app", 20, "os_log", ["level": "fault", "subsystem": "com.example", "category": "player", "message": "store gone"]),
        ], report: nil))
        let host = try #require(tl.lanes.first { $0.name == "host-app" })
        let logs = host.markers.filter { $0.event == "os_log" }
        #expect(logs.map(\.family) == [.log, .logError])
        #expect(logs.first?.title.contains("message=served ball 1") == true)
        #expect(tl.lanes.map(\.name) == ["host-app"], "the spawn goes on its target's lane, the logs on their writer's")
    }

    @Test func deviceTimeOffsets() {
        #expect(DeviceTimeText.offset(0) == "+00:00:00")
        #expect(DeviceTimeText.offset(3723) == "+01:02:03")
        #expect(DeviceTimeText.offset(90000.5) == "+1d01:00:00.500")
    }
}

@Suite(.timeLimit(.minutes(1))) struct TimelineBudgetTests {
    /// Many busy series, none past the per-series bound (60 lanes x 250 lines = 15 000 markers):
    /// the longest are binned until the page is within its marker budget.
    @Test func manyBusySeriesStayWithinTheBudget() throws {
        var lines: [String] = []
        var mono: Int64 = 0
        for lane in 0..<60 {
            for i in 0..<250 {
                mono += 1
                lines.append(HistoryEvent(mono: mono, t: 1000 + Double(i) + Double(lane) / 100, process: "p\(lane)", pid: Int32(lane + 1), event: "tick").jsonLine())
            }
        }
        let tl = Timeline(try RunRecord(name: "busy", history: Data(lines.joined(separator: "\n").utf8), report: nil))
        let markers = tl.lanes.reduce(0) { $0 + $1.markers.count }
        let bins = tl.lanes.reduce(0) { $0 + $1.bins.count }
        let binned = tl.lanes.reduce(0) { $0 + $1.binnedLines }
        #expect(markers + bins <= Timeline.markerBudget, "\(markers) markers + \(bins) bins")
        #expect(markers + binned == 15_000, "every line is drawn, as a marker or in a bin")
        #expect(bins > 0)
        #expect(tl.lanes.count == 60)
    }
}
