import AppGroup
import Foundation
import Mustache

/// The index of several runs (a suite, merged shards): every scenario × variant × seed with its
/// verdict and a link to its report.html, worst first. Each run's report is (re)written too.
public enum SuiteIndexPage {
    public struct Entry: Sendable {
        public var runDirectory: String
        public var scenario: String
        public var variant: String
        public var seed: String
        public var verdict: String
        public var violated: [String]
        public var deviceSeconds: Double
        public var lines: Int
    }

    /// Writes `report.html` in every run directory and the index at `indexPath`; returns the
    /// reports' paths. A directory that is not a run is an error naming it, before anything is written.
    public static func write(runDirectories: [String], indexPath: String) throws(RunReportError) -> [String] {
        var records: [(String, RunRecord)] = []
        for d in runDirectories { records.append((d, try RunRecord.load(runDirectory: d))) }
        try ReportFile.check(indexPath, what: "index")
        var written: [String] = []
        var entries: [Entry] = []
        for (d, r) in records {
            let path = d + "/" + RunReportPage.fileName
            try ReportFile.write(RunReportPage.render(r), to: path)
            written.append(path)
            entries.append(entry(d, r))
        }
        try ReportFile.write(render(entries, indexDirectory: PathText.directory(of: indexPath)), to: indexPath, what: "index")
        return written
    }

    /// Writes only the index (each run's report.html is already there, as `harness run` wrote it).
    /// `links`: more pages of the same runs, (title, path), shown above the table (`harness
    /// coverage`'s llvm-cov report).
    public static func writeIndex(runDirectories: [String], indexPath: String, links: [(String, String)] = []) throws(RunReportError) {
        var entries: [Entry] = []
        for d in runDirectories { entries.append(entry(d, try RunRecord.load(runDirectory: d))) }
        try ReportFile.write(render(entries, indexDirectory: PathText.directory(of: indexPath), links: links), to: indexPath, what: "index")
    }

    static func entry(_ dir: String, _ r: RunRecord) -> Entry {
        let ts = r.lines.map(\.event.t)
        return Entry(
            runDirectory: dir, scenario: r.scenario, variant: r.variant, seed: r.seed, verdict: r.verdicts?.verdict ?? "NOT JUDGED",
            violated: Array(Set(r.verdicts?.violations.map(\.invariant) ?? [])).sorted(),
            deviceSeconds: (ts.max() ?? 0) - (ts.min() ?? 0), lines: r.lines.count)
    }

    static func rank(_ verdict: String) -> Int {
        switch verdict {
        case "VIOLATION": return 0
        case "PASS": return 3
        default: return 1
        }
    }

    public static func render(_ entries: [Entry], indexDirectory: String, links: [(String, String)] = []) -> String {
        let sorted = entries.sorted {
            (rank($0.verdict), $0.scenario, $0.variant, Int($0.seed) ?? 0, $0.runDirectory) < (rank($1.verdict), $1.scenario, $1.variant, Int($1.seed) ?? 0, $1.runDirectory)
        }
        let rows: [[String: Any]] = sorted.map { e in
            [
                "scenario": e.scenario, "variant": e.variant, "seed": e.seed, "verdict": e.verdict,
                "verdictClass": e.verdict == "PASS" ? "pass" : (e.verdict == "VIOLATION" ? "fail" : "undecided"),
                "violated": e.violated.isEmpty ? "-" : e.violated.joined(separator: ", "),
                "device": DeviceTimeText.duration(e.deviceSeconds), "lines": e.lines,
                "href": relativePath(e.runDirectory + "/" + RunReportPage.fileName, from: indexDirectory),
                "run": (e.runDirectory as NSString).lastPathComponent,
            ]
        }
        var counts: [String: Int] = [:]
        for e in entries { counts[e.verdict, default: 0] += 1 }
        let summary = counts.keys.sorted { rank($0) < rank($1) }.map { "\(counts[$0]!) \($0)" }.joined(separator: " · ")
        return ReportTemplates.render(
            ReportTemplates.index,
            [
                "rows": rows, "count": entries.count, "summary": summary, "style": ReportTemplates.style,
                "links": links.map { ["title": $0.0, "href": relativePath($0.1, from: indexDirectory)] },
            ])
    }

    /// `to` relative to the directory `from` (both made absolute), so the index opens from disk
    /// wherever the runs are.
    static func relativePath(_ to: String, from: String) -> String {
        func parts(_ p: String) -> [String] {
            let abs = p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p
            return (abs as NSString).standardizingPath.split(separator: "/").map(String.init)
        }
        let a = parts(to), b = parts(from.isEmpty ? "." : from)
        var i = 0
        while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
        let up = Array(repeating: "..", count: b.count - i)
        return (up + a[i...]).joined(separator: "/").addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
    }
}

extension ReportTemplates {
    static let index = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
        <title>{{count}} runs — {{summary}}</title>
        <style>{{{style}}}</style></head>
        <body>
        <header><h1>{{count}} runs</h1><div class="meta">{{summary}}</div></header>
        {{#links}}<p class="link"><a href="{{href}}">{{title}}</a></p>
        {{/links}}        <section><table id="runs"><tr><th>scenario</th><th>variant</th><th>seed</th><th>verdict</th><th>violated invariants</th><th>device time</th><th>history lines</th><th>report</th></tr>
        {{#rows}}<tr class="run"><td>{{scenario}}</td><td>{{variant}}</td><td>{{seed}}</td><td><span class="verdict {{verdictClass}}">{{verdict}}</span></td><td class="violated">{{violated}}</td><td>{{device}}</td><td>{{lines}}</td><td><a href="{{href}}">{{run}}</a></td></tr>
        {{/rows}}</table></section>
        </body></html>
        """
}
