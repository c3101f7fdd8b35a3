import AppGroup
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import HarnessKit

/// Collects what an XML parser makes of a report, to check it is well-formed and round-trips.
final class ParsedJUnit: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var text: [String: String] = [:]
    private var current: String?

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append((elementName, attributes))
        current = elementName
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let current { text[current, default: ""] += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        current = nil
    }

    static func parse(_ xml: String) throws -> ParsedJUnit {
        let parser = XMLParser(data: Data(xml.utf8))
        let result = ParsedJUnit()
        parser.delegate = result
        guard parser.parse() else {
            throw ScenarioError(file: "junit.xml", message: "not well-formed: \(String(describing: parser.parserError))")
        }
        return result
    }
}

@Suite("JUnit report", .timeLimit(.minutes(1)))
struct JUnitReportTests {
    static let nasty = "he said \"<stop>\" & 'left' \u{1B}[31mred\u{1B}[0m\u{0}\ttab\r\nnext"

    func sample() -> JUnitReport {
        JUnitReport(
            suiteName: "focuspledge \"hardened\" <seed 42>",
            properties: [JUnitReport.Property(name: "seed", value: "42 & more")],
            testCases: [
                JUnitReport.TestCase(name: "every violation settles FAILURE once", classname: "focuspledge.hardened", timeSeconds: 0.25),
                JUnitReport.TestCase(
                    name: "shields removed <after> settlement", classname: "focuspledge.hardened", timeSeconds: 1.5,
                    failure: JUnitReport.Failure(message: Self.nasty, text: "session s-42-3:\n" + Self.nasty)
                ),
                JUnitReport.TestCase(
                    name: "a & b", classname: "focuspledge.hardened", timeSeconds: 2, systemOut: "log <line> & \u{7}bell"
                ),
            ]
        )
    }

    @Test("escaping: quotes, <, >, & and apostrophes become entities; control characters become visible")
    func escaping() {
        #expect(JUnitReport.escapeAttribute("a\"b<c>d&e'f") == "a&quot;b&lt;c&gt;d&amp;e&apos;f")
        #expect(JUnitReport.escapeText("a\"b<c>d&e'f") == "a\"b&lt;c&gt;d&amp;e'f")
        #expect(JUnitReport.escapeAttribute("x\ny\tz\r") == "x&#10;y&#9;z&#13;")
        #expect(JUnitReport.escapeText("x\ny\tz\r") == "x\ny\tz&#13;")
        #expect(JUnitReport.escapeText("\u{1B}[0m\u{0}\u{FFFF}") == "\\u{1B}[0m\\u{0}\\u{FFFF}")
        #expect(JUnitReport.escapeText("ünïcødé ✓") == "ünïcødé ✓")
    }

    @Test("the report is well-formed XML whose values read back as written")
    func wellFormedRoundTrip() throws {
        let report = sample()
        let xml = report.xml()
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite "))
        let parsed = try ParsedJUnit.parse(xml)
        let suite = try #require(parsed.elements.first { $0.name == "testsuite" })
        #expect(suite.attributes["name"] == report.suiteName)
        let property = try #require(parsed.elements.first { $0.name == "property" })
        #expect(property.attributes["value"] == "42 & more")
        let cases = parsed.elements.filter { $0.name == "testcase" }
        #expect(cases.map { $0.attributes["name"] } == report.testCases.map(\.name))
        #expect(cases.map { $0.attributes["classname"] } == report.testCases.map(\.classname))
        let failure = try #require(parsed.elements.first { $0.name == "failure" })
        // Everything but the characters XML cannot carry survives exactly.
        let expected = Self.nasty.replacingOccurrences(of: "\u{1B}", with: "\\u{1B}").replacingOccurrences(of: "\u{0}", with: "\\u{0}")
        #expect(failure.attributes["message"] == expected)
        #expect(parsed.text["failure"] == "session s-42-3:\n" + expected)
        #expect(parsed.text["system-out"] == "log <line> & \\u{7}bell")
    }

