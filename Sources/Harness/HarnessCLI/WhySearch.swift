import AppGroup
import Foundation
import HarnessKit
import History
import RunReport
import Supervision

/// The reruns behind `harness why` and behind the proven causes `harness run` prints: a recorded
/// run's steps (`ShrinkInput`) left out one at a time (then in pairs), the same seed, build and
/// plan, every other step pinned (`CauseSearch`). One search serves every violation of the run: a
/// rerun's verdict answers for each of them, so a rerun one violation made is not made again for
/// the next.
final class WhySearch {
    let runDirectory: String
    let input: ShrinkInput
    let events: [HistoryEvent]
    let variant: ScenarioVariant
    let trials: PinnedTrials
    let say: (String) -> Void
    /// Device time of `run_started`.
    let start: Double
    private let t0 = Date()
    private var made = 0
    /// Each rerun's violations by the steps left out (sorted); nil: undecided.
    private var verdicts: [[Int]: [InvariantViolation]?] = [:]

    init(runDirectory: String, input: ShrinkInput, events: [HistoryEvent], variant: ScenarioVariant, trials: PinnedTrials, say: @escaping (String) -> Void) {
        self.runDirectory = runDirectory
        self.input = input
        self.events = events
        self.variant = variant
        self.trials = trials
        self.say = say
        start = events.first { $0.isHarnessLine("run_started") }?.t ?? 0
    }

    /// Every rerun made so far, and their wall time.
    var runsMade: Int { made }
    var seconds: Double { Date().timeIntervalSince(t0) }

    /// The violations of the rerun without `left` (none: every step pinned); nil when it could not
    /// be decided or the harness was told to stop. A rerun already made is not made again.
    /// With `processes`, the rerun's stand-ins are real processes even when the trials are fast
    /// (stand-ins inside a harness process): how a cause the fast reruns found is confirmed.
    func violations(without left: [Int], processes: Bool = false) -> [InvariantViolation]?? {
        let sorted = left.sorted()
        let key = sorted + (processes && trials.fast ? [-1] : [])
        if let known = verdicts[key] { return .some(known) }
        if RunInterruption.signal != nil { return nil }
        made += 1
        let kept = input.steps.indices.filter { !sorted.contains($0) }
        let result = trials.run(made, input, kept, variant, processes: processes, say: say).map(\.violations)
        verdicts[key] = .some(result)
        let what = sorted.isEmpty ? "every step" : "without " + sorted.map { input.steps[$0].summary }.joined(separator: " and ")
        say(String(format: "  [run %d%@] %@: %@ — %.0f s", made, key.last == -1 ? ", processes" : "", what, result.map { "\($0.count) violation(s)" } ?? "undecided", seconds))
        return .some(result)
    }

