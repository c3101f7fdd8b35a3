import Foundation
import History
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
    /// Dense violations share one label (`V1 +3`) at the first of them; one far enough away keeps
    /// its own.
    @Test func denseViolationMarkersShareOneLabel() {
        let labels = RunReportPage.markerLabels([(index: 1, x: 10), (index: 3, x: 22), (index: 2, x: 14), (index: 4, x: 30), (index: 5, x: 300), (index: 6, x: 400), (index: 7, x: 405)])
        #expect(labels == [1: "V1 +3", 2: "", 3: "", 4: "", 5: "V5", 6: "V6, V7", 7: ""])
    }

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

    /// Each heartbeat monitor's decisions, judged, with the findings that matter first.
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
    /// The markers are written in Swift, not by the template: the page must be byte for byte the
    /// one the template wrote (its section kept here as the reference), on titles that need escaping
    /// (quotes, ampersands, a quote a combining mark follows), cited lines and thousands of markers.
    @Test func theMarkersAreThePageTheTemplateWrote() throws {
        let oldSection = """
            {{#markers}}<rect class="m{{#cited}} cited {{violations}}{{/cited}}" x="{{x}}" y="{{y}}" width="3" height="10" fill="{{colour}}" data-t="{{t}}" data-line="{{line}}"><title>{{title}}</title></rect>
            {{/markers}}
            """
        let template = ReportTemplates.page.replacingOccurrences(of: "{{{markersHTML}}}", with: oldSection)
        #expect(template != ReportTemplates.page)
        var events = RunReportFixture.events
        for i in 0..<3000 {
            let odd = ["a \"quoted\" & <tag> 'x'", "\"\u{301}", "é & ü", "plain"][i % 4]
            let t: Double = RunReportFixture.t0 + 0.0137 * Double(i) + 1e-7 * Double(i % 7)
            let process = "lane\(i % 5)", pid = Int32(40 + i % 5)
            events.append(HistoryEvent(mono: 5000 + Int64(i), t: t, process: process, pid: pid, event: "e\(i % 13)", fields: ["note": odd]))
        }
        events.sort { ($0.t, $0.mono) < ($1.t, $1.mono) }
        let history = Data((events.map { $0.jsonLine() }.joined(separator: "\n") + "\n").utf8)
        let record = try RunRecord(name: "many", history: history, report: RunReportFixture.report)
        // The old context: every marker a dictionary, the time by the formatter.
        var context = RunReportPage.context(record)
        let tl = Timeline(record)
        let span = tl.end - tl.start
        var lanes = try #require(context["lanes"] as? [[String: Any]])
        for (i, lane) in tl.lanes.enumerated() {
            let y = RunReportPage.axisHeight + Double(i) * RunReportPage.laneHeight
            lanes[i]["markers"] = lane.markers.map { m -> [String: Any] in
                [
                    "x": RunReportPage.f(RunReportPage.labelWidth + (m.t - tl.start) / span * RunReportPage.plotWidth - RunReportPage.markerWidth / 2),
                    "y": RunReportPage.f(y + 4 + Double(m.family.row) * 11), "colour": m.family.colour,
                    "t": String(format: "%.3f", m.t - tl.start), "line": m.line, "title": m.title,
                    "cited": !m.violations.isEmpty, "violations": m.violations.map { "v\($0)" }.joined(separator: " "),
                ]
            }
        }
        context["lanes"] = lanes
        let reference = ReportTemplates.render(template, context)
        let page = RunReportPage.render(record)
        #expect(page.count > 500_000)
        #expect(page == reference, "first difference at \(zip(page, reference).prefix { $0 == $1 }.count)")
        for v in [0.0, 0.0005, 0.0015, 1.0005, 2.5, 1234.5675, 86_399.9995, -0.0004, 1e-9, 0.1 + 0.2] {
            #expect(RunReportPage.millis(v) == String(format: "%.3f", v), "\(v)")
        }
    }
}
