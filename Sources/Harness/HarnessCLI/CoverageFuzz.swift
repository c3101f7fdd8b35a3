import AppGroup
import Foundation
import HarnessKit

#if canImport(Glibc)
import Glibc
#endif

/// `harness coverage --fuzz DURATION`: a workload steered by coverage — AFL's loop with a
/// scenario's plan as the input. Each run's profiles say which of the app's regions it reached;
/// a run that reached one no earlier run did joins the corpus (its plan written as a scenario
/// file to keep), and the next inputs are mutations of the corpus's plans (`PlanMutator`), with a
/// fresh seed of the scenario's own generator one time in four. `--fuzz-with seeds` runs the
/// generator alone (seed after seed), the baseline to compare against.
struct CoverageFuzz {
    enum Mode: String, CaseIterable {
        case plans
        case seeds
    }

    let scenarioPath: String
    let scenario: Scenario
    let variant: ScenarioVariant
    let durationOverride: Duration?
    let firstSeed: UInt64
    let budgetSeconds: Double
    let mode: Mode
    let bin: String
    let executables: [String]
    let dir: String
    let package: String
    let filter: AppCodeFilter
    let tools: CoverageTools
    let say: (String) -> Void

    /// Runs until the budget is spent (a run under way finishes); the roles' profiles are in `merger`.
    func run(merger: inout CoverageMerger) throws -> CoverageReport.Fuzz {
        let start = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        try FileManager.default.createDirectory(atPath: dir + "/corpus", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/inputs", withIntermediateDirectories: true)
        let deviceSeconds = Double(durationOverride?.components.seconds ?? Int64(scenario.durationSeconds))
        var generator = SeededGenerator(seed: firstSeed, stream: 0xC0FE)
        var seen = Set<CoverageRegion>()
        var corpus: [(plan: FuzzPlan, input: ShrinkInput)] = []
        var out = CoverageReport.Fuzz(mode: mode.rawValue, budgetSeconds: budgetSeconds)
        var nextSeed = firstSeed
        var sources = SourceLines()
        var n = 0
        while elapsed() < budgetSeconds && RunInterruption.signal == nil {
            n += 1
            var path = scenarioPath
            var sc = scenario
            let seed: UInt64
            let what: String
            if mode == .seeds || corpus.isEmpty || Int.random(in: 0..<4, using: &generator) == 0 {
                seed = nextSeed
                nextSeed += 1
                what = "seed \(seed)"
            } else {
                let parent = Int.random(in: 0..<corpus.count, using: &generator)
                let other = corpus[Int.random(in: 0..<corpus.count, using: &generator)].plan
                let (plan, change) = PlanMutator.mutate(corpus[parent].plan, other: other, durationSeconds: deviceSeconds, generator: &generator)
                path = dir + "/inputs/input-\(n).yaml"
                do {
                    let yaml = try corpus[parent].input.scenarioYAML(actions: plan.actions, faults: plan.faults, name: String("\(scenario.name)-fuzz-\(n)".suffix(100)))
                    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
                    sc = try ScenarioParser.load(path: path, systems: HarnessCLI.catalog)
                } catch {
                    // A mutation the pack does not take (an entry it cannot read): not an input.
                    out.skippedInputs += 1
                    if out.skippedExamples.count < 3 { out.skippedExamples.append("\(change): \(error)") }
                    unlink(path)
                    continue
                }
                seed = plan.seed
                what = "\(change) of corpus \(parent + 1)"
            }
            var options = ScenarioRunner.Options(
                scenario: sc, scenarioPath: path, variant: variant, seed: seed, durationOverride: durationOverride, outputDirectory: dir + "/runs",
                binDirectory: bin, progress: { _ in })
            options.profileDirectory = dir + "/profiles"
            let outcome = ScenarioRunner(options: options).run()
            out.runs += 1
            let batch = dir + "/profiles/run.profdata"
            try merger.absorb(batch: batch)
            var fresh: [CoverageRegion] = []
            if FileManager.default.fileExists(atPath: batch) {
                let export = try CoverageCommand.exportJSON(tools, profile: batch, objects: executables, filter: filter, summaryOnly: false)
                fresh = CoverageReport.reached(export, filter: filter, base: package).subtracting(seen).sorted()
                seen.formUnion(fresh)
                unlink(batch)
            }
            out.timeline.append([elapsed(), Double(seen.count)])
            var keep = outcome.exitCode != 0
            if outcome.exitCode == 1 { out.violations.append(outcome.runDirectory) }
            if outcome.exitCode == 2 { out.undecided += 1 }
            if !fresh.isEmpty, let input = try? ShrinkInput.load(runDirectory: outcome.runDirectory) {
                let plan = FuzzPlan(actions: input.planLines(.action), faults: input.planLines(.fault), seed: seed)
                corpus.append((plan, input))
                let file = dir + "/corpus/\(String(format: "%03d", corpus.count)).yaml"
                let name = String("\(scenario.name)-corpus-\(corpus.count)".suffix(100))
                let first = fresh[0]
                let header = [
                    "harness coverage --fuzz: run \(n) (\(what)) reached \(fresh.count) region(s) of the app no earlier run had,",
                    "first \(first.file):\(first.line). Run it: \(ScenarioRunner.commandName) run \(file) --variant \(variant.rawValue) --seed \(seed)",
                ]
                if let yaml = try? input.scenarioYAML(actions: plan.actions, faults: plan.faults, name: name, header: header) {
                    try? yaml.write(toFile: file, atomically: true, encoding: .utf8)
                }
                out.corpus.append(.init(file: file, seed: seed, input: what, newRegions: fresh.count, first: "\(first.file):\(first.line)"))
                keep = true
                let code = sources.line(package + "/" + first.file, first.line) ?? ""
                say(
                    String(format: "[%5.0fs] run %d (%@): +%d region%@, %d in all — %@:%d  %@", elapsed(), n, what, fresh.count, fresh.count == 1 ? "" : "s",
                        seen.count, first.file, first.line, String(code.trimmingCharacters(in: .whitespaces).prefix(80))))
            }
            if !keep { try? FileManager.default.removeItem(atPath: outcome.runDirectory) }
            if path != scenarioPath { unlink(path) }
        }
        out.regionsReached = seen.count
        return out
    }
}

/// Source files' lines, read once each.
struct SourceLines {
    private var files: [String: [Substring]] = [:]

    mutating func line(_ file: String, _ n: Int) -> String? {
        if files[file] == nil {
            files[file] = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        }
        let lines = files[file]!
        return n >= 1 && n <= lines.count ? String(lines[n - 1]) : nil
    }
}
