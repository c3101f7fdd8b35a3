import ArgumentParser
import AppGroup
import Foundation
import RunReport

/// `harness report RUN_DIR…`: (re)writes each run's report.html from its history.jsonl (and
/// report.json's verdicts); with several runs, an index page too.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write report.html in each run directory (timeline, violations, latency histograms); with several, an index page.",
        discussion: """
            Built from history.jsonl alone (plus report.json's verdicts when the directory has one): an old run, an
            interrupted one or one judged again by `harness check` gets the same page. The pages are self-contained
            (no network) and open from disk. With several run directories (a suite, merged shards) the index lists
            every scenario × variant × seed with its verdict, worst first, and links to each report.
            """)

    @Argument(help: "Run directories (written by `harness run`).") var runs: [String]
    @Option(help: "Where the index page goes when several runs are given (default: index.html in the first run's parent directory).")
    var index: String?

    func run() throws {
        let dirs = runs.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        let t0 = Date()
        do {
            if dirs.count == 1 && index == nil {
                print(try RunReportPage.write(runDirectory: dirs[0]))
            } else {
                let indexPath = index ?? PathText.directory(of: dirs[0]) + "/index.html"
                for p in try SuiteIndexPage.write(runDirectories: dirs, indexPath: indexPath) { print(p) }
                print("index: \(indexPath)")
            }
        } catch {
            throw InputError(error.description)
        }
        FileHandle.standardError.write(Data(String(format: "report: %d run(s) in %.2f s\n", dirs.count, Date().timeIntervalSince(t0)).utf8))
    }
}
