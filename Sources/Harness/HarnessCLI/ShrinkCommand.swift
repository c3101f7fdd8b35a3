import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import Supervision


/// `harness shrink RUN_DIR`: delta debugging over a failing run's steps (user actions, nemesis
/// faults, failpoints, field-fault rules) down to a few that still fail the same invariant,
/// written as a scenario file with a pinned `plan:` (`ShrinkInput`, `DeltaDebugging`).
struct ShrinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shrink",
        abstract: "Cut a failing run down to the few steps that still fail the same invariant; write them as a scenario file.",
        discussion: """
            Reads RUN_DIR (history.jsonl, judged again; scenario.yaml; schedule.json). Its steps are the user actions and
            nemesis faults schedule.json planned, the failpoints (the scenario's and --failpoint's) and the field-fault
            rules (os.faults). Each trial runs the recorded scenario with a subset of them pinned in a plan: section, on the
            same seed and build, and keeps the subset when the invariant still fails (ddmin: Zeller and Hildebrandt 2002,
            each kind of step first dropped whole). Then a nemesis fault that is left may be replaced by moving the user
            actions inside its window to its end (it may only have held a process back while the user acted): one run
            each, kept when it still fails, then ddmin again. The result is 1-minimal — dropping any one of its steps makes the
            violation go away — unless --max-runs ran out first (said so). The shrunk scenario is written to --out
            (default RUN_DIR/shrunk.yaml) and run once more from that file; that run's directory is kept for
            `harness replay`. Exit codes: 0 shrunk and confirmed, 1 the shrunk file did not fail again, 2 bad input (a
            run that held, another build, an invariant the run did not violate) or a run that could not be decided.
            """)

    @Argument(help: "A failing run's directory (runs/<scenario>-<variant>-seed<n>-…).") var runDirectory: String
    @Option(help: "The invariant that must keep failing (default: the first the run violated, by name).") var invariant: String?
    @Option(help: "Where to write the shrunk scenario (default: RUN_DIR/shrunk.yaml).") var out: String?
    @Option(help: "What counts as the same failure: explanation (the invariant, with an explanation equal but for its numbers; default) or invariant (its name alone).")
    var match: String = "explanation"
    @Option(help: "With --match explanation: keep failing with this one of the run's explanations of the invariant — its text, a part only it has, or either with numbers as # and UUIDs as <uuid> (scripts/findings passes a class this way; default: any of them).")
    var explanation: String?
    @Option(help: "Keep only steps on which this variant holds too (e.g. hardened): the shrunk file is then a regression scenario as it stands.")
    var holds: String?
    @Option(name: .customLong("max-runs"), parsing: .unconditional, help: "At most this many trial runs, 2 or more (default 300; with --holds a trial that fails runs twice).")
    var maxRuns: String?
    @Option(name: .customLong("runs"), help: "Directory for the trials' run directories (each removed once judged).")
    var runsDirectory: String = "runs"

    static let header = "Shrunk by `harness shrink`"
    static let maxRunsLimit = 100_000

    func run() throws {
        let dir = runDirectory.hasSuffix("/") ? String(runDirectory.dropLast()) : runDirectory
        var budget = 300
        if let maxRuns {
            guard let n = Int(maxRuns), (2...Self.maxRunsLimit).contains(n) else {
                // Two at least: the recorded run again with every step pinned, then one trial.
                throw InputError("--max-runs \(Excerpt.quoted(maxRuns)): use a whole number of runs, 2...\(Self.maxRunsLimit)")
            }
            budget = n
        }
        guard ["explanation", "invariant"].contains(match) else {
            throw InputError("--match \(Excerpt.quoted(match)): use explanation or invariant")
        }
        var input: ShrinkInput
        do { input = try ShrinkInput.load(runDirectory: dir) } catch { throw InputError(error.description) }
        // What failed, judged again from the history: a tampered or cut-short run has no verdict,
        // and report.json may be a stale one.
        let judged = try CheckCommand.judgeAgain(dir)
        guard judged.decided else {
            throw InputError("\(dir) is undecided (\(Excerpt.inner(judged.undecidedReason ?? "no verdict", limit: 200))): there is no failure to shrink; run it again")
        }
        input.take(judged.violations)
        guard !input.violated.isEmpty else {
            throw InputError("\(dir) held every invariant: there is no failure to shrink (pass a run with a violation)")
        }
        let target = invariant ?? input.violated.sorted()[0]
        guard input.violated.contains(target) else {
            throw InputError("--invariant \(Excerpt.quoted(target)): \(dir) did not violate it; it violated \(input.violated.sorted().joined(separator: ", "))")
        }
        var templates = input.signatures[target] ?? []
        if let explanation {
            // A run can break one invariant in two ways (two sessions); without this a shrink may
            // keep the other one (scripts/findings shrinks one class at a time).
            guard match == "explanation" else {
                throw InputError("--explanation with --match invariant: the name alone is matched then; drop one of them")
            }
            // The whole explanation, or a part of it that only one of the run's has.
            let wanted = ShrinkInput.signature(explanation)
            let matching = templates.contains(wanted) ? [wanted] : templates.filter { $0.contains(wanted) }.sorted()
            guard matching.count == 1 else {
                let listed = templates.sorted().map { Excerpt.quoted($0, limit: 300) }.joined(separator: "; ")
                throw InputError(
                    "--explanation \(Excerpt.quoted(explanation)): \(matching.isEmpty ? "\(dir) did not violate \(target) that way" : "more than one way \(dir) violated \(target) has it; say more of it"); its explanations (numbers as #): \(listed)")
            }
            templates = [matching[0]]
        }
        let recorded = try ScenarioParser.load(path: dir + "/scenario.yaml", systems: HarnessCLI.catalog)
        let variant = try recorded.variant(named: input.variant)
        let holdsVariant = try holds.map { try recorded.variant(named: $0) }
        if let holdsVariant, holdsVariant == variant {
            throw InputError("--holds \(holdsVariant): the run's own variant cannot both fail and hold; name the other one")
        }
        guard recorded.clock.mode == .virtual else {
            throw InputError("\(dir): shrink needs a clock.mode: virtual run (only those rerun exactly)")
        }
        let bin = Executables.directory
        try ReplayCommand.requireSameBuild(recorded: input.build, runDirectory: dir, system: recorded.system, binDirectory: bin, verb: "shrink")
        let cpu = try CPUPinning.fromEnvironment()
        let outFile = out ?? dir + "/shrunk.yaml"
        try Self.requireReplaceable(outFile)
        let runsDir = try Preflight.outputDirectory(runsDirectory)
        RunInterruption.install()
        _ = DeviceRootLease.sweep(runsDirectory: DeviceRootLease.managedRunsDirectory)

        let shrunkName = String((input.scenarioName + "-shrunk").suffix(100))
        let workDir = "\(runsDir)/shrink-\(input.scenarioName)-\(input.variant)-seed\(input.seed)-\(Int(Date().timeIntervalSince1970))-\(getpid())"
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let err = FileHandle.standardError
        func say(_ s: String) { err.write(Data((s + "\n").utf8)) }
        say("… shrink \(input.scenarioName) \(input.variant) seed \(input.seed): keep \(target) failing\(match == "explanation" ? " the same way (\(templates.sorted().first ?? ""))" : ""); \(input.steps.count) steps (\(input.describe())); at most \(budget) runs -> \(workDir)")

        let t0 = Date()
        var trial = 0
        let trials = PinnedTrials(workDir: workDir, name: shrunkName, binDirectory: bin, cpu: cpu)
        func sameFailure(_ v: InvariantViolation) -> Bool {
            v.invariant == target && (match == "invariant" || templates.contains(ShrinkInput.signature(v.explanation)))
        }
        func runTrial(_ input: ShrinkInput, _ kept: [Int], _ v: ScenarioVariant) -> CheckReport? {
            trials.run(trial, input, kept, v, say: say)
        }
        // True when the kept steps fail the same way (and, with --holds, the other variant holds on them).
        func fails(_ input: ShrinkInput, _ kept: [Int]) -> Bool? {
            if RunInterruption.signal != nil { return nil }
            trial += 1
            var verdict = runTrial(input, kept, variant).map { r in r.violations.contains { sameFailure($0) } }
            var word = verdict.map { $0 ? "still fails" : "passes" } ?? "undecided"
            if verdict == true, let other = holdsVariant {
                let held = runTrial(input, kept, other).map { $0.violations.isEmpty }
                if held != true {
                    verdict = held == nil ? nil : false
                    word = held == nil ? "still fails, \(other.rawValue) undecided" : "still fails, but \(other.rawValue) fails too"
                }
            }
            say(String(format: "  [run %d] %d steps (%@): %@ — %.0f s", trial, kept.count, input.describe(kept), word, Date().timeIntervalSince(t0)))
            return verdict
        }

        // The recorded run again with every step pinned: the plan written out must fail as the seed's did.
        guard fails(input, Array(input.steps.indices)) == true else {
            if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
            throw InputError("\(dir): the run with all its \(input.steps.count) steps pinned did not violate \(target) again\(holdsVariant.map { " with \($0) holding" } ?? "")\(trials.lastSetupError.map { " (\($0))" } ?? ""); it cannot be shrunk (\(workDir))")
        }
        let result = ShrinkSearch.run(input, maximumTests: budget - 1, fails: fails)
        let shrunk = result.input
        if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
        let wall = Date().timeIntervalSince(t0)

        let rerun = "\(Harness.executableName) run \(outFile) --variant \(input.variant) --seed \(input.seed)"
        let moved = result.postponed == 0 ? "" : "; \(result.postponed) nemesis fault(s) replaced by the user acting when the fault ended"
        let yaml = try shrunk.scenarioYAML(keeping: result.kept, name: shrunkName, header: [
            "\(Self.header) from \(dir) (\(input.scenarioName), \(input.variant), seed \(input.seed)): \(target) still fails\(match == "explanation" ? " the same way" : "")\(explanation != nil ? " (\(templates.sorted()[0].replacingOccurrences(of: "\n", with: " ")))" : "").",
            "\(input.steps.count) steps -> \(result.kept.count)\(result.minimal ? " (1-minimal: drop any one and it holds)" : " (the run budget ran out before it was shown minimal)")\(moved).",
            "Run it: \(rerun)\(holdsVariant.map { " (--variant \($0) holds on it)" } ?? "")",
            "The seed still decides what is random inside the run (field faults with a probability, p% failpoints).",
        ] + shrunk.chronological(result.kept).filter { shrunk.steps[$0].moved != nil }.map { "Moved: \(shrunk.steps[$0].summary)" })
        do {
            // The project's writer: checked again, temp + fsync + rename, a full disk leaves the old file.
            try OutputFile.write(Array(yaml.utf8), to: outFile, what: "--out")
        } catch {
            throw InputError(error.description)
        }

        print("shrink: \(input.scenarioName) \(input.variant) seed \(input.seed), \(target)")
        print("steps: \(input.steps.count) -> \(result.kept.count)   (before: \(input.describe()); after: \(shrunk.describe(result.kept)))")
        print(String(format: "%d runs in %.0f s%@%@%@", trial, wall, result.minimal ? ", 1-minimal" : ", budget spent: not shown minimal", moved,
                     trials.undecided > 0 ? ", \(trials.undecided) undecided runs counted as passing" : ""))
        for i in shrunk.chronological(result.kept) { print("  \(shrunk.steps[i].summary)") }
        print("wrote \(outFile)")

        // Confirm from the file, as a user committing it would run it; keep that run for replay.
        let sc = try ScenarioParser.load(path: outFile, systems: HarnessCLI.catalog)
        var options = ScenarioRunner.Options(
            scenario: sc, scenarioPath: outFile, variant: variant, seed: input.seed, durationOverride: nil, outputDirectory: runsDir,
            binDirectory: bin, progress: { _ in })
        options.cpu = cpu
        let confirm = ScenarioRunner(options: options).run()
        let confirmed = confirm.report?.violations.contains { sameFailure($0) } == true
        print("\(confirmed ? "confirmed" : "NOT confirmed"): \(confirm.runDirectory): \(SuiteRunner.verdictWord(confirm))")
        var otherHeld = true
        if let other = holdsVariant {
            var o = options
            o.variant = other
            let run = ScenarioRunner(options: o).run()
            otherHeld = run.exitCode == 0
            print("\(other.rawValue) on it: \(run.runDirectory): \(SuiteRunner.verdictWord(run))")
        }
        if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
        try? FileManager.default.removeItem(atPath: workDir + "/runs")
        try? FileManager.default.removeItem(atPath: workDir)
        print("replay it: \(Harness.executableName) replay \(confirm.runDirectory)")
        if let other = holdsVariant {
            print("as a regression scenario: \(rerun)   (--variant \(other.rawValue) holds on it)")
        } else {
            print("as a regression scenario: \(rerun)   (check that the fixed variant holds on it, or shrink with --holds hardened)")
        }
        if !confirmed || !otherHeld { throw ExitCode(confirm.exitCode == 2 ? 2 : 1) }
    }

    /// `--out` may replace only a file this command wrote (its header says so), never another file.
    static func requireReplaceable(_ path: String) throws {
        // OutputFile's rules first (absent or a regular file, never a symlink, device or
        // directory, in a writable directory); then: an existing file must be one of ours.
        try Preflight.writableFile(path, what: "--out")
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let head = FileManager.default.contents(atPath: path)?.prefix(200),
            String(decoding: head, as: UTF8.self).hasPrefix("# " + header)
        else {
            throw InputError("--out \(path) exists and was not written by harness shrink; choose another path (nothing was replaced)")
        }
    }
}
