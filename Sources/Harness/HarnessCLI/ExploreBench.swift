import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import History
import Supervision


#if canImport(Glibc)
import Glibc
#endif

/// `harness bench explore`: `harness explore`'s rate on the first N crash points of a scenario,
/// beside the rate its runs allow, measured in the same run: one run of the scenario costs C
/// CPU-seconds (the harness and every process it starts, `getrusage`), so a perfect explorer of
/// real processes — every CPU busy, nothing spent beyond the runs — explores CPUs x 60 / C points
/// per minute. The ratio of the two says how much of the gap is explore's own (scheduling, idle
/// waits) and how much is the cost of one run; the target (1,000 points per minute on 2
/// CPUs) asks for a run of at most CPUs x 60 / 1000 CPU-seconds.
struct ExploreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "harness explore's crash points per minute beside the rate one run's CPU cost allows.")

    @Option(help: "Scenario (default: the bundled FocusPledge scenario).") var scenario = "Sources/Systems/FocusPledge/scenarios/focuspledge.yaml"
    @Option(help: "Variant.") var variant = "hardened"
    @Option(parsing: .unconditional, help: "Seed (a whole number).", transform: Seed.parse) var seed: UInt64 = 1
    @Option(parsing: .unconditional, help: "Crash points to explore (the first N of the run), 1...10000.") var points = 60
    @Option(parsing: .unconditional, help: "Runs at once (default: the number of CPUs, as harness explore).") var jobs: Int?
    @Option(help: "Directory for the runs (removed as explore removes them: only points that did not hold are kept).")
    var out = "runs/bench-explore"
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Option(name: .customLong("in-process"), help: InProcessScope.help) var inProcess: String?

    /// The 2-CPU target, in crash points per minute.
    static let targetPointsPerMinute = 1000.0

    struct Result: Encodable {
        /// `--in-process` (none: every stand-in a process of its own).
        var inProcess: String
        var scenario: String
        var variant: String
        var seed: UInt64
        var cpus: Int
        var jobs: Int
        /// Crash points of the scenario's run, and how many were explored.
        var crashPoints: Int
        var explored: Int
        var held: Int
        /// Points that did not hold (violated, undecided, not reached): any makes the exit status 1.
        var notHeld: [String]
        var wallSeconds: Double
        /// As `harness explore` prints it: the enumeration run included.
        var pointsPerMinute: Double
        /// CPU seconds of the whole exploration per run in it (the enumeration run included).
        var cpuSecondsPerPoint: Double
        /// The baseline: CPU seconds and wall seconds of one run of the scenario, alone.
        var baselineRunCPUSeconds: Double
        var baselineRunWallSeconds: Double
        /// CPUs x 60 / baselineRunCPUSeconds.
        var idealPointsPerMinute: Double
        /// pointsPerMinute / idealPointsPerMinute.
        var efficiency: Double
        /// CPU seconds per run that 1,000 points per minute would need on this many CPUs.
        var targetCPUSecondsPerRun: Double
        /// Processes only: what a fork server could give at most (`ForkServerBound`), measured on
        /// the baseline run — its launches, each executable's start-up — and the rate it allows.
        var forkServer: ForkServerBound?
        var forkServerRunCPUSeconds: Double?
        var forkServerIdealPointsPerMinute: Double?
    }

    /// CPU seconds (user + system) of this process and of every child it has waited for.
    static func cpuSeconds() -> Double { CPUTime.ownSeconds + CPUTime.childrenSeconds }

    func run() throws {
        guard (1...10_000).contains(points) else { throw InputError("--points \(points): use a whole number of crash points, 1...10000") }
        let cpus = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let parallel = jobs ?? min(cpus, ExploreCommand.maxJobs)
        guard (1...ExploreCommand.maxJobs).contains(parallel) else {
            throw InputError("--jobs \(parallel): use a whole number of runs at once, 1...\(ExploreCommand.maxJobs)")
        }
        let sc = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
        let v = try sc.variant(named: variant)
        guard sc.clock.mode == .virtual else { throw InputError("\(scenario): explore needs clock.mode: virtual") }
        let outDir = try Preflight.outputDirectory(out)
        RunInterruption.install()
        var options = ScenarioRunner.Options(
            scenario: sc, scenarioPath: scenario, variant: v, seed: seed, durationOverride: nil, outputDirectory: outDir + "/baseline",
            binDirectory: Executables.directory, progress: { _ in })
        options.cpu = try CPUPinning.fromEnvironment()
        options.writeReportPage = false
        options.inProcess = try InProcessScope.flag(inProcess)
        if let why = options.inProcess.refusal(scenario: sc, failpoints: []) { throw InputError(why) }

        // The baseline: one run as explore makes them (crash points counted), alone on the machine.
        progress("baseline: one run of \(sc.name) [\(v.rawValue)] seed \(seed), its CPU time measured ...")
        var alone = options
        alone.recordCrashPoints = true
        alone.pagesForKeptRuns = false
        let cpu0 = Self.cpuSeconds()
        let baselineWall: Double
        var baselineHistory: [HistoryEvent] = []
        if options.inProcess == .none {
            let baseline = ScenarioRunner(options: alone).run()
            guard baseline.exitCode != 2 else {
                throw InputError("the baseline run could not be decided: \(baseline.setupError ?? baseline.report?.undecidedReason ?? "undecided") (\(baseline.runDirectory))")
            }
            baselineWall = baseline.wallSeconds
            if let data = FileManager.default.contents(atPath: baseline.runDirectory + "/history.jsonl") {
                baselineHistory = HistoryEvent.parse(jsonl: data).events
            }
        } else {
            // As explore runs its points with stand-ins inside: a `harness explore-point` process of
            // its own (this one keeps its one such run for the enumeration), aimed at a step no
            // stand-in has — the whole run, nothing killed.
            guard let finding = CrashPointExplorer.explore(point: "host-app:step:harness-bench-baseline#1", index: 0, base: alone, keepPassingRuns: false),
                finding.verdict == .notReached
            else { throw InputError("the baseline run could not be decided (\(alone.outputDirectory))") }
            baselineWall = finding.wallSeconds
            CrashPointExplorer.waitForPointProcesses()  // its CPU time counts once it is reaped
        }
        let baselineCPU = Self.cpuSeconds() - cpu0
        try? FileManager.default.removeItem(atPath: outDir + "/baseline")
        // With processes: a fork server's bound, from the baseline's launches (measured after it,
        // so its CPU time is not counted in the baseline's).
        var forkServer: ForkServerBound?
        if options.inProcess == .none {
            progress("a fork server's bound: the baseline's launches, each executable's start-up ...")
            let roles = sc.system.descriptor.roles
            forkServer = ForkServerBound.measure(
                launches: ForkServerBound.launches(in: baselineHistory, roles: roles), roles: roles, binDirectory: Executables.directory)
        }

        progress("explore: the first \(points) crash points, \(parallel) run\(parallel == 1 ? "" : "s") at once ...")
        var exploring = options
        exploring.outputDirectory = outDir + "/explore"
        let cpu1 = Self.cpuSeconds()
        let result = CrashPointExplorer.explore(exploring, maxPoints: points, jobs: parallel, progress: progress)
        let exploreCPU = Self.cpuSeconds() - cpu1
        if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
        guard result.enumeration.exitCode != 2 else {
            throw InputError("the enumeration run could not be decided (\(result.enumeration.runDirectory))")
        }
        let notHeld = result.findings.filter { $0.verdict != .held }.map { "\($0.crashPoint): \($0.verdict.rawValue) (\($0.runDirectory))" }
        let ideal = Double(cpus) * 60 / max(baselineCPU, 1e-9)
        let r = Result(
            inProcess: options.inProcess.rawValue, scenario: sc.name, variant: v.rawValue, seed: seed, cpus: cpus, jobs: parallel, crashPoints: result.crashPoints.count,
            explored: result.findings.count, held: result.findings.count - notHeld.count, notHeld: notHeld,
            wallSeconds: result.wallSeconds, pointsPerMinute: result.pointsPerMinute,
            cpuSecondsPerPoint: exploreCPU / Double(result.findings.count + 1),
            baselineRunCPUSeconds: baselineCPU, baselineRunWallSeconds: baselineWall,
            idealPointsPerMinute: ideal, efficiency: result.pointsPerMinute / ideal,
            targetCPUSecondsPerRun: Double(cpus) * 60 / Self.targetPointsPerMinute,
            forkServer: forkServer, forkServerRunCPUSeconds: forkServer.map { max(1e-3, baselineCPU - $0.savedCPUSecondsPerRun) },
            forkServerIdealPointsPerMinute: forkServer.map { Double(cpus) * 60 / max(1e-3, baselineCPU - $0.savedCPUSecondsPerRun) })
        if json {
            try printJSON(r)
        } else {
            print(Self.table(r))
        }
        if !notHeld.isEmpty { throw ExitCode(1) }
    }

    static func table(_ r: Result) -> String {
        func f(_ x: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", x) }
        var lines = [
            "\(r.scenario) [\(r.variant)] seed \(r.seed): the first \(r.explored) of \(r.crashPoints) crash points, \(r.jobs) run\(r.jobs == 1 ? "" : "s") at once on \(r.cpus) CPU\(r.cpus == 1 ? "" : "s")"
                + (r.inProcess == "none" ? "" : ", stand-ins inside the harness (--in-process \(r.inProcess))"),
            "explore                      \(f(r.pointsPerMinute)) crash points per minute (\(f(r.wallSeconds)) s, the enumeration run included; \(f(r.cpuSecondsPerPoint, 3)) CPU-s per run)",
            "baseline: one run, alone     \(f(r.baselineRunCPUSeconds, 3)) CPU-s, \(f(r.baselineRunWallSeconds, 2)) s wall -> at most \(f(r.idealPointsPerMinute)) points per minute on \(r.cpus) CPUs",
            "explore / that bound         \(f(r.efficiency, 2))",
            "target: \(Int(targetPointsPerMinute)) per minute      needs a run of at most \(f(r.targetCPUSecondsPerRun, 3)) CPU-s here: one run costs \(f(r.baselineRunCPUSeconds / r.targetCPUSecondsPerRun, 1))x that",
            "\(r.held) held\(r.notHeld.isEmpty ? "" : ", \(r.notHeld.count) did not:")",
        ]
        if let b = r.forkServer, let cpu = r.forkServerRunCPUSeconds, let rate = r.forkServerIdealPointsPerMinute {
            let each = b.startupMillis.sorted { $0.key < $1.key }.map { "\($0.key) \(f($0.value, 2)) ms x \(b.launches[$0.key] ?? 0)" }.joined(separator: ", ")
            lines.insert(
                "a fork server, at best       \(f(cpu, 3)) CPU-s a run (its \(b.launchCount) launches' start-up free: \(each);"
                    + " a fork \(f(b.forkMillis, 2)) ms) -> at most \(f(rate)) points per minute", at: 3)
        }
        lines += r.notHeld.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }
}
