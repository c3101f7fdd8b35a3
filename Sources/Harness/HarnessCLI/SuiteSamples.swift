import Foundation
import HarnessKit
import Supervision

/// The suite's crash-point samples: an entry of harness/suite.yaml with `explore: each-label-once`
/// explores each of its scenario x variant x seed as `harness explore --each-label-once` does —
/// one run per kind of crash point, the process killed there — within its `budget` of wall time,
/// after the suite's runs. Their violations are findings like the runs' (a gated variant's fail
/// the job); what the budget did not reach is said, with the command that goes on.
enum SuiteSamples {
    struct Sample: Sendable {
        var `case`: SuiteRunner.Case
        var budgetSeconds: Int
    }

    struct Outcome: Sendable {
        var sample: Sample
        var result: CrashPointExplorer.Result
        /// The exploration's directory (explore.json: `harness explore --resume` goes on from it).
        var directory: String
        var name: String { "\(sample.case.scenario.name) \(sample.case.variant.rawValue) seed \(sample.case.seed)" }
    }

    static func run(
        _ samples: [Sample], outputDirectory: String, durationOverride: Duration?, cpu: CPUPinning.Choice, jobs: Int,
        message: @escaping @Sendable (String) -> Void
    ) -> [Outcome] {
        var out: [Outcome] = []
        for (i, s) in samples.enumerated() {
            if RunInterruption.signal != nil { break }
            let c = s.case
            let stamp = Int(Date().timeIntervalSince1970)
            let dir = "\(outputDirectory)/explore-\(c.scenario.name)-\(c.variant.rawValue)-seed\(c.seed)-\(stamp)-\(getpid())"
            var options = ScenarioRunner.Options(
                scenario: c.scenario, scenarioPath: c.scenarioPath, variant: c.variant, seed: c.seed, durationOverride: durationOverride,
                outputDirectory: dir, binDirectory: Executables.directory, progress: { _ in })
            options.cpu = cpu
            // As explore's default (auto): the stand-ins inside the harness where the scenario
            // allows it and the un-killed run is the same run as with processes.
            options.inProcess = InProcessScope.all.refusal(scenario: c.scenario, failpoints: options.failpoints) == nil ? .all : .none
            message("explore sample \(i + 1)/\(samples.count): \(Self.name(c)), each label's first pass, \(s.budgetSeconds) s at most ...")
            let result = CrashPointExplorer.explore(
                options, maxPoints: nil, jobs: jobs, eachLabelOnce: true, budgetSeconds: Double(s.budgetSeconds), progress: { _ in })
            let record = ExploreRecord(
                result: result, options: options, maxPoints: nil, eachLabelOnce: true, shard: nil,
                complete: RunInterruption.signal == nil && result.findings.count == result.chosen.count)
            do { try record.write(toDirectory: dir) } catch { message("\(dir)/\(ExploreRecord.fileName) not written: \(error)") }
            let o = Outcome(sample: s, result: result, directory: dir)
            message("  \(Self.line(o))")
            out.append(o)
        }
        return out
    }

    static func name(_ c: SuiteRunner.Case) -> String { "\(c.scenario.name) \(c.variant.rawValue) seed \(c.seed)" }

    /// The invariants the sample's run without a kill (its enumeration) already violates.
    static func unkilled(_ r: CrashPointExplorer.Result) -> Set<String> { Set(r.enumeration.report?.violations.map(\.invariant) ?? []) }

    /// A violated point's invariants beyond those the run without a kill violates: what the kill
    /// found (empty: the point only repeats the run's own violations).
    static func beyond(_ f: CrashPointExplorer.Finding, _ r: CrashPointExplorer.Result) -> [String] {
        f.invariants.filter { !unkilled(r).contains($0) }
    }

    /// One line: what the sample explored and found.
    static func line(_ o: Outcome) -> String {
        let r = o.result
        if r.enumeration.exitCode == 2 {
            return "\(o.name): its run without a kill could not be decided (\(r.enumeration.setupError ?? r.enumeration.report?.undecidedReason ?? "undecided"))"
        }
        let left = r.chosen.count - r.findings.count
        return "\(o.name): \(r.findings.count) of \(r.chosen.count) labels explored in \(String(format: "%.1f", r.wallSeconds)) s: \(CrashPointExplorer.counts(r.findings))"
            + (left > 0 && r.stoppedByBudget ? "; \(left) not reached by the \(o.sample.budgetSeconds) s budget" : "")
    }