    /// Why `target` (violation `number` of the run) happened, within `maximumRuns` reruns (the
    /// repeat included) and before `deadline`; `limit` names the bound for the reader.
    func explain(_ target: InvariantViolation, number: Int, maximumRuns: Int, deadline: Date?, limit: String) -> ProvenCauses {
        var out = ProvenCauses(violation: number, invariant: target.invariant, subject: target.subject.map { "\($0.kind) \($0.id)" }, limit: limit)
        let began = Date()
        func finished() -> ProvenCauses {
            out.seconds = Date().timeIntervalSince(began)
            return out
        }
        let signature = ShrinkInput.signature(target.explanation)
        func same(_ v: InvariantViolation) -> Bool { v.invariant == target.invariant && ShrinkInput.signature(v.explanation) == signature }
        let evidenceEnd = target.relevantEvents.map(\.t).max()
        out.runs = 1
        /// True when the rerun without `left` still fails the same way; nil undecided.
        func stillFails(without left: [Int], processes: Bool = false) -> Bool? {
            guard case .some(let verdict) = violations(without: left, processes: processes) else { return nil }
            return verdict.map { $0.contains(where: same) }
        }
        func outOfTime() -> Bool { RunInterruption.signal != nil || deadline.map { Date() >= $0 } ?? false }
        guard stillFails(without: []) == true else {
            out.unprovable = RunInterruption.signal != nil ? "the harness was told to stop"
                : "the run with all its \(input.steps.count) steps pinned did not violate \(target.invariant) the same way again"
                    + (trials.lastSetupError.map { " (\($0))" } ?? "") + "; its causes cannot be proven by reruns"
            return finished()
        }
        // A rerun already made (the repeat, another violation's) is read again, not made again.
        var found = CauseSearch.run(
            candidates: candidates(for: target), maximumRuns: max(0, maximumRuns - 1), outOfTime: outOfTime, known: { self.verdicts[$0.sorted()] != nil },
            stillFails: { stillFails(without: $0) })
        // Fast reruns (stand-ins inside the harness) found them: each is proven only when a rerun
        // with real processes holds too — run past the budget, as the proof of what is printed.
        if trials.fast {
            for c in found.proven where stillFails(without: [c], processes: true) != false {
                found.proven.removeAll { $0 == c }
                out.disagreed.append(input.steps[c].summary)
            }
            for pair in found.together where stillFails(without: pair, processes: true) != false {
                found.together.removeAll { $0 == pair }
                out.disagreed.append(pair.map { input.steps[$0].summary }.joined(separator: " and "))
            }
        }
        func cause(_ i: Int) -> ProvenCauses.Cause {
            let step = input.steps[i]
            let late = evidenceEnd.map { end in step.atSeconds.map { start + $0 > end } ?? false } ?? false
            let at = line(of: step, index: i)
            return ProvenCauses.Cause(step: step.summary, interrupted: interrupted(step, line: at), line: at, afterEvidence: late)
        }
        out.proven = input.chronological(found.proven).map(cause)
        out.together = found.together.map { input.chronological($0).map(cause) }
        out.notNeeded = found.notNeeded.count
        out.undecided = input.chronological(found.undecided).map { input.steps[$0].summary }
        out.untried = input.chronological(found.untried).map { input.steps[$0].summary }
        out.pairsComplete = found.pairsComplete
        out.runs += found.read
        return finished()
    }

    /// Every step is a candidate: untimed ones (failpoints, field-fault rules) first, then timed
    /// ones by their distance from the last history line the checker cites — just before it
    /// first, then just after it (a violation the history shows late, a session never settled,
    /// may be caused after the lines cited), then further away.
    /// A user action counts twice as far as a fault: the chaos (kills, stops, failpoints, field
    /// faults) is what a developer chases; the user's setup (selecting apps) is often needed too,
    /// and found when the budget reaches it.
    func candidates(for target: InvariantViolation) -> [Int] {
        let evidenceEnd = target.relevantEvents.map(\.t).max()
        func distance(_ i: Int) -> (Int, Double, Int) {
            guard let at = input.steps[i].atSeconds else { return (0, 0, i) }
            guard let end = evidenceEnd else { return (1, -at, i) }
            let t = start + at
            let d = t <= end ? end - t : (t - end) * 2
            return (1, input.steps[i].kind == .action ? d * 2 : d, i)
        }
        return input.steps.indices.sorted { distance($0) < distance($1) }
    }

    /// Several violations of the run at once, within one `deadline`: the steps are left out one at
    /// a time first, taken in turn from each violation's order (one rerun answers for all of them),
    /// then each violation's search goes on (pairs) with what is left.
    func explainAll(_ targets: [(number: Int, violation: InvariantViolation)], deadline: Date, limit: String) -> [ProvenCauses] {
        if targets.count > 1, case .some(.some) = violations(without: []) {
            let orders = targets.map { candidates(for: $0.violation) }
            var seen = Set<Int>()
            var merged: [Int] = []
            for k in 0..<(orders.map(\.count).max() ?? 0) {
                for order in orders where k < order.count && seen.insert(order[k]).inserted { merged.append(order[k]) }
            }
            for c in merged {
                if RunInterruption.signal != nil || Date() >= deadline { break }
                _ = violations(without: [c])
            }
        }
        return targets.map { explain($0.violation, number: $0.number, maximumRuns: WhyCommand.maxRunsLimit, deadline: deadline, limit: limit) }
    }

