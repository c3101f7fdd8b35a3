import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import Supervision


/// `harness explore`: a run killed at every crash point of a scenario (`CrashPointExplorer`).
struct ExploreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Kill a process exactly at every crash point of a scenario's run, one run each, and check the invariants.",
        discussion: """
            Runs SCENARIO once with its crash points recorded (<process>:<label>#<n>: every App Group write, Darwin post,
            heartbeat, device effect, HTTP request and answer, named step), then once per crash point (up to --max) with
            the failpoint <point>=kill: that process SIGKILLs itself exactly there, iOS relaunches it as usual, and the
            invariants are checked. Prints a progress line per point, a table (crash point x outcome) and the rate in crash
            points per minute. Exit codes: 0 every point held, 1 a violation, 2 bad input or a point that could not be decided
            or was not reached (the run took another path). Run directories go under --out; those of points that held are
            removed unless --keep-runs; every point's verdict is in explore.json in the exploration's directory, which
            harness merge puts shards (--shard K/N) together from. --jobs runs several points at once (default one per CPU);
            --each-label-once explores only each label's first pass, a quick sample of every kind of point before an
            exhaustive run. --fail-fast starts no new point once one violated. --resume DIR goes on with an exploration that
            was stopped (Ctrl-C, a killed process, --fail-fast), in its directory, with the same options.
            """)

    @Argument(help: "Scenario file (YAML).") var scenario: String
    @Option(help: "as-written or hardened (default: the first variant the scenario lists).") var variant: String?
    @Option(parsing: .unconditional, help: "Seed of the workload and fault schedule (a whole number).", transform: Seed.parse)
    var seed: UInt64 = 1
    @Option(name: .customLong("max"), parsing: .unconditional, help: "Explore at most this many crash points (the first N of the run).")
    var maxPoints: String?
    @Option(parsing: .unconditional, help: "Device time the workload covers, e.g. 30m (default: the scenario's).") var duration: String?
    @Option(help: "Write a JUnit XML report here: one testcase per crash point.") var junit: String?
    @Option(help: "Directory for the exploration's run directories (default: runs).") var out: String?
    @Option(help: ArgumentHelp(
        "Go on with an exploration that was interrupted: its directory (explore-…), explored with the same options.",
        discussion: "The points it decided are kept; the rest (and any it could not decide) are explored, into the same directory."))
    var resume: String?
    @Flag(name: .customLong("keep-runs"), help: "Keep the run directories of crash points that held.") var keepRuns = false
    @Flag(name: .customLong("fail-fast"), help: "Start no new point once one violated (runs under way finish); --resume goes on later.")
    var failFast = false
    @Option(parsing: .unconditional, help: "Explore only this runner's part of the crash points: K/N or auto/N (K = $JOB_COMPLETION_INDEX + 1).")
    var shard: String?
    @Flag(name: .customLong("each-label-once"), help: "Explore only each label's first pass (<label>#1): one run per kind of crash point, a quick sample, not every point.")
    var eachLabelOnce = false
    @Option(parsing: .unconditional, help: "Runs at once, 1...\(Self.maxJobs) (default: the number of CPUs; each run is its own harness run and processes).")
    var jobs: String?
    @Option(name: .customLong("in-process"), help: ArgumentHelp(
        "Where the points' stand-ins run: auto (the default: all, where the pack and scenario allow it and the un-killed run inside the harness is the same run as with processes, else none), none, extensions, device or all.",
        valueName: "roles"))
    var inProcess = "auto"
    @Option(
        name: .customLong("user-retry"), parsing: .unconditional,
        help: "Whether the user taps again when the app died in their tap: \(UserRetry.accepted) (default: the scenario's user.retry, else the system's). A point where the choice came into play is also tried the other way.")
    var userRetry: String?

    @Option(
        name: .customLong("check-killed"), parsing: .unconditional,
        help: "After the points, run this many of them again both ways — stand-ins inside the harness and real processes — and compare their verdicts and normalized histories (a difference exits 2). Only when the points ran inside the harness; default 0.")
    var checkKilled: String?

    static let maxJobs = 64

    /// ", ~12 min left" at `rate` points per minute (empty when done or unknown): an exhaustive
    /// explore of a long scenario takes the better part of an hour.
    static func timeLeft(rate: Double, left: Int) -> String {
        guard left > 0, rate > 0 else { return "" }
        let seconds = Double(left) * 60 / rate
        if seconds < 90 { return ", ~\(Int(seconds.rounded())) s left" }
        if seconds < 5400 { return ", ~\(Int((seconds / 60).rounded())) min left" }
        return ", ~\(String(format: "%.1f", seconds / 3600)) h left"
    }

    static let maxPointsLimit = 1_000_000
    static let maxKilledChecks = 1_000

    func run() throws {
        let retry = try RunCommand.userRetry(userRetry)
        var killedChecks = 0
        if let checkKilled {
            guard let n = Int(checkKilled), (0...Self.maxKilledChecks).contains(n) else {
                throw InputError("--check-killed \(String(reflecting: checkKilled)): use a whole number of points, 0...\(Self.maxKilledChecks)")
            }
            killedChecks = n
        }
        let sc = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
        let v = try sc.variant(named: variant)
        let cpu = try CPUPinning.fromEnvironment()
        var limit: Int?
        if let maxPoints {
            guard let n = Int(maxPoints), n >= 1, n <= Self.maxPointsLimit else {
                throw InputError("--max \(Excerpt.quoted(maxPoints)): use a whole number of crash points, 1...\(Self.maxPointsLimit)")
            }
            limit = n
        }
        var parallel = max(1, min(ProcessInfo.processInfo.activeProcessorCount, Self.maxJobs))
        if let jobs {
            guard let n = Int(jobs), (1...Self.maxJobs).contains(n) else {
                throw InputError("--jobs \(Excerpt.quoted(jobs)): use a whole number of runs at once, 1...\(Self.maxJobs)")
            }
            parallel = n
        }
        var part: Shard?
        if let shard {
            do { part = try Shard.parse(shard, environment: ProcessInfo.processInfo.environment) } catch { throw InputError(error.description) }
        }
        let durationOverride = try Preflight.durationOverride(duration)
        guard sc.clock.mode == .virtual else {
            throw InputError("\(scenario): explore needs clock.mode: virtual (a run killed at a point must be the recorded run up to it)")
        }
        try Preflight.timeline([(scenario, sc)], durationOverride: durationOverride)
        let bin = Executables.directory
        for name in Set(sc.system.descriptor.roles.map(\.executable)).sorted() {
            guard FileManager.default.isExecutableFile(atPath: bin + "/" + name) else {
                throw InputError("\(bin)/\(name) is missing; build all products first (swift build -c release)")
            }
        }
        if let junit { try Preflight.junitTarget(junit) }
        let exploreDir: String
        var resuming: CrashPointExplorer.Resume?
        if let resume {
            guard out == nil else { throw InputError("--resume \(resume) goes on in that directory; leave --out out") }
            let recorded: ExploreRecord
            do { recorded = try ExploreMerge.load(resume + "/" + ExploreRecord.fileName) } catch {
                throw InputError("--resume \(resume): \(error) (name the explore-… directory an exploration printed)")
            }
            let mine = [
                ("scenario", recorded.scenario, sc.name), ("--variant", recorded.variant, v.rawValue), ("--seed", String(recorded.seed), String(seed)),
                ("--max", recorded.maxPoints.map(String.init) ?? "none", limit.map(String.init) ?? "none"),
                ("--each-label-once", String(recorded.eachLabelOnce), String(eachLabelOnce)),
                ("--shard", recorded.shard?.description ?? "none", part?.description ?? "none"),
                ("--user-retry", recorded.userRetry ?? "none", retry?.description ?? "none"),
            ]
            if let (what, was, now) = mine.first(where: { $0.1 != $0.2 }) {
                throw InputError("--resume \(resume): that exploration's \(what) was \(was), this one's is \(now); explore with the same options")
            }
            // The points decided before are kept only if this build would decide them the same way.
            let build = BuildIdentity.of(binDirectory: bin, executables: [Executables.currentName] + sc.system.descriptor.roles.map(\.executable))
            guard recorded.build == build else {
                let names = BuildIdentity.differences(recorded: recorded.build, now: build).map { $0.prefix { $0 != ":" } }.joined(separator: ", ")
                throw InputError("--resume \(resume): that exploration ran another build of \(names) (run_started's build in its runs says which); its verdicts are not this build's — explore afresh")
            }
            if recorded.complete {
                // Nothing left: say what it found, run nothing (no second enumeration directory).
                let points = recorded.points.compactMap(\.finding)
                print("--resume \(resume): that exploration is complete (\(points.count) of \(recorded.crashPoints.count) crash points decided): \(CrashPointExplorer.counts(points)); nothing left to explore")
                if points.contains(where: { $0.verdict == .violated }) { throw ExitCode(1) }
                return
            }
            exploreDir = resume
            resuming = CrashPointExplorer.Resume(crashPoints: recorded.crashPoints, decided: ExploreRecord.decidedPoints(record: recorded, directory: resume))
        } else {
            let outDir = try Preflight.outputDirectory(out ?? "runs")
            let stamp = Int(Date().timeIntervalSince1970)
            exploreDir = "\(outDir)/explore-\(sc.name)-\(v.rawValue)-seed\(seed)-\(stamp)-\(getpid())"
        }
        RunInterruption.install()
        _ = DeviceRootLease.sweep(runsDirectory: DeviceRootLease.managedRunsDirectory)
        var options = ScenarioRunner.Options(
            scenario: sc, scenarioPath: scenario, variant: v, seed: seed, durationOverride: durationOverride, outputDirectory: exploreDir,
            binDirectory: bin, progress: { _ in })
        options.cpu = cpu
        options.userRetry = retry
        if inProcess == "auto" {
            options.inProcess = InProcessScope.all.refusal(scenario: sc, failpoints: options.failpoints) == nil ? .all : .none
        } else {
            guard let scope = InProcessScope(rawValue: inProcess) else {
                throw InputError("--in-process \(inProcess): takes auto, \(InProcessScope.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            options.inProcess = scope
            if let why = scope.refusal(scenario: sc, failpoints: options.failpoints) { throw InputError(why) }
        }
        let err = FileHandle.standardError
        let already = resuming.map { " (resuming: \($0.decided.count) point\($0.decided.count == 1 ? "" : "s") decided before)" } ?? ""
        err.write(Data("… \(sc.name) \(v.rawValue) seed \(seed): enumerating crash points (one run), then \(parallel) run\(parallel == 1 ? "" : "s") at once -> \(exploreDir)\(already)\n".utf8))
        let t0 = Date()
        let pointsFile = exploreDir + "/" + ExploreRecord.pointsFileName
        let decidedBefore = resuming?.decided.count ?? 0
        let appender = PointAppender(path: pointsFile)
        let result = CrashPointExplorer.explore(
            options, maxPoints: limit, shard: part, keepPassingRuns: keepRuns, jobs: parallel, eachLabelOnce: eachLabelOnce, resuming: resuming,
            failFast: failFast, progress: { err.write(Data("… \($0)\n".utf8)) },
            onChosen: { enumeration, chosen in
                // The record as the exploration begins (not complete: merge refuses it until the
                // end rewrites it), then each point appended as it is decided: what --resume reads
                // if this process is killed.
                let decided = chosen.compactMap { resuming?.decided[$0] }
                let begun = ExploreRecord(
                    options: options, maxPoints: limit, eachLabelOnce: eachLabelOnce, shard: part, crashPoints: enumeration.crashPoints,
                    enumeration: enumeration, chosen: chosen, findings: decided, complete: false, wallSeconds: 0)
                do { try begun.write(toDirectory: exploreDir) } catch { err.write(Data("… \(exploreDir)/\(ExploreRecord.fileName) not written: \(error)\n".utf8)) }
            },
            onFinding: { i, total, f in
                appender.append(f)
                let explored = i - decidedBefore
                let elapsed = Date().timeIntervalSince(t0)
                let rate = elapsed > 0 ? Double(max(explored, 0)) * 60 / elapsed : 0
                err.write(Data("  [\(i)/\(total)] \(f.crashPoint): \(f.verdict.rawValue)\(f.detail.isEmpty ? "" : " " + f.detailText) — \(String(format: "%.0f", rate)) points/min\(Self.timeLeft(rate: rate, left: total - i))\n".utf8))
            })
        if let mismatch = result.mismatch { throw InputError("--resume \(exploreDir): \(mismatch)") }
        // What `harness merge` puts shards together from (the points that held left no run
        // directory), written first: an enumeration that could not be decided is recorded too.
        let record = ExploreRecord(
            result: result, options: options, maxPoints: limit, eachLabelOnce: eachLabelOnce, shard: part,
            complete: RunInterruption.signal == nil && result.findings.count == result.chosen.count)
        do { try record.write(toDirectory: exploreDir) } catch {
            HarnessExit.fail("\(exploreDir)/\(ExploreRecord.fileName) not written: \(error)")
            throw ExitCode(2)
        }
        let e = result.enumeration
        guard e.exitCode != 2 else {
            throw InputError("the enumeration run could not be decided: \(e.setupError ?? e.report?.undecidedReason ?? "undecided") (\(e.runDirectory))")
        }
        let labels = eachLabelOnce ? " (each label's first pass: \(CrashPointExplorer.firstPasses(result.crashPoints).count) of them)" : ""
        print("enumeration run: \(SuiteRunner.verdictWord(e)), \(result.crashPoints.count) crash points\(labels) -> \(e.runDirectory)/crashpoints.txt\(part.map { " (shard \($0): every \($0.count)th of them)" } ?? "")")
        if let check = result.inProcessCheck { print("points run \(check)") }
        print(CrashPointExplorer.table(result.findings))
        let resumedNote = result.resumed > 0 ? " (\(result.resumed) decided before, \(result.findings.count - result.resumed) now)" : ""
        print("""

            \(result.findings.count) of \(result.crashPoints.count) crash points explored\(resumedNote) in \(String(format: "%.1f", result.wallSeconds)) s \
            (\(String(format: "%.1f", result.pointsPerMinute)) crash points per minute, the enumeration run included): \
            \(CrashPointExplorer.counts(result.findings))
            """)
        print("record of every point's verdict: \(exploreDir)/\(ExploreRecord.fileName) (\(Harness.executableName) merge puts shards together from it)")
        if result.stoppedAtViolation && result.findings.count < result.chosen.count {
            print("stopped at a violation (--fail-fast): \(result.chosen.count - result.findings.count) point(s) not explored; go on with --resume \(exploreDir) and the same options (without --fail-fast: every remaining point)")
        }
        for line in CrashPointExplorer.notHeld(result.findings, history: true) { print(line) }
        var killedDiffer = false
        if killedChecks > 0 && RunInterruption.signal == nil {
            if result.pointsRanInside == .none {
                print("--check-killed: the points ran with processes; nothing to compare")
            } else {
                var inside = options
                inside.inProcess = result.pointsRanInside
                let decided = result.findings.filter { $0.verdict != .undecided }.map(\.crashPoint)
                err.write(Data("… --check-killed: \(min(killedChecks, decided.count)) killed point(s) again, inside the harness and with processes\n".utf8))
                let checks = CrashPointExplorer.checkKilledPoints(decided, count: killedChecks, base: inside)
                let differ = checks.filter { $0.difference != nil }
                killedDiffer = !differ.isEmpty
                print("killed points the same both ways (verdict and normalized history, inside the harness and with processes): \(checks.count - differ.count) of \(checks.count) -> \(exploreDir)/same-run")
                for c in differ { print("── \(c.point): not the same run — \(c.difference ?? "")") }
            }
        }
        if let signal = RunInterruption.signal {
            // The point the signal cut short is undecided, and --resume explores it again (`Resume`).
            let left = result.chosen.count - result.findings.filter { $0.verdict != .undecided }.count
            print("interrupted (\(RunInterruption.name(of: signal))): \(left) point(s) not decided; go on with --resume \(exploreDir) and the same options")
        }
        if let junit {
            do {
                try CrashPointExplorer.junit(result, scenario: sc.name, variant: v.rawValue, seed: seed).write(toPath: junit, what: "--junit")
            } catch {
                HarnessExit.fail("\(error)")
                throw ExitCode(2)
            }
        }
        if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
        // The fast path gave another run than real processes: no verdict of it can be trusted.
        if killedDiffer { throw ExitCode(2) }
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }
}

/// Appends each decided point to the exploration's `explore-points.jsonl`, one line per point (a
/// failed write is said once on stderr: the record at the end still has every point).
final class PointAppender: @unchecked Sendable {
    private let lock = NSLock()
    private let path: String
    private var handle: FileHandle?
    private var failed = false

    init(path: String) { self.path = path }

    func append(_ f: CrashPointExplorer.Finding) {
        lock.lock()
        defer { lock.unlock() }
        guard !failed else { return }
        do {
            if handle == nil {
                if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
                handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                try handle?.seekToEnd()
            }
            let line = try JSONEncoder().encode(ExploreRecord.Point(f)) + Data("\n".utf8)
            try handle?.write(contentsOf: line)
        } catch {
            failed = true
            FileHandle.standardError.write(Data("… \(path): \(error); the record at the end still has every point\n".utf8))
        }
    }
}
