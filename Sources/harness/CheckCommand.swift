import ArgumentParser
import Foundation
import HarnessKit
import History
import SystemRegistry

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Judge recorded runs again from their history.jsonl alone (exit 0 held, 1 violation, 2 undecidable).",
        discussion: """
            The system is the one the history's run_started line names (--system overrides it). With several
            runs, the detection latency is also reported pooled over all of them.
            """)

    @Argument(help: "Run directories (or history.jsonl files).") var runs: [String]
    @Option(help: "Judge as this system (default: the one the history names).") var system: String?
    @Flag(help: "Print the reports as JSON.") var json = false

    struct Pooled: Encodable {
        var runs: Int
        var detectionLatency: DetectionLatency
    }

    func run() throws {
        var worst: Int32 = 0
        var reports: [CheckReport] = []
        for r in runs {
            let path = r.hasSuffix(".jsonl") ? r : r + "/history.jsonl"
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("error: cannot read \(path)\n".utf8))
                throw ExitCode(2)
            }
            let parsed = HistoryEvent.parse(jsonl: data)
            if !parsed.badLines.isEmpty {
                FileHandle.standardError.write(Data("note: \(parsed.badLines.count) unparseable line(s) in \(path) skipped\n".utf8))
            }
            let named = parsed.events.first { $0.isHarnessLine("run_started") }?["system"]
            guard let id = system ?? named else {
                FileHandle.standardError.write(Data("error: \(path) names no system (no run_started line with a system); pass --system\n".utf8))
                throw ExitCode(2)
            }
            guard let pack = SystemRegistry.catalog.pack(id) else {
                FileHandle.standardError.write(Data(
                    "error: \(path): unknown system '\(id)'; known: \(SystemRegistry.catalog.ids.joined(separator: ", "))\n".utf8))
                throw ExitCode(2)
            }
            let report = pack.check(parsed.events)
            reports.append(report)
            if json {
                let enc = JSONEncoder()
                enc.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try enc.encode(report), as: UTF8.self))
            } else {
                print("\(path):")
                print(report.humanSummary())
            }
            worst = max(worst, report.decided ? (report.passed ? 0 : 1) : 2)
        }
        if reports.count > 1 {
            let pooled = DetectionLatency.merged(reports.map(\.detectionLatency))
            if json {
                let enc = JSONEncoder()
                enc.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try enc.encode(Pooled(runs: reports.count, detectionLatency: pooled)), as: UTF8.self))
            } else if let p50 = pooled.p50Micros, let p99 = pooled.p99Micros {
                print("pooled over \(reports.count) runs: detection latency n=\(pooled.count) p50=\(p50) µs p99=\(p99) µs max=\(pooled.maxMicros ?? 0) µs")
            } else {
                print("pooled over \(reports.count) runs: no detection latency samples")
            }
        }
        if worst != 0 { throw ExitCode(worst) }
    }
}