    /// What the process a step acted on was doing: its last history line before the step — before
    /// the step's own `line` when known (a failpoint has no time of its own), else before its time.
    func interrupted(_ step: ShrinkInput.Step, line: Int?) -> String? {
        guard let target = step.target else { return nil }
        let at = step.atSeconds.map { start + $0 }
        let earlier = line.map { events[..<min(events.count, max(0, $0 - 1))] } ?? events[...]
        let before = earlier.last { e in e.process == target && (at.map { e.t <= $0 } ?? true) && !e.isHarnessLine("run_started") }
        guard let before else { return "\(target) had written no history line before it" }
        let fields = before.fields.keys.sorted().prefix(4).map { "\($0)=\(Excerpt.inner(before.fields[$0]!, limit: 40))" }.joined(separator: " ")
        return "\(target)'s last line before it: \(before.event)\(fields.isEmpty ? "" : " " + fields) at \(ShrinkInput.clock(before.t - start))"
    }

    /// The 1-based history.jsonl line where `step` shows: the harness's signal to its target, the
    /// user action at its instant, the first line the field-fault rule made, the failpoint firing.
    func line(of step: ShrinkInput.Step, index: Int) -> Int? {
        let harness = HistoryEvent.harnessProcessName
        let at = step.atSeconds.map { start + $0 }
        let found: Int?
        switch step.kind {
        case .fault:
            found = events.firstIndex { e in
                e.process == harness && (e.event == "signal" || e.event == "fault_skipped") && e["by"] != "ios" && e["target"] == step.target
                    && at.map { abs(e.t - $0) < 1 } ?? false
            }
        case .action:
            found = events.firstIndex { e in e.process == harness && e.event == "user_action" && at.map { abs(e.t - $0) < 1 } ?? false }
        case .fieldFault:
            let rule = String(step.summary.prefix { $0 != " " })
            found = events.firstIndex { e in e.process == harness && e["rule"] == rule }
        case .failpoint:
            let label = String(step.summary.dropFirst("failpoint ".count).prefix { $0 != "=" })
            found = events.firstIndex { e in e.event == "failpoint" && (e["label"].map { label.hasPrefix($0) || $0.hasPrefix(label) } ?? false) }
        }
        return found.map { $0 + 1 }
    }

    /// Keeps `found` in the run directory's why.json (replacing what an earlier search said of the
    /// same violations) and draws its report.html again with them; a problem, in one line, or nil.
    static func record(_ found: [ProvenCauses], runDirectory dir: String) -> String? {
        let path = dir + "/" + WhyRecord.fileName
        var record = (try? Data(contentsOf: URL(fileURLWithPath: path))).flatMap { try? JSONDecoder().decode(WhyRecord.self, from: $0) } ?? WhyRecord(explained: [])
        let numbers = Set(found.map(\.violation))
        record.explained = (record.explained.filter { !numbers.contains($0.violation) } + found).sorted { $0.violation < $1.violation }
        do { try record.write(runDirectory: dir) } catch { return "\(path) not written: \(error)" }
        guard FileManager.default.fileExists(atPath: dir + "/report.html") else { return nil }
        do { _ = try RunReportPage.write(runDirectory: dir) } catch { return "\(dir)/report.html not drawn again: \(error)" }
        return nil
    }
}

/// `harness run --why-budget`: after the runs, the first violation of each invariant (per system
/// and variant, across the invocation) explained by reruns, within a wall-time budget per failing
/// run (its violations share the reruns).
enum WhyBudget {
    /// About ten reruns of a FocusPledge run with its stand-ins inside the harness (~0.9 s each on
    /// 2 cores), four with real processes: the repeat, then the field-fault rules and failpoints
    /// (the steps most often behind a violation), then the steps nearest its evidence. `harness
    /// why` goes on from there.
    static let defaultText = "10s"
    static let maximumSeconds = 3600

    /// Where the default comes from when `--why-budget` is not given (CI that wants no reruns, or
    /// more: `HARNESS_WHY_BUDGET=0`, `=30s`).
    static let environmentVariable = "HARNESS_WHY_BUDGET"