    @Test("suite counts match the cases")
    func counts() throws {
        var report = sample()
        report.testCases.append(JUnitReport.TestCase(
            name: "another", classname: "c", timeSeconds: 0.001, failure: JUnitReport.Failure(message: "m")
        ))
        let parsed = try ParsedJUnit.parse(report.xml())
        let suite = try #require(parsed.elements.first { $0.name == "testsuite" })
        #expect(suite.attributes["tests"] == "4")
        #expect(suite.attributes["failures"] == "2")
        #expect(suite.attributes["errors"] == "0")
        #expect(suite.attributes["time"] == "3.751")
        #expect(parsed.elements.filter { $0.name == "testcase" }.count == 4)
        #expect(parsed.elements.filter { $0.name == "failure" }.count == 2)
        let times = parsed.elements.filter { $0.name == "testcase" }.map { $0.attributes["time"] }
        #expect(times == ["0.250", "1.500", "2.000", "0.001"])
    }

    /// CI dashboards count `<failure>` as the app's: an interrupted or tampered run, one that could
    /// not be set up, is an `<error>` with its kind as the type; only a violation is a failure.
    @Test("undecided runs are errors, violations failures")
    func undecidedRunsAreErrors() throws {
        var interrupted = CheckReport.undecided(checker: "x", reason: "interrupted: SIGTERM")
        interrupted.interruption = "SIGTERM"
        var tampered = CheckReport.undecided(checker: "x", reason: "the device root was tampered with")
        tampered.tampered = "system/x changed"
        let violated = CheckReport(
            checker: "x", decided: true, results: [],
            violations: [InvariantViolation(invariant: "no-double", subject: .init(kind: "s", id: "1"), explanation: "twice", relevantEvents: [])], latencies: [])
        func testCase(_ r: CheckReport?, setup: String? = nil) -> JUnitReport.TestCase {
            SuiteRunner.testCase(scenario: "s", variant: "as-written", seed: 1, report: r, setupError: setup, runDirectory: "/r", wallSeconds: 1, faults: 0)
        }
        let report = JUnitReport(suiteName: "s", testCases: [testCase(interrupted), testCase(tampered), testCase(nil, setup: "no port"), testCase(violated)])
        let parsed = try ParsedJUnit.parse(report.xml())
        let suite = try #require(parsed.elements.first { $0.name == "testsuite" })
        #expect(suite.attributes["failures"] == "1")
        #expect(suite.attributes["errors"] == "3")
        #expect(parsed.elements.filter { $0.name == "error" }.map { $0.attributes["type"] } == ["interrupted", "tampered", "undecided"])
        #expect(parsed.elements.filter { $0.name == "failure" }.map { $0.attributes["message"] } == ["no-double: twice"])
    }

    @Test("an empty suite is still valid, with zero counts")
    func emptySuite() throws {
        let parsed = try ParsedJUnit.parse(JUnitReport(suiteName: "nothing").xml())
        let suite = try #require(parsed.elements.first)
        #expect(suite.name == "testsuite")
        #expect(suite.attributes["tests"] == "0")
        #expect(suite.attributes["failures"] == "0")
    }

    @Test("times: milliseconds, '.' always, nonsense clamped to 0")
    func timeFormatting() {
        #expect(JUnitReport.formatSeconds(0) == "0.000")
        #expect(JUnitReport.formatSeconds(12.3456) == "12.346")
        #expect(JUnitReport.formatSeconds(-1) == "0.000")
        #expect(JUnitReport.formatSeconds(.nan) == "0.000")
        #expect(JUnitReport.formatSeconds(0.0004) == "0.000")
        #expect(JUnitReport.formatSeconds(0.0005) == "0.001")
    }

    @Test("write replaces the file atomically and leaves no temp file")
    func atomicWrite() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("junit-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("junit.xml").path
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        // A leftover temp name from an earlier crash must not stop the write.
        try "stale".write(toFile: directory.appendingPathComponent(".tmp.\(getpid()).0.junit.xml").path, atomically: false, encoding: .utf8)

        let report = sample()
        try report.write(toPath: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == report.xml())
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == [".tmp.\(getpid()).0.junit.xml", "junit.xml"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    @Test("write into a missing directory fails with a clear error")
    func writeFailure() {
        #expect {
            try sample().write(toPath: "/nonexistent-dir-for-junit/junit.xml")
        } throws: { error in
            (error as? OutputFile.Failure)?.description == "JUnit report /nonexistent-dir-for-junit/junit.xml: directory /nonexistent-dir-for-junit does not exist"
        }
    }
}
