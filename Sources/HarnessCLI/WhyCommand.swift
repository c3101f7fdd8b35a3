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
        let start = events.first { $0.isHarnessLine("run_started") }?.t ?? 0
        let evidenceEnd = target.relevantEvents.map(\.t).max()

        // Every step is a candidate: untimed ones (failpoints, field-fault rules) first, then timed
        // ones by their distance from the last history line the checker cites — just before it
        // first, then just after it (a violation the history shows late, a session never settled,
        // may be caused after the lines cited), then further away.
        func distance(_ i: Int) -> (Int, Double, Int) {
            guard let at = input.steps[i].atSeconds else { return (0, 0, i) }
            guard let end = evidenceEnd else { return (1, -at, i) }
            let t = start + at
            return (1, t <= end ? end - t : (t - end) * 2, i)
        }
        let candidates = input.steps.indices.sorted { distance($0) < distance($1) }
        let signature = ShrinkInput.signature(target.explanation)
        func same(_ v: InvariantViolation) -> Bool { v.invariant == target.invariant && ShrinkInput.signature(v.explanation) == signature }

        let cpu = try CPUPinning.fromEnvironment()
        let runsDir = try Preflight.outputDirectory(runsDirectory)
        RunInterruption.install()
        _ = DeviceRootLease.sweep(runsDirectory: DeviceRootLease.managedRunsDirectory)
        let workDir = "\(runsDir)/why-\(input.scenarioName)-\(input.variant)-seed\(input.seed)-\(Int(Date().timeIntervalSince1970))-\(getpid())"
        try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
        let err = FileHandle.standardError
        func say(_ s: String) { err.write(Data((s + "\n").utf8)) }
        let trials = PinnedTrials(workDir: workDir, name: String((input.scenarioName + "-why").suffix(100)), binDirectory: bin, cpu: cpu)
        let all = Array(input.steps.indices)
        say("… why \(input.scenarioName) \(input.variant) seed \(input.seed) V\(number) \(target.invariant): \(candidates.count) candidate step(s); at most \(runBudget) runs\(budget.map { " in \($0)" } ?? "") -> \(workDir)")
        let t0 = Date()
        var runs = 0
        /// True when the run without `left` (none: with every step) still fails the same way.
        func stillFails(without left: [Int]) -> Bool? {
            if RunInterruption.signal != nil { return nil }
            runs += 1
            let kept = all.filter { !left.contains($0) }
            let verdict = trials.run(runs, input, kept, variant, say: say).map { $0.report?.violations.contains(where: same) == true }
            let word = verdict.map { $0 ? "still fails" : "holds" } ?? "undecided"
            let what = left.isEmpty ? "every step" : "without " + left.map { input.steps[$0].summary }.joined(separator: " and ")
            say(String(format: "  [run %d] %@: %@ — %.0f s", runs, what, word, Date().timeIntervalSince(t0)))
            return verdict
        }
        guard stillFails(without: []) == true else {
            if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
            throw InputError("\(dir): the run with all its \(input.steps.count) steps pinned did not violate \(target.invariant) the same way again\(trials.lastSetupError.map { " (\($0))" } ?? ""); its causes cannot be proven by reruns (\(workDir))")
        }
        let found = CauseSearch.run(
            candidates: candidates, maximumRuns: runBudget - runs, outOfTime: { RunInterruption.signal != nil || deadline.map { Date() >= $0 } ?? false },
            stillFails: { stillFails(without: $0) })
        let (proven, notNeeded, undecided, untried) = (found.proven, found.notNeeded, found.undecided, found.untried)
        if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }

        print("why: \(input.scenarioName) \(input.variant) seed \(input.seed), violation \(number): \(target.invariant)\(target.subject.map { " (\($0))" } ?? "")")
        print("  \(Excerpt.inner(target.explanation, limit: 300))")
        if let evidenceEnd { print("  the checker cites history lines up to \(ShrinkInput.clock(evidenceEnd - start))") }
        if proven.isEmpty && !found.together.isEmpty {
            print("proven causes: no one step alone; needed together (without both it holds, without either one it still fails):")
            for pair in found.together {
                print("  " + input.chronological(pair).map { Self.describe(input.steps[$0], events: events, start: start) }.joined(separator: "\n    and "))
            }
        } else if proven.isEmpty {
            let pairs = found.pairsComplete ? "nor any two together" : "and the pairs were not all tried (the budget ran out)"
            print("proven causes: none — no one step left out makes it go away, \(pairs) (it may come from the seed alone)")
        } else {
            print("proven causes (without each, it holds; every other step kept):")
            for i in input.chronological(proven) {
                let late = evidenceEnd.map { end in input.steps[i].atSeconds.map { start + $0 > end } ?? false } ?? false
                print("  \(Self.describe(input.steps[i], events: events, start: start))\(late ? " (after the last line the checker cites)" : "")")
            }
        }
        print("not needed: \(notNeeded.count) step(s) (without each, it still fails)")
        if !undecided.isEmpty { print("candidates not proven (their run was undecided): \(input.chronological(undecided).map { input.steps[$0].summary }.joined(separator: "; "))") }
        let ranOut = deadline.map { Date() >= $0 } ?? false ? "--budget \(budget ?? "")" : "--max-runs \(runBudget)"
        if !untried.isEmpty { print("candidates not proven (\(ranOut) ran out): \(untried.count) — \(input.chronological(untried).prefix(5).map { input.steps[$0].summary }.joined(separator: "; "))\(untried.count > 5 ? "; …" : "")") }
        print(String(format: "%d runs in %.0f s", runs, Date().timeIntervalSince(t0)))
        try? FileManager.default.removeItem(atPath: workDir + "/runs")
        if trials.undecided == 0 { try? FileManager.default.removeItem(atPath: workDir) }
    }

    /// A proven cause in the seed's terms: the step, and what the process it acted on was doing —
    /// its last history line before the step.
    static func describe(_ step: ShrinkInput.Step, events: [HistoryEvent], start: Double) -> String {
        guard let target = step.target else { return step.summary }
        let at = step.atSeconds.map { start + $0 }
        let before = events.last { e in e.process == target && (at.map { e.t <= $0 } ?? true) && !e.isHarnessLine("run_started") }
        guard let before else { return "\(step.summary) — \(target) had written no history line before it" }
        let fields = before.fields.keys.sorted().prefix(4).map { "\($0)=\(Excerpt.inner(before.fields[$0]!, limit: 40))" }.joined(separator: " ")
        return "\(step.summary) — \(target)'s last line before it: \(before.event)\(fields.isEmpty ? "" : " " + fields) at \(ShrinkInput.clock(before.t - start))"
    }
}
