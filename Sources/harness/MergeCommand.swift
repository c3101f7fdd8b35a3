import AppGroup
import ArgumentParser
import Foundation
import HarnessKit

/// `harness merge DIR…`: the shards' run directories as one result (`RunMerge`).
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the run directories of sharded runs (run --shard K/N): one table, one JUnit, one exit code.",
        discussion: """
            Finds every run directory (history.jsonl with run_started) up to three levels below each DIR, sorts them by
            scenario, variant and seed, and prints the table, writes JUnit (the same testcases the unsharded run writes) and
            exits as the unsharded run would: 2 if a run is undecided, 1 if a run of a gated variant violated (--gate;
            default every variant), else 0. --out DIR copies every run directory into DIR. A DIR that holds no run is an
            error (exit 2): a shard's artifact went missing.
            """)

    @Argument(help: "The shards' output directories (their --out).") var directories: [String]
    @Option(help: "Write the merged JUnit XML report here.") var junit: String?
    @Option(help: "Copy every run directory into this directory.") var out: String?
    @Option(help: "Variants whose violations fail the merge, comma-separated (the suite's gate, e.g. hardened). Default: every variant.")
    var gate: String?

    func run() throws {
        guard !directories.isEmpty else { throw InputError("name the shards' output directories, e.g. harness merge runs-1 runs-2") }
        if let junit { try Preflight.writableFile(junit, what: "--junit") }
        let outDir = try out.map { try Preflight.outputDirectory($0) }
        let runs: [RunMerge.Run]
        do { runs = try RunMerge.collect(directories) } catch { throw InputError(error.description) }
        var merged = runs
        if let outDir {
            for i in merged.indices {
                let target = outDir + "/" + (merged[i].directory as NSString).lastPathComponent
                guard !FileManager.default.fileExists(atPath: target) else {
                    throw InputError("--out \(outDir): \(target) exists already; merge into an empty directory")
                }
                try FileManager.default.copyItem(atPath: merged[i].directory, toPath: target)
                merged[i].directory = target
            }
        }
        print(RunMerge.table(merged))
        let gateList = gate.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let code = RunMerge.exitCode(merged, gate: gateList)
        let counts = [0, 1, 2].map { c in merged.filter { $0.exitCode == c }.count }
        print("\n\(merged.count) run(s) from \(directories.count) director\(directories.count == 1 ? "y" : "ies"): \(counts[0]) held, \(counts[1]) violated, \(counts[2]) undecided")
        if let junit {
            do { try RunMerge.junit(merged, suiteName: "ScreenTimeHarness").write(toPath: junit, what: "--junit") } catch {
                HarnessExit.fail("\(error)")
                throw ExitCode(2)
            }
        }
        if code != 0 { throw ExitCode(code) }
    }
}