    /// The budget's text: the flag, else the environment's, else the default.
    static func text(_ flag: String?) -> String { flag ?? ProcessInfo.processInfo.environment[environmentVariable] ?? defaultText }

    /// The budget in seconds; nil: none (`0`, `off`).
    static func seconds(_ flag: String?) throws -> Int? {
        let t = text(flag)
        if t == "0" || t == "off" { return nil }
        guard let s = ScenarioDuration.seconds(from: t), s > 0, s <= maximumSeconds else {
            let source = flag == nil ? "$\(environmentVariable)=" : "--why-budget "
            throw InputError("\(source)\(Excerpt.quoted(t)): use a wall time like 5s or 1m (at most 1h), or 0 (or off) for none")
        }
        return s
    }

    /// Proven causes per run directory. Each explained run's why.json is written and its
    /// report.html drawn again; a run at a fixed clock rate is listed as not provable.
    static func explain(
        _ results: [SuiteRunner.Result], seconds: Int, text: String, outputDirectory: String, cpu: CPUPinning.Choice, printer: ProgressPrinter
    ) -> [String: [ProvenCauses]] {
        var seen: [String: String] = [:]
        var out: [String: [ProvenCauses]] = [:]
        let limit = "--why-budget \(text) a run"
        for r in results where r.outcome.exitCode == 1 {
            if RunInterruption.signal != nil { break }
            guard let report = r.outcome.report else { continue }
            let dir = r.outcome.runDirectory
            var wanted: [(Int, InvariantViolation)] = []
            var elsewhere: [ProvenCauses] = []
            for (n, v) in zip(1..., report.violations) {
                let key = "\(r.case.scenario.system.id)|\(r.case.variant.rawValue)|\(v.invariant)"
                if let first = seen[key] {
                    guard first != dir else { continue }
                    var p = ProvenCauses(violation: n, invariant: v.invariant, subject: v.subject.map { "\($0.kind) \($0.id)" }, limit: limit)
                    p.elsewhere = first
                    elsewhere.append(p)
                } else {
                    seen[key] = dir
                    wanted.append((n, v))
                }
            }
            // One line per invariant explained in an earlier run: where to read it.
            out[dir] = Dictionary(grouping: elsewhere, by: \.invariant).values.compactMap { $0.min { $0.violation < $1.violation } }
            guard !wanted.isEmpty else { continue }
            func unprovable(_ why: String) -> [ProvenCauses] {
                wanted.map { n, v in
                    var p = ProvenCauses(violation: n, invariant: v.invariant, subject: v.subject.map { "\($0.kind) \($0.id)" }, limit: limit)
                    p.unprovable = why
                    return p
                }
            }
            var found: [ProvenCauses]
            if r.case.scenario.clock.mode != .virtual {
                found = unprovable("a clock.mode: fixed run does not rerun exactly (reruns need clock.mode: virtual)")
            } else {
                do {
                    let input = try ShrinkInput.load(runDirectory: dir)
                    let events = try CheckCommand.history(of: dir).events
                    let workDir = outputDirectory + "/why-" + WatchFeed.lastComponent(dir)
                    try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
                    let trials = PinnedTrials(workDir: workDir, name: String((input.scenarioName + "-why").suffix(100)), binDirectory: Executables.directory, cpu: cpu)
                    trials.fast = true
                    let search = WhySearch(runDirectory: dir, input: input, events: events, variant: r.case.variant, trials: trials, say: { _ in })
                    printer.message("… proving the causes of \(wanted.count) violation(s) of \(r.case.scenario.name) \(r.case.variant.rawValue) seed \(r.case.seed) (reruns, at most \(text))")
                    found = search.explainAll(wanted.map { ($0.0, $0.1) }, deadline: Date().addingTimeInterval(Double(seconds)), limit: limit)
                    try? FileManager.default.removeItem(atPath: trials.undecided == 0 ? workDir : workDir + "/runs")
                } catch {
                    found = unprovable("\(error)")
                }
            }
            if let problem = WhySearch.record(found, runDirectory: dir) { printer.message("… \(problem)") }
            out[dir, default: []] += found
        }
        return out
    }
}
