import Foundation
@testable import RunReport
import Testing

@Suite(.timeLimit(.minutes(1))) struct RunReportPageTests {
    func page() throws -> String {
        RunReportPage.render(try RunRecord(name: "demo-run", history: RunReportFixture.history, report: RunReportFixture.report))
    }

    @Test func everyLaneAndTheViolationAreInThePage() throws {
        let html = try page()
        for lane in ["harness", "host-app", "server", "monitor-extension", "shield-extension"] { #expect(html.contains("data-process=\"\(lane)\""), "lane \(lane)") }
        #expect(html.contains("id=\"violation-1\""))
        #expect(html.contains("class=\"violation-marker\""))
        #expect(html.contains("data-show-violation=\"1\""))
        #expect(html.contains("host-survives"))
        #expect(html.contains("harness run demo.yaml --variant as-written --seed 7"))
        #expect(html.contains("<span class=\"verdict fail\" id=\"verdict\">VIOLATION</span>"))
        // Cited lines are marked with their violation, for "show on the timeline".
        #expect(html.contains("class=\"m cited v1\""))
        // Which invariants, how many times each, above the list.
        #expect(html.contains("<span class=\"inv\"><b>host-survives</b> × 1</span>"))
    }

    /// Self-contained: nothing is fetched (the only URL is SVG's namespace), and the page forbids
    /// fetching anything.
    @Test func noNetwork() throws {
        let html = try page()
        let urls = html.components(separatedBy: "http").dropFirst().map { String($0.prefix(30)) }
        #expect(urls.allSatisfy { $0.hasPrefix("://www.w3.org/2000/svg\"") || $0.hasPrefix("-equiv") }, "\(urls)")
        #expect(html.contains("default-src 'none'"))
        #expect(!html.contains("src=\""))
    }

    /// A field's text is data: escaped, never markup.
    @Test func fieldsAreEscaped() throws {
        let html = try page()
        #expect(!html.contains("<script>alert(1)"))
        #expect(html.contains("note=&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test func aHistogramPerLatencySeries() throws {
        let html = try page()
        #expect(html.contains("data-series=\"call-to-seen\""))
        #expect(html.contains("data-series=\"empty-series\""))
        #expect(html.contains("n = 0: no samples"))
        #expect(html.contains("n = 6, p50 150 µs, p99 3 ms, max 3 ms"))
    }

    /// Issue 24: each heartbeat monitor's decisions, judged, with the findings that matter first.
    @Test func theHeartbeatVerdictsAreShown() throws {
        let html = try page()
        #expect(html.contains("<section id=\"heartbeats\">"))
        #expect(html.contains("data-monitor=\"watchdog\""))
        #expect(html.contains("<td>1 (suspended-by-ios 1)</td>"))
        #expect(html.contains("<td>33.0 / 33.0</td>"))
        #expect(html.contains("<span class=\"bad\">false-alarm</span> watchdog"))
        #expect(html.contains("the writer was killed — SIGKILL by the nemesis — detected after 33.0 s"))
        let plain = RunReportPage.render(try RunRecord(name: "demo-run", history: RunReportFixture.history, report: nil))
        #expect(!plain.contains("id=\"heartbeats\""))
    }

    @Test func withoutReportJSONThePageSaysSo() throws {
        let html = RunReportPage.render(try RunRecord(name: "demo-run", history: RunReportFixture.history, report: nil))
        #expect(html.contains("NOT JUDGED"))
        #expect(html.contains("No report.json in this run directory"))
        #expect(!html.contains("id=\"violation-1\""))
    }

    @Test func aCorruptReportJSONIsAnErrorNamingIt() {
        #expect(throws: RunReportError.self) { try RunRecord(name: "demo-run", history: RunReportFixture.history, report: Data("{".utf8)) }
    }

    /// Unparseable lines are counted, with their numbers, not dropped silently.
    @Test func tornLinesAreShown() throws {
        var history = RunReportFixture.history
        history.append(Data("{\"mono\":1,\"t\":".utf8))
        let record = try RunRecord(name: "demo-run", history: history, report: nil)
        #expect(record.badLineNumbers == [RunReportFixture.events.count + 1])
        #expect(RunReportPage.render(record).contains("do not parse (left out): \(RunReportFixture.events.count + 1)"))
    }

    @Test func writesIntoTheRunDirectoryAndRefusesADirectoryWithoutHistory() throws {
        let dir = NSTemporaryDirectory() + "sth-report-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: RunReportError.self) { try RunReportPage.write(runDirectory: dir) }
        try RunReportFixture.history.write(to: URL(fileURLWithPath: dir + "/history.jsonl"))
        try RunReportFixture.report.write(to: URL(fileURLWithPath: dir + "/report.json"))
        let path = try RunReportPage.write(runDirectory: dir)
        #expect(path == dir + "/report.html")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("id=\"violation-1\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["history.jsonl", "report.html", "report.json"])
    }
}