    /// The samples' table, after the runs'.
    static func table(_ outcomes: [Outcome]) -> String {
        let header = ["sample", "variant", "seed", "labels", "explored", "held", "violated", "beyond the run", "not reached", "undecided", "budget left", "wall s"]
        let rows = outcomes.map { o -> [String] in
            let r = o.result, f = r.findings
            func n(_ v: CrashPointExplorer.Verdict) -> String { String(f.filter { $0.verdict == v }.count) }
            let undecided = r.enumeration.exitCode == 2 ? "enumeration" : n(.undecided)
            return [o.sample.case.scenario.name, o.sample.case.variant.rawValue, String(o.sample.case.seed), String(r.chosen.count), String(f.count),
                n(.held), n(.violated), String(f.filter { !beyond($0, r).isEmpty }.count), n(.notReached), undecided, r.stoppedByBudget ? String(r.chosen.count - f.count) : "-",
                String(format: "%.1f", r.wallSeconds)]
        }
        return TextTable.render(header, rows)
    }

    /// What did not hold, per sample, with the commands that rerun a point and go on with the sample.
    static func details(_ outcomes: [Outcome]) -> [String] {
        var lines: [String] = []
        for o in outcomes {
            let r = o.result, already = unkilled(r)
            // A point that only repeats the run's own violations says nothing new: counted, not listed.
            let listed = r.findings.filter { $0.verdict != .held && ($0.verdict != .violated || !beyond($0, r).isEmpty) }
            let repeats = r.findings.filter { $0.verdict == .violated && beyond($0, r).isEmpty }.count
            let undecidedEnumeration = r.enumeration.exitCode == 2
            let cut = r.stoppedByBudget && r.findings.count < r.chosen.count
            guard !listed.isEmpty || repeats > 0 || undecidedEnumeration || cut else { continue }
            lines.append("")
            lines.append("── explore sample \(Self.line(o))")
            if undecidedEnumeration { lines.append("   run directory: \(r.enumeration.runDirectory)") }
            if !already.isEmpty {
                lines.append("   its run without a kill already violates \(already.sorted().joined(separator: ", "))"
                    + (repeats > 0 ? "; \(repeats) point(s) violated only those (not listed)" : "") + "; rerun: \(r.enumeration.rerunCommand)")
            }
            for f in listed {
                // As explore prints a point, with what the kill added.
                var block = CrashPointExplorer.notHeld([f], history: true)
                let new = beyond(f, r)
                if !new.isEmpty && !already.isEmpty { block[0] += " (beyond the run without a kill: \(new.joined(separator: ", ")))" }
                lines += block.map { "   " + $0 }
            }
            if cut {
                lines.append("   the rest: \(Harness.executableName) explore --resume \(o.directory) \(o.sample.case.scenarioPath) --variant \(o.sample.case.variant.rawValue) --seed \(o.sample.case.seed) --each-label-once")
            }
        }
        return lines
    }

    /// One testcase per explored point (as `harness explore --junit`), named by its sample.
    static func testCases(_ outcomes: [Outcome]) -> [JUnitReport.TestCase] {
        outcomes.flatMap { o in
            CrashPointExplorer.junit(o.result, scenario: o.sample.case.scenario.name, variant: o.sample.case.variant.rawValue, seed: o.sample.case.seed).testCases
        }
    }

    /// The exit code the samples of gated variants ask for: 2 when one could not be decided (its
    /// enumeration, or a point undecided or not reached), 1 when one violated, else 0.
    static func exitCode(_ outcomes: [Outcome], gate: [String]?) -> Int32 {
        let gated = outcomes.filter { gate?.contains($0.sample.case.variant.rawValue) ?? true }
        if gated.contains(where: { $0.result.enumeration.exitCode == 2 || $0.result.findings.contains { $0.verdict == .undecided || $0.verdict == .notReached } }) {
            return 2
        }
        return gated.contains { $0.result.findings.contains { $0.verdict == .violated } || $0.result.enumeration.exitCode == 1 } ? 1 : 0
    }

    /// Samples of the other variants with a violation: findings, listed, not failing the job.
    static func findings(_ outcomes: [Outcome], gate: [String]?) -> Int {
        guard let gate else { return 0 }
        return outcomes.filter {
            !gate.contains($0.sample.case.variant.rawValue) && ($0.result.findings.contains { $0.verdict == .violated } || $0.result.enumeration.exitCode == 1)
        }.count
    }
}
