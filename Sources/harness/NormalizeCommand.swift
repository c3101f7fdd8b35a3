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
        do {
            for line in try HistoryNormalizer.normalize(runDirectory: runDirectory) { print(line) }
        } catch {
            FileHandle.standardError.write(Data("error: cannot read \(runDirectory)/history.jsonl: \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
    }
}
