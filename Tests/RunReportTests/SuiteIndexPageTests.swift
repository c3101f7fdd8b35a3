import Foundation
@testable import RunReport
import Testing

@Suite(.timeLimit(.minutes(1))) struct SuiteIndexPageTests {
    /// Two runs, one judged with a violation and one never judged: both reports are written, the
    /// index lists both with their verdicts (worst first) and links each report relatively.
    @Test func indexesEveryRunWorstFirst() throws {
        let root = NSTemporaryDirectory() + "sth-index-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let a = root + "/runs/demo-as-written-seed7", b = root + "/runs/demo-hardened-seed8"
        for d in [a, b] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            try RunReportFixture.history.write(to: URL(fileURLWithPath: d + "/history.jsonl"))
        }
        try RunReportFixture.report.write(to: URL(fileURLWithPath: a + "/report.json"))
        let written = try SuiteIndexPage.write(runDirectories: [b, a], indexPath: root + "/runs/index.html")
        #expect(written == [b + "/report.html", a + "/report.html"])
        let index = try String(contentsOfFile: root + "/runs/index.html", encoding: .utf8)
        #expect(index.components(separatedBy: "<tr class=\"run\">").count - 1 == 2)
        let violation = try #require(index.range(of: "href=\"demo-as-written-seed7/report.html\""))
        let unjudged = try #require(index.range(of: "href=\"demo-hardened-seed8/report.html\""))
        #expect(violation.lowerBound < unjudged.lowerBound, "the violation is listed first")
        #expect(index.contains("host-survives"))
        #expect(index.contains("NOT JUDGED"))
    }

    /// An index or page is written over only a page the harness wrote (or an empty file): a
    /// user's file at `--index` is refused and left as it was; the harness's own is replaced.
    @Test func onlyTheHarnesssOwnPageIsReplaced() throws {
        let root = NSTemporaryDirectory() + "sth-index-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let a = root + "/runs/demo-as-written-seed7"
        try FileManager.default.createDirectory(atPath: a, withIntermediateDirectories: true)
        try RunReportFixture.history.write(to: URL(fileURLWithPath: a + "/history.jsonl"))
        try RunReportFixture.report.write(to: URL(fileURLWithPath: a + "/report.json"))
        for template in [ReportTemplates.index, ReportTemplates.page] { #expect(template.hasPrefix(ReportFile.ownPrefix)) }
        let notes = root + "/notes.md"
        try "# my notes\n".write(toFile: notes, atomically: false, encoding: .utf8)
        #expect(throws: RunReportError.self) { try SuiteIndexPage.write(runDirectories: [a], indexPath: notes) }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "# my notes\n")
        let index = root + "/index.html"
        _ = try SuiteIndexPage.write(runDirectories: [a], indexPath: index)
        _ = try SuiteIndexPage.write(runDirectories: [a], indexPath: index)
        #expect(try String(contentsOfFile: index, encoding: .utf8).hasPrefix(ReportFile.ownPrefix))
    }

    @Test func aDirectoryThatIsNotARunIsNamedBeforeAnythingIsWritten() throws {
        let root = NSTemporaryDirectory() + "sth-index-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try RunReportFixture.history.write(to: URL(fileURLWithPath: root + "/run/history.jsonl"))
        do {
            _ = try SuiteIndexPage.write(runDirectories: [root + "/run", root + "/nope"], indexPath: root + "/index.html")
            Issue.record("no error")
        } catch {
            #expect(error.description.contains(root + "/nope: no such directory"))
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/run/report.html"))
        #expect(!FileManager.default.fileExists(atPath: root + "/index.html"))
    }

    @Test func relativePaths() {
        #expect(SuiteIndexPage.relativePath("/a/b/c/report.html", from: "/a/b") == "c/report.html")
        #expect(SuiteIndexPage.relativePath("/a/x/report.html", from: "/a/b") == "../x/report.html")
    }
}
