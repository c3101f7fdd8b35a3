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
        for line in try HistoryNormalizer.normalize(runDirectory: runDirectory) { print(line) }
    }
}
