import ArgumentParser
import Foundation
import HarnessKit

struct NormalizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normalize",
        abstract: "Print a run's history without wall stamps, pids and paths, in device-time order: diff two runs with it.",
        discussion: "Under virtual time, two runs of the same scenario, seed and build print the same bytes.")

    @Argument(help: "A run directory.") var runDirectory: String

    func run() throws {
        guard FileManager.default.isReadableFile(atPath: runDirectory + "/history.jsonl") else {
            throw InputError("cannot read \(runDirectory)/history.jsonl: no such file (pass a finished run's directory)")
        }
        let (lines, skipped) = try HistoryNormalizer.normalizeCountingSkipped(runDirectory: runDirectory)
        if lines.isEmpty && skipped > 0 {
            throw InputError("\(runDirectory)/history.jsonl: none of its \(skipped) line(s) is a history event: not a run's history")
        }
        for line in lines { print(line) }
        if skipped > 0 { FileHandle.standardError.write(Data("note: \(skipped) line(s) of \(runDirectory)/history.jsonl are not history events; skipped\n".utf8)) }
    }
}
