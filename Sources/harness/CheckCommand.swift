import ArgumentParser
import Foundation
import HarnessKit
import History

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Judge a recorded run again from its history.jsonl alone (exit 0 held, 1 violation, 2 undecidable).")

    @Argument(help: "Run directories (or history.jsonl files).") var runs: [String]
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        var worst: Int32 = 0
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
            let report = FocusPledgeChecker.check(parsed.events)
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
        if worst != 0 { throw ExitCode(worst) }
    }
}
