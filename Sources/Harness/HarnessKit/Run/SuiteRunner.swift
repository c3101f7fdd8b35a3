import AppGroup
import Foundation

/// Runs scenario × variant × seed combinations one after the other and summarises them:
/// a table for people, JUnit for CI.
package enum SuiteRunner {
    package struct Case: Sendable {
        package var scenarioPath: String
        package var scenario: Scenario
        package var variant: ScenarioVariant
        package var seed: UInt64
        /// Where the case sits in a sharded suite (`Shard.facts`), recorded in its `run_started` so
        /// `harness merge` can tell a missing or repeated shard.
        package var shardFacts: [String: String] = [:]

        package init(scenarioPath: String, scenario: Scenario, variant: ScenarioVariant, seed: UInt64) {
            self.scenarioPath = scenarioPath
            self.scenario = scenario
            self.variant = variant
            self.seed = seed
        }
    }

    package struct Result: Sendable {
        package var `case`: Case
        package var outcome: ScenarioRunner.Outcome
    }

    package static func run(
        _ cases: [Case], durationOverride: Duration?, outputDirectory: String, binDirectory: String,
        progress: @escaping @Sendable (String) -> Void, deviceRoot: String? = nil, profileDirectory: String? = nil, failpoints: [Failpoint] = [],
        recordCrashPoints: Bool = false, cpu: CPUPinning.Choice = .off, inProcess: InProcessScope = .none, userRetry: UserRetry? = nil,
        onStart: (Int, Case) -> Void = { _, _ in },
        tick: (@Sendable (RunProgress) -> Void)? = nil, onResult: (Result) -> Void
    ) -> [Result] {
        var out: [Result] = []
        for (i, c) in cases.enumerated() {
            // A stop signal ends the suite after the case it interrupted (RunInterruption).
            if RunInterruption.signal != nil { break }
            var options = ScenarioRunner.Options(
                scenario: c.scenario, scenarioPath: c.scenarioPath, variant: c.variant, seed: c.seed,
                durationOverride: durationOverride, outputDirectory: outputDirectory, binDirectory: binDirectory, progress: progress,
                deviceRoot: deviceRoot, tick: tick)
            options.failpoints = failpoints
            options.recordCrashPoints = recordCrashPoints
            options.cpu = cpu
            options.inProcess = inProcess
            options.userRetry = userRetry
            options.extraRunFacts = c.shardFacts
            options.profileDirectory = profileDirectory
            let runner = ScenarioRunner(options: options)
            onStart(i, c)
            progress("[\(i + 1)/\(cases.count)] \(c.scenario.name) \(c.variant.rawValue) seed \(c.seed) (device root \(runner.deviceRootPath)) ...")
            let r = Result(case: c, outcome: runner.run())
            onResult(r)
            out.append(r)
        }
        return out
    }

    package static func verdictWord(_ o: ScenarioRunner.Outcome) -> String { verdict(o) }

    /// The line printed as each run ends. Work iOS lost (a user action whose callback was dropped
    /// or killed, `report.lostByOS`) is said here too, so a PASS never hides it. The
    /// report.html written for the run ends it.
    package static func resultLine(_ o: ScenarioRunner.Outcome) -> String {
        var parts = ["\(o.killsAndStops) kills/stops"]
        if let lost = o.report?.lostByOS, !lost.isEmpty {
            parts.append("\(lost.count) user action\(lost.count == 1 ? "" : "s") lost by iOS (report.json lostByOS)")
        }
        let idle = o.report?.faultRulesNeverFired ?? []
        if !idle.isEmpty {
            parts.append("fault rule\(idle.count == 1 ? "" : "s") armed, never fired: " + idle.map(\.rule).joined(separator: ", "))
        }
        if let beats = o.report?.heartbeats.flatMap(HeartbeatVerdict.summary) { parts.append(beats) }
        parts.append("\(o.historyEvents) history events")
        parts.append(String(format: "%.1f s", o.wallSeconds))
        return "\(verdict(o)): " + parts.joined(separator: ", ") + " -> \(o.runDirectory)" + (o.reportPage.map { " (report: \($0))" } ?? "")
    }

    static func verdict(_ o: ScenarioRunner.Outcome) -> String {
        switch o.exitCode {
        case 0: return "PASS"
        case 1: return "VIOLATION"
        default: return o.report?.interruption != nil ? "INTERRUPTED" : (o.report?.tampered != nil ? "TAMPERED" : "UNDECIDED")
        }
    }

    package static func table(_ results: [Result]) -> String {
        let header = [
            "scenario", "variant", "seed", "verdict", "faults", "checked", "violated invariants", "latency p50/p99 ms (first series)",
            "heartbeats deaths/detected/false", "wall s",
        ]
        var rows: [[String]] = []
        for r in results {
            let rep = r.outcome.report
            let sessions = rep?.results.map(\.checkedCount).max().map(String.init) ?? "-"
            let lat: String
            if let l = rep?.latencies.first, l.count > 0, let p50 = l.p50Micros, let p99 = l.p99Micros {
                lat = String(format: "%@ %.2f / %.2f (n=%d)", l.name, p50 / 1000, p99 / 1000, l.count)
            } else { lat = "-" }
            let kinds = rep.map { Set($0.violations.map(\.invariant)).sorted().joined(separator: ",") } ?? (r.outcome.setupError ?? "")
            let beats = rep?.heartbeats.map { v in
                "\(v.reduce(0) { $0 + $1.deaths })/\(v.reduce(0) { $0 + $1.detected })/\(v.reduce(0) { $0 + $1.falseAlarms })"
            } ?? "-"
            rows.append([
                r.case.scenario.name, r.case.variant.rawValue, String(r.case.seed), verdict(r.outcome),
                String(r.outcome.killsAndStops), sessions, kinds.isEmpty ? "-" : kinds, lat, beats, String(format: "%.1f", r.outcome.wallSeconds),
            ])
        }
        return TextTable.render(header, rows)
    }

    package static func junit(_ results: [Result], suiteName: String) -> JUnitReport {
        var cases: [JUnitReport.TestCase] = []
        for r in results {
            cases.append(testCase(
                scenario: r.case.scenario.name, variant: r.case.variant.rawValue, seed: r.case.seed, report: r.outcome.report,
                setupError: r.outcome.setupError, runDirectory: r.outcome.runDirectory, wallSeconds: r.outcome.wallSeconds,
                faults: r.outcome.killsAndStops))
        }
        return JUnitReport(suiteName: suiteName, testCases: cases)
    }

    /// One run's testcase: `harness run` and `harness merge` name and judge runs alike.
    package static func testCase(
        scenario: String, variant: String, seed: UInt64, report: CheckReport?, setupError: String?, runDirectory: String,
        wallSeconds: Double, faults: Int
    ) -> JUnitReport.TestCase {
        var failure: JUnitReport.Failure?
        if let err = setupError {
            failure = .init(.error, message: "could not decide: \(err)", text: "run directory: \(runDirectory)", type: "undecided")
        } else if let rep = report, !rep.decided {
            // Not the app's failure: CI dashboards must not count it as one.
            let type = rep.interruption != nil ? "interrupted" : rep.tampered != nil ? "tampered" : "undecided"
            failure = .init(.error, message: "could not decide: \(rep.undecidedReason ?? "undecided")", text: rep.humanSummary() + "\nrun directory: \(runDirectory)", type: type)
        } else if let rep = report, let first = rep.violations.first {
            failure = .init(message: "\(first.invariant): \(first.explanation)", text: rep.humanSummary() + "\nrun directory: \(runDirectory)")
        } else if report == nil {
            failure = .init(.error, message: "could not decide: no report", text: "run directory: \(runDirectory)", type: "undecided")
        }
        return .init(
            name: "\(scenario) [\(variant)] seed \(seed)", classname: "ScreenTimeHarness.\(scenario)", timeSeconds: wallSeconds,
            failure: failure, systemOut: "faults=\(faults) history=\(runDirectory)/history.jsonl")
    }
}
