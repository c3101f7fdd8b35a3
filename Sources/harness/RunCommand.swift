import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import Supervision
import SystemRegistry

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario (or, with no SCENARIO, the bundled suite) against real stand-in processes under seeded chaos.",
        discussion: """
            Exit codes: 0 every invariant held, 1 a violation (explained, with the command that reruns it), 2 could not decide.
            With no SCENARIO the bundled suite runs (every system's Sources/Systems/<Name>/scenarios/*.yaml, every
            listed variant); then the
            exit code is decided by the hardened variants: as-written variants follow the seeds literally and
            their violations are reported as findings.
            """)

    @Argument(help: "Scenario file (YAML). Default: the bundled suite.") var scenario: String?
    @Option(help: "as-written or hardened (default: every variant the scenario lists).") var variant: String?
    @Option(help: "Seed of the workload and fault schedule.") var seed: UInt64 = 1
    @Option(help: "Run a range of seeds, e.g. 1-20 (overrides --seed).") var seeds: String?
    @Option(help: "Device time the workload covers, e.g. 2h or 90m (default: the scenario's).") var duration: String?
    @Option(help: "Write a JUnit XML report here.") var junit: String?
    @Option(help: "Directory for run directories (history.jsonl, traces, schedule.json, report.json).") var out: String = "runs"

    func seedList() throws -> [UInt64] {
        guard let seeds else { return [seed] }
        let parts = seeds.split(separator: "-").map { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let a = parts[0], let b = parts[1], a <= b, b - a < 10_000 else {
            throw ValidationError("--seeds takes a range like 1-20 (at most 10000 seeds)")
        }
        return Array(a...b)
    }

    /// `Sources/Systems` of the checkout: from the working directory, else next to the build.
    static func systemsDirectory() -> String? {
        let candidates = ["Sources/Systems", Executables.directory + "/../../../Sources/Systems"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Every pack's bundled scenarios, sorted.
    static func suite() throws -> [String] {
        guard let dir = systemsDirectory() else {
            throw ValidationError("no SCENARIO given and no Sources/Systems directory found (run from the checkout)")
        }
        var paths: [String] = []
        for system in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() {
            let scenarios = "\(dir)/\(system)/scenarios"
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: scenarios) else { continue }
            paths += names.filter { $0.hasSuffix(".yaml") }.sorted().map { "\(scenarios)/\($0)" }
        }
        guard !paths.isEmpty else { throw ValidationError("\(dir)/*/scenarios holds no .yaml scenarios") }
        return paths
    }

    func run() throws {
        let seedValues = try seedList()
        var durationOverride: Duration?
        if let duration {
            guard let s = ScenarioDuration.seconds(from: duration), s > 0 else { throw ValidationError("--duration: use e.g. 90s, 15m, 2h, 1h30m") }
            durationOverride = .seconds(s)
        }
        var paths: [String] = []
        let isSuite = scenario == nil
        if let scenario {
            paths = [scenario]
        } else {
            paths = try Self.suite()
        }
        var cases: [SuiteRunner.Case] = []
        for p in paths {
            let sc: Scenario
            do { sc = try ScenarioParser.load(path: p, systems: SystemRegistry.catalog) } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(2)
            }
            let variants: [ScenarioVariant]
            if let variant {
                do { variants = [try sc.variant(named: variant)] } catch {
                    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                    throw ExitCode(2)
                }
            } else {
                variants = sc.variants
            }
            for v in variants { for s in seedValues { cases.append(.init(scenarioPath: p, scenario: sc, variant: v, seed: s)) } }
        }
        let bin = Executables.directory
        let executables = Set(cases.flatMap { $0.scenario.system.descriptor.roles.map(\.executable) })
        for name in executables.sorted() {
            guard FileManager.default.isExecutableFile(atPath: bin + "/" + name) else {
                FileHandle.standardError.write(Data("error: \(bin)/\(name) is missing; build all products first (swift build -c release)\n".utf8))
                throw ExitCode(2)
            }
        }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let outDir = (out as NSString).standardizingPath.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out
        let results = SuiteRunner.run(
            cases, durationOverride: durationOverride, outputDirectory: outDir, binDirectory: bin,
            progress: { FileHandle.standardError.write(Data("… \($0)\n".utf8)) },
            onResult: { r in
                let o = r.outcome
                let verdict = o.exitCode == 0 ? "PASS" : (o.exitCode == 1 ? "VIOLATION" : "UNDECIDED")
                FileHandle.standardError.write(Data("  \(verdict): \(o.killsAndStops) kills/stops, \(o.historyEvents) history events, \(String(format: "%.1f", o.wallSeconds)) s -> \(o.runDirectory)\n".utf8))
            })
        print(SuiteRunner.table(results))
        for r in results where r.outcome.exitCode != 0 {
            print("")
            print("── \(r.case.scenario.name) [\(r.case.variant.rawValue)] seed \(r.case.seed): \(r.outcome.exitCode == 1 ? "invariant violated" : "could not decide")")
            if let e = r.outcome.setupError { print("   \(e)") }
            if let rep = r.outcome.report { print(rep.humanSummary()) }
            print("   rerun: \(r.outcome.rerunCommand)")
            print("   history: \(r.outcome.runDirectory)/history.jsonl")
        }
        if let junit {
            do { try SuiteRunner.junit(results, suiteName: "ScreenTimeHarness").write(toPath: junit) } catch {
                FileHandle.standardError.write(Data("error: cannot write JUnit report \(junit): \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
        let considered = isSuite ? results.filter { $0.case.variant == .hardened } : results
        let undecided = results.contains { $0.outcome.exitCode == 2 }
        if undecided { throw ExitCode(2) }
        if considered.contains(where: { $0.outcome.exitCode == 1 }) { throw ExitCode(1) }
        if isSuite {
            let findings = results.filter { $0.case.variant != .hardened && $0.outcome.exitCode == 1 }.count
            if findings > 0 { print("\nas-written variants: \(findings) run(s) with violations — the seeds' own bugs (see above); hardened held.") }
        }
    }
}
