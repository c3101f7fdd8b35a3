import ArgumentParser
import AppGroup
import Foundation
import HarnessKit
import History


struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Judge recorded runs again from their history alone (exit 0 held, 1 violation, 2 undecided or bad input).",
        discussion: """
            The system is the one the history's run_started line names (--system overrides it). A run directory
            whose history.jsonl is missing or stops before run_finished (a harness that was killed, or stopped by a
            signal) is judged from its merged trace/*.jsonl: "undecided: interrupted", with what could be checked.
            With several runs, every latency series is also reported pooled over all of them.
            """)

    @Argument(help: "Run directories (or history .jsonl files).") var runs: [String]
    @Option(help: "Judge as this system, for a history that names none (a history naming another system is refused).") var system: String?
    @Flag(help: "Print the reports as JSON.") var json = false

    struct Pooled: Encodable {
        var runs: Int
        var latencies: [LatencySeries]
    }

    /// The events of one run: `history.jsonl` when it is whole, else the traces merged again.
    static func history(of run: String) throws -> (events: [HistoryEvent], source: String, skipped: Int) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: run, isDirectory: &isDir) else {
            throw InputError("cannot read \(run): no such file or directory (pass a run directory or a history .jsonl)")
        }
        if !isDir.boolValue {
            let data: Data
            do { data = try InputFile.read(run, limitBytes: HistoryMerge.maxFileBytes) } catch {
                throw InputError("cannot read \(error.description) (pass a run directory or a history .jsonl)")
            }
            let parsed = HistoryEvent.parse(jsonl: data)
            guard !parsed.events.isEmpty else { throw InputError("\(run) holds no history lines (\(parsed.badLines.count) unparseable)") }
            return (parsed.events, run, parsed.badLines.count)
        }
        let historyPath = run + "/history.jsonl"
        let whole = (try? InputFile.read(historyPath, limitBytes: HistoryMerge.maxFileBytes)).map { HistoryEvent.parse(jsonl: $0) }
        if let whole, whole.events.contains(where: { $0.isHarnessLine("run_finished") || $0.isHarnessLine(RunJudgement.interruptedEvent) }) {
            return (whole.events, historyPath, whole.badLines.count)
        }
        // Cut short: the traces are the authority (the streamed history may lag a pump behind).
        if FileManager.default.fileExists(atPath: run + "/trace"), let merged = try? HistoryMerge.merge(runDirectory: run), !merged.events.isEmpty {
            return (merged.events, run + "/trace/*.jsonl", merged.tornLines)
        }
        if let whole, !whole.events.isEmpty { return (whole.events, historyPath, whole.badLines.count) }
        throw InputError("cannot read \(historyPath) and \(run)/trace holds no trace lines: not a run directory")
    }

    /// A recorded run judged again from its own history (its report.json may be stale, edited, or
    /// missing): the verdict replay and shrink start from.
    static func judgeAgain(_ run: String) throws -> CheckReport {
        let (events, source, _) = try history(of: run)
        let id = events.first { $0.isHarnessLine("run_started") }?["system"] ?? ""
        guard let pack = HarnessCLI.catalog.pack(id) else {
            throw InputError("\(source): names \(id.isEmpty ? "no system" : "system '\(Excerpt.inner(id))', which this harness does not have"); known: \(HarnessCLI.catalog.ids.joined(separator: ", "))")
        }
        return RunJudgement.judge(pack, events)
    }

    func run() throws {
        var worst: Int32 = 0
        var reports: [CheckReport] = []
        for r in runs {
            let (events, source, skipped) = try Self.history(of: r.hasSuffix("/") ? String(r.dropLast()) : r)
            let named = events.first { $0.isHarnessLine("run_started") }?["system"]
            if let system, let named, system != named {
                // Another system's checkers read a history they were not written for and blame
                // whatever they find missing.
                throw InputError("\(source) is a run of '\(Excerpt.inner(named))', not '\(Excerpt.inner(system))': --system only judges a history that names no system; drop it")
            }
            guard let id = system ?? named else {
                throw InputError("\(source) names no system (no run_started line with a system); pass --system \(HarnessCLI.catalog.ids.joined(separator: "|"))")
            }
            guard let pack = HarnessCLI.catalog.pack(id) else {
                throw InputError("\(source): unknown system '\(id)'; known: \(HarnessCLI.catalog.ids.joined(separator: ", "))")
            }
            let report = RunJudgement.judge(pack, events)
            reports.append(report)
            if json {
                let enc = JSONEncoder()
                enc.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try enc.encode(report), as: UTF8.self))
            } else {
                print("\(source):" + (skipped > 0 ? " (\(skipped) torn or unparseable line(s) skipped)" : ""))
                print(report.humanSummary())
            }
            worst = max(worst, report.decided ? (report.passed ? 0 : 1) : 2)
        }
        if reports.count > 1 {
            let pooled = LatencySeries.merged(reports.map(\.latencies))
            if json {
                let enc = JSONEncoder()
                enc.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try enc.encode(Pooled(runs: reports.count, latencies: pooled)), as: UTF8.self))
            } else if pooled.isEmpty {
                print("pooled over \(reports.count) runs: no latency series")
            } else {
                for series in pooled { print("pooled over \(reports.count) runs: latency \(series.summaryLine)") }
            }
        }
        if worst != 0 { throw ExitCode(worst) }
    }
}
