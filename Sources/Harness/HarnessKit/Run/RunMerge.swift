import AppGroup
import Foundation
import History

/// `harness merge`: the run directories that shards (`--shard K/N`) left in their output
/// directories, put together — each run's scenario, variant and seed from its history's
/// `run_started`, its verdict from its `report.json` — as the one table, JUnit and exit code the
/// unsharded run would have given.
package enum RunMerge {
    package struct Run: Sendable {
        package var directory: String
        package var scenario: String
        package var variant: String
        package var seed: UInt64
        /// Nil when the run left no readable report (it is undecided).
        package var report: CheckReport?
        package var wallSeconds: Double
        package var faults: Int
        /// A sharded suite's run: its shard and place in the whole plan (`Shard.facts`).
        package var shard: String?
        package var planIndex: Int?
        package var planRuns: Int?
        package var plan: String?

        package init(
            directory: String, scenario: String, variant: String, seed: UInt64, report: CheckReport?, wallSeconds: Double, faults: Int,
            shard: String? = nil, planIndex: Int? = nil, planRuns: Int? = nil, plan: String? = nil
        ) {
            self.directory = directory
            self.scenario = scenario
            self.variant = variant
            self.seed = seed
            self.report = report
            self.wallSeconds = wallSeconds
            self.faults = faults
            self.shard = shard
            self.planIndex = planIndex
            self.planRuns = planRuns
            self.plan = plan
        }

        /// 0 held, 1 violated, 2 undecided: as `ScenarioRunner.Outcome.exitCode`.
        package var exitCode: Int32 {
            guard let r = report, r.decided else { return 2 }
            return r.violations.isEmpty ? 0 : 1
        }
    }

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    /// How deep below each given directory a run directory is looked for (`--out DIR` puts runs
    /// one level down; an artifact download may add one or two).
    static let maxDepth = 3
    static let maxRuns = 100_000

    /// Every run directory (one holding `history.jsonl` with a `run_started` line) under
    /// `directories`, sorted by scenario, variant, seed, then path. A directory that does not
    /// exist, or holds no run at all, is an error: a shard's artifact went missing.
    package static func collect(_ directories: [String]) throws(Failure) -> [Run] {
        var runs: [Run] = []
        for top in directories {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: top, isDirectory: &isDir), isDir.boolValue else {
                throw Failure(description: "\(top): not a directory (pass the output directories of the shards, e.g. runs-1 runs-2)")
            }
            let found = findDirectories(under: top, holding: "history.jsonl")
            guard !found.isEmpty else { throw Failure(description: "\(top): holds no run directory (no history.jsonl with run_started)") }
            for dir in found {
                guard runs.count < maxRuns else { throw Failure(description: "more than \(maxRuns) runs to merge") }
                runs.append(try load(dir))
            }
        }
        return runs.sorted { ($0.scenario, $0.variant, $0.seed, $0.directory) < ($1.scenario, $1.variant, $1.seed, $1.directory) }
    }

    /// `dir` if it holds `file`, else the directories below it that do (up to `maxDepth` levels,
    /// not below one that does), sorted: the shards' run directories (`history.jsonl`), and their
    /// explorations (`explore.json`, `ExploreMerge`).
    static func findDirectories(under dir: String, holding file: String, depth: Int = 0) -> [String] {
        if FileManager.default.fileExists(atPath: dir + "/" + file) { return [dir] }
        guard depth < maxDepth, let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        return names.sorted().flatMap { name -> [String] in
            var isDir: ObjCBool = false
            let path = dir + "/" + name
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { return [] }
            // Symlinks are not followed: a run directory is a directory of its own.
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil else { return [] }
            return findDirectories(under: path, holding: file, depth: depth + 1)
        }
    }

    static func load(_ dir: String) throws(Failure) -> Run {
        guard let data = FileManager.default.contents(atPath: dir + "/history.jsonl") else {
            throw Failure(description: "\(dir)/history.jsonl: cannot read it")
        }
        let events = HistoryEvent.parse(jsonl: data).events
        guard let started = events.first(where: { $0.event == "run_started" }), let scenario = started["scenario"],
            let variant = started["variant"], let seed = started["seed"].flatMap({ UInt64($0) })
        else { throw Failure(description: "\(dir)/history.jsonl: no run_started line with scenario, variant and seed") }
        let report = FileManager.default.contents(atPath: dir + "/report.json").flatMap { try? JSONDecoder().decode(CheckReport.self, from: $0) }
        let first = events.first?.mono ?? 0, last = events.last?.mono ?? first
        let faults = events.filter { $0.event == "signal" && $0["by"] == "nemesis" && $0["signal"] != "CONT" }.count
        return Run(
            directory: dir, scenario: scenario, variant: variant, seed: seed, report: report, wallSeconds: Double(last - first) / 1e9,
            faults: faults, shard: started["shard"], planIndex: started["planIndex"].flatMap { Int($0) },
            planRuns: started["planRuns"].flatMap { Int($0) }, plan: started["plan"])
    }

    /// The runs are the unsharded run's, each once: no run given twice (the same scenario, variant
    /// and seed in two directories — a shard passed twice), and for a sharded suite, every case of
    /// its plan present (a shard whose artifact went missing is named) and no run of another plan.
    package static func checkComplete(_ runs: [Run]) throws(Failure) {
        var seen: [String: String] = [:]
        for r in runs {
            let key = "\(r.scenario) \(r.variant) seed \(r.seed)"
            if let other = seen[key] {
                throw Failure(description: "\(key) is here twice (\(other) and \(r.directory)): a shard given twice? merge each shard's output once")
            }
            seen[key] = r.directory
        }
        let sharded = runs.filter { $0.plan != nil }
        guard let first = sharded.first, let total = first.planRuns, let plan = first.plan else { return }
        if let other = runs.first(where: { $0.plan != plan || $0.planRuns != total }) {
            throw Failure(description: "\(other.directory) is not a run of the same sharded suite as \(first.directory) (another plan, or not sharded): merge the shards of one run")
        }
        let count = Int(first.shard?.split(separator: "/").last ?? "") ?? 1
        let present = Set(runs.compactMap(\.planIndex))
        let missing = (0..<total).filter { !present.contains($0) }
        guard missing.isEmpty else {
            let shards = Set(missing.map { $0 % count + 1 }).sorted().map { "\($0)/\(count)" }
            throw Failure(description: "\(missing.count) of the suite's \(total) runs are missing: shard \(shards.joined(separator: ", ")) (its output was not given or is incomplete)")
        }
    }

    /// What the unsharded `harness run` exits with: 2 if any run is undecided, else 1 if a run of a
    /// gated variant (every variant when `gate` is nil) violated, else 0.
    package static func exitCode(_ runs: [Run], gate: [String]?) -> Int32 {
        if runs.contains(where: { $0.exitCode == 2 }) { return 2 }
        return runs.contains { $0.exitCode == 1 && (gate?.contains($0.variant) ?? true) } ? 1 : 0
    }

    package static func table(_ runs: [Run]) -> String {
        let header = ["scenario", "variant", "seed", "verdict", "faults", "violated invariants", "run directory"]
        let rows = runs.map { r -> [String] in
            let verdict = r.exitCode == 0 ? "PASS" : r.exitCode == 1 ? "VIOLATION" : "UNDECIDED"
            let kinds = r.report.map { Set($0.violations.map(\.invariant)).sorted().joined(separator: ",") } ?? ""
            return [r.scenario, r.variant, String(r.seed), verdict, String(r.faults), kinds.isEmpty ? "-" : kinds, r.directory]
        }
        return TextTable.render(header, rows)
    }

    package static func junit(_ runs: [Run], suiteName: String) -> JUnitReport {
        JUnitReport(suiteName: suiteName, testCases: runs.map {
            SuiteRunner.testCase(
                scenario: $0.scenario, variant: $0.variant, seed: $0.seed, report: $0.report,
                setupError: $0.report == nil ? "no report.json" : nil, runDirectory: $0.directory, wallSeconds: $0.wallSeconds,
                faults: $0.faults)
        })
    }
}
