import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import History
import Supervision

/// `harness why RUN_DIR`: which of a failing run's steps one violation depends on, each proven by
/// a rerun. The run's steps (`ShrinkInput`: user actions, nemesis faults, failpoints, field-fault
/// rules) are the candidates; each is left out in turn — the same seed, build and plan, every other
/// step pinned — and a candidate whose absence makes the violation go away is a proven (but-for)
/// cause. Steps after the last line the checker cites are candidates too: a violation the history
/// shows late (a session never settled) is often caused after what it cites.
struct WhyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Which steps a violation depends on: each candidate left out in a rerun of the same seed and plan; a proven cause is one without which it goes away.",
        discussion: """
            Reads RUN_DIR (history.jsonl, judged again; scenario.yaml; schedule.json) of a clock.mode: virtual run. The
            candidates are the run's steps (user actions, nemesis faults, failpoints, field-fault rules): failpoints and
            field faults first, then the steps nearest the last history line the violation cites (before it, then after
            it). First the run is repeated with every step pinned: it must fail
            the same way (the same invariant, an explanation equal but for its numbers). Then each candidate is left out
            in one run: the violation gone, it is a proven cause; still there, it is not needed. Causes are listed with
            the process they acted on and that process's last history line before them (what the step interrupted). When
            no one step is a cause, pairs of the steps not needed alone (the 10 nearest) are left out together: a pair
            without which it holds is listed as needed together ("A and B"). When --max-runs or --budget (wall time)
            runs out, the candidates left are listed as not proven. Exit codes: 0 done,
            2 bad input (a run that held, another build, no such violation) or a repeat that did not fail again.
            """)

    @Argument(help: "A failing run's directory (runs/<scenario>-<variant>-seed<n>-…).") var runDirectory: String
    @Option(help: "Which violation, by its number in the run's verdict (1 is the first; default 1).") var violation: String?
    @Option(name: .customLong("max-runs"), parsing: .unconditional, help: "At most this many runs, 2 or more (default 40): the repeat, then one per candidate.")
    var maxRuns: String?
    @Option(parsing: .unconditional, help: "At most this much wall time for the reruns (e.g. 30s, 5m); what it does not reach is listed as not proven.")
    var budget: String?
    @Option(
        name: .customLong("in-process"),
        help: "auto (default): each rerun's stand-ins inside a harness process of its own when the scenario allows it (faster), every proven cause confirmed by a rerun with real processes; none: every rerun with real processes.")
    var inProcess = "auto"
    @Option(name: .customLong("runs"), help: "Directory for the trials' run directories (each removed once judged).")
    var runsDirectory: String = "runs"

    static let maxRunsLimit = 10_000

    func run() throws {
        let dir = runDirectory.hasSuffix("/") ? String(runDirectory.dropLast()) : runDirectory
        var runBudget = 40
        if let maxRuns {
            guard let n = Int(maxRuns), (2...Self.maxRunsLimit).contains(n) else {
                throw InputError("--max-runs \(Excerpt.quoted(maxRuns)): use a whole number of runs, 2...\(Self.maxRunsLimit)")
            }
            runBudget = n
        }
        var deadline: Date?
        if let budget {
            guard let seconds = ScenarioDuration.seconds(from: budget), seconds > 0 else {
                throw InputError("--budget \(Excerpt.quoted(budget)): use a wall time like 30s or 5m (more than 0)")
            }
            deadline = Date().addingTimeInterval(Double(seconds))
        }
        guard inProcess == "auto" || inProcess == "none" else { throw InputError("--in-process \(Excerpt.quoted(inProcess)): takes auto or none") }
        var number = 1
        if let violation {
            guard let n = Int(violation), n >= 1 else { throw InputError("--violation \(Excerpt.quoted(violation)): use a violation's number, 1 or more") }
            number = n
        }
        let input: ShrinkInput
        do { input = try ShrinkInput.load(runDirectory: dir) } catch { throw InputError(error.description) }
        let judged = try CheckCommand.judgeAgain(dir)
        guard judged.decided else {
            throw InputError("\(dir) is undecided (\(Excerpt.inner(judged.undecidedReason ?? "no verdict", limit: 200))): there is no violation to explain; run it again")
        }
        guard !judged.violations.isEmpty else { throw InputError("\(dir) held every invariant: there is no violation to explain") }
        guard number <= judged.violations.count else {
            throw InputError("--violation \(number): \(dir) has \(judged.violations.count) violation(s); pass 1...\(judged.violations.count)")
        }
        let target = judged.violations[number - 1]
        let recorded = try ScenarioParser.load(path: dir + "/scenario.yaml", systems: HarnessCLI.catalog)
        let variant = try recorded.variant(named: input.variant)
        guard recorded.clock.mode == .virtual else { throw InputError("\(dir): why needs a clock.mode: virtual run (only those rerun exactly)") }
        let bin = Executables.directory
        try ReplayCommand.requireSameBuild(recorded: input.build, runDirectory: dir, system: recorded.system, binDirectory: bin, verb: "explain")
        let events = try CheckCommand.history(of: dir).events
        let cpu = try CPUPinning.fromEnvironment()
        let runsDir = try Preflight.outputDirectory(runsDirectory)
        RunInterruption.install()
        _ = DeviceRootLease.sweep(runsDirectory: DeviceRootLease.managedRunsDirectory)
        let workDir = "\(runsDir)/why-\(input.scenarioName)-\(input.variant)-seed\(input.seed)-\(Int(Date().timeIntervalSince1970))-\(getpid())"
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let err = FileHandle.standardError
        func say(_ s: String) { err.write(Data((s + "\n").utf8)) }
        let trials = PinnedTrials(workDir: workDir, name: String((input.scenarioName + "-why").suffix(100)), binDirectory: bin, cpu: cpu)
        trials.fast = inProcess == "auto"
        say("… why \(input.scenarioName) \(input.variant) seed \(input.seed) V\(number) \(target.invariant): \(input.steps.count) candidate step(s); at most \(runBudget) runs\(budget.map { " in \($0)" } ?? "") -> \(workDir)")
        let search = WhySearch(runDirectory: dir, input: input, events: events, variant: variant, trials: trials, say: say)
        let limit = "--max-runs \(runBudget)" + (budget.map { " or --budget \($0)" } ?? "")
        let found = search.explain(target, number: number, maximumRuns: runBudget, deadline: deadline, limit: limit)
        if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
        if let unprovable = found.unprovable { throw InputError("\(dir): \(unprovable) (\(workDir))") }

        print("why: \(input.scenarioName) \(input.variant) seed \(input.seed), violation \(number): \(target.invariant)\(target.subject.map { " (\($0))" } ?? "")")
        print("  \(Excerpt.inner(target.explanation, limit: 300))")
        if let end = target.relevantEvents.map(\.t).max() { print("  the checker cites history lines up to \(ShrinkInput.clock(end - search.start))") }
        if found.proven.isEmpty && !found.together.isEmpty {
            print("proven causes: no one step alone; needed together (without both it holds, without either one it still fails):")
            for pair in found.together { print("  " + pair.map(\.text).joined(separator: "\n    and ")) }
        } else if found.proven.isEmpty {
            let pairs = found.pairsComplete ? "nor any two together" : "and the pairs were not all tried (the budget ran out)"
            print("proven causes: none — no one step left out makes it go away, \(pairs) (it may come from the seed alone)")
        } else {
            print("proven causes (without each, it holds; every other step kept):")
            for c in found.proven { print("  \(c.text)") }
        }
        print("not needed: \(found.notNeeded) step(s) (without each, it still fails)")
        if !found.disagreed.isEmpty { print("candidates not proven (a rerun with real processes did not confirm the faster one): \(found.disagreed.joined(separator: "; "))") }
        if !found.undecided.isEmpty { print("candidates not proven (their run was undecided): \(found.undecided.joined(separator: "; "))") }
        let ranOut = deadline.map { Date() >= $0 } ?? false ? "--budget \(budget ?? "")" : "--max-runs \(runBudget)"
        if !found.untried.isEmpty { print("candidates not proven (\(ranOut) ran out): \(found.untried.count) — \(found.untried.prefix(5).joined(separator: "; "))\(found.untried.count > 5 ? "; …" : "")") }
        print(String(format: "%d runs in %.0f s", search.runsMade, search.seconds))
        // The run directory keeps what was proven (report.html shows it; the next `report` reads it).
        if let problem = WhySearch.record([found], runDirectory: dir) { say("… \(problem)") }
        try? FileManager.default.removeItem(atPath: workDir + "/runs")
        if trials.undecided == 0 { try? FileManager.default.removeItem(atPath: workDir) }
    }
}
