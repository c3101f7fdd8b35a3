import AppGroup
import ArgumentParser
import Foundation
import HarnessKit

/// `harness merge DIR…`: the shards' run directories as one result (`RunMerge`).
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the output of sharded runs (run --shard K/N) or explores (explore --shard K/N): one table, one JUnit, one exit code.",
        discussion: """
            Runs: finds every run directory (history.jsonl with run_started) up to three levels below each DIR, sorts them
            by scenario, variant and seed, and prints the table, writes JUnit (the same testcases the unsharded run writes)
            and exits as the unsharded run would: 2 if a run is undecided, 1 if a run of a gated variant violated (--gate;
            default every variant), else 0. --out DIR copies every run directory into DIR. A DIR that holds no run is an
            error (exit 2): a shard's artifact went missing.
            Explores: when the DIRs hold explore records (explore.json, which harness explore writes: the run directories
            of points that held are removed), the shards of each exploration are merged from them into the crash-point
            table, JUnit and exit code the unsharded explore gives. Refused (exit 2, nothing merged): a shard missing or
            given twice, shards of another build, scenario or selection (--max, --each-label-once, N), a shard that was
            interrupted or did not explore exactly its part, a DIR without a record beside DIRs with one.
            """)

    @Argument(help: "The shards' output directories (their --out).") var directories: [String]
    @Option(help: "Write the merged JUnit XML report here.") var junit: String?
    @Option(help: "Copy every run directory into this directory.") var out: String?
    @Option(help: "Variants whose violations fail the merge, comma-separated (the suite's gate, e.g. hardened). Default: every variant.")
    var gate: String?

    func run() throws {
        guard !directories.isEmpty else { throw InputError("name the shards' output directories, e.g. harness merge runs-1 runs-2") }
        if let junit { try Preflight.junitTarget(junit) }
        // Explore shards (`harness explore --shard K/N`) are merged from their records: the run
        // directories of the points that held were removed, so a merge of run directories would
        // lose them.
        let explores = directories.map { ExploreMerge.recordPaths(under: $0) }
        if explores.contains(where: { !$0.isEmpty }) {
            if let i = explores.firstIndex(where: \.isEmpty) {
                throw InputError("\(directories[i]) holds no exploration record (\(ExploreRecord.fileName)) but the others do: merge explore shards and run shards separately")
            }
            return try mergeExplores(explores.flatMap { $0 })
        }
        let outDir = try out.map { try Preflight.outputDirectory($0) }
        let runs: [RunMerge.Run]
        do {
            runs = try RunMerge.collect(directories)
            try RunMerge.checkComplete(runs)
        } catch { throw InputError(error.description) }
        if let gate {
            // A typo in a gate hides violations: every gated variant must be one a system knows.
            let known = Set(HarnessCLI.catalog.packs.flatMap(\.descriptor.variants) + runs.map(\.variant))
            for g in gate.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !known.contains(g) {
                throw InputError("--gate \(gate): unknown variant '\(g)'; the runs' systems have: \(known.sorted().joined(separator: ", "))")
            }
        }
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

    /// The shards of each exploration as the unsharded `harness explore` reports it: the crash-point
    /// table, the counts, the points that did not hold, one JUnit, its exit code.
    func mergeExplores(_ paths: [String]) throws {
        guard out == nil else { throw InputError("--out copies run directories; explore shards are merged from their records (leave --out out)") }
        guard gate == nil else { throw InputError("--gate picks the variants of a suite's runs; an exploration has one variant (leave --gate out)") }
        let merged: [ExploreMerge.Merged]
        do {
            merged = try ExploreMerge.merge(paths.map { p throws(ExploreMerge.Failure) in (p, try ExploreMerge.load(p)) })
        } catch { throw InputError(error.description) }
        var cases: [JUnitReport.TestCase] = []
        for m in merged {
            print("\(m.scenario) [\(m.variant)] seed \(m.seed): \(m.findings.count) of \(m.crashPointCount) crash points from \(m.directories.count) shard\(m.directories.count == 1 ? "" : "s")")
            print(CrashPointExplorer.table(m.findings))
            print("\n" + CrashPointExplorer.counts(m.findings))
            for u in m.undecidedEnumerations { print("── \(u)") }
            // The shards' run directories stay where each shard ran: the rerun command is what travels.
            for line in CrashPointExplorer.notHeld(m.findings, history: false) { print(line) }
            cases += CrashPointExplorer.junit(m.findings, scenario: m.scenario, variant: m.variant, seed: m.seed).testCases
        }
        if let junit {
            do { try JUnitReport(suiteName: CrashPointExplorer.junitSuiteName, testCases: cases).write(toPath: junit, what: "--junit") } catch {
                HarnessExit.fail("\(error)")
                throw ExitCode(2)
            }
        }
        let code = merged.map(\.exitCode).max() ?? 0
        if code != 0 { throw ExitCode(code) }
    }
}
