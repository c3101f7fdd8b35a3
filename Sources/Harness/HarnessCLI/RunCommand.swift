import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import RunReport
import Supervision


#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario (or, with no SCENARIO, the bundled suite) against real stand-in processes under seeded chaos.",
        discussion: """
            Exit codes: 0 every invariant held, 1 a violation (explained, with the command that reruns it), 2 could not decide
            (a bad input, found before anything runs; a run whose device root was tampered with), 130/143 stopped by
            SIGINT/SIGTERM (children ended, the partial history merged, report.json marked interrupted).
            With no SCENARIO the suite runs: harness/suite.yaml of the checkout (or --suite FILE) lists scenarios (paths or
            globs), variants and seeds; its `gate` names the variants whose violations fail the job (default: hardened).
            The others (as-written follows its seed literally) are reported as findings.
            Proven causes: after the runs, the first violation of each invariant (per system and variant) is explained by
            reruns of its seed and plan, each without one of the run's steps (a fault, a kill, a user action, a failpoint,
            a field-fault rule): a step without which the violation goes away is printed as a proven cause, before the
            evidence (the history lines the checker cites, and the disturbances before them). --why-budget bounds the
            reruns' wall time per failing run (default \(WhyBudget.defaultText); one rerun answers every violation of the run);
            what it does not reach is "not proven", and
            `harness why RUN_DIR --violation N` goes on. The run's why.json keeps them; report.html shows them.
            """)

    @Argument(help: "Scenario file (YAML). Default: the suite (harness/suite.yaml, or --suite).") var scenario: String?
    @Option(help: "Suite file to run when no SCENARIO is given (default: harness/suite.yaml of the checkout).") var suite: String?
    @Option(help: "as-written or hardened (default: every variant the scenario lists).") var variant: String?
    @Option(parsing: .unconditional, help: "Seed of the workload and fault schedule (a whole number).", transform: Seed.parse)
    var seed: UInt64?
    @Option(parsing: .unconditional, help: "Run a range of seeds, e.g. 1-20 (overrides --seed; in a suite, overrides its seeds).") var seeds: String?
    @Option(parsing: .unconditional, help: "Device time the workload covers, e.g. 2h or 90m (default: the scenario's).") var duration: String?
    @Option(help: "Write a JUnit XML report here.") var junit: String?
    @Option(help: "Directory for run directories (history.jsonl, traces, schedule.json, report.json).") var out: String = "runs"
    @Option(
        name: .customLong("device-root"),
        help: "Use this device root for the run and keep it afterwards (absent or empty; one run only). Default: $SCREENTIME_DEVICE_ROOT if set, else a fresh one, removed after the run.")
    var deviceRoot: String?
    @Flag(help: "No progress on stderr (no live line, no per-run lines); the summary and violations still print.") var quiet = false
    @Option(
        name: .customLong("failpoint"),
        help: ArgumentHelp(
            "Arm a failpoint in the stand-ins (repeatable): label=[p%][n*]action[(ms)] chained with ->, e.g. 'host-app:defaults:group.x/key#2=kill'. Needs a SCENARIO.",
            valueName: "spec"))
    var failpoint: [String] = []
    @Flag(name: .customLong("crash-points"), help: "Record every crash point the stand-ins pass (<run-dir>/crashpoints.txt).")
    var crashPoints = false
    @Option(name: .customLong("in-process"), help: InProcessScope.help)
    var inProcess: String?
    @Option(
        name: .customLong("user-retry"), parsing: .unconditional,
        help: "Whether the user taps again when the app died in their tap: \(UserRetry.accepted) (default: the scenario's user.retry, else the system's).")
    var userRetry: String?
    @Option(
        name: .customLong("why-budget"), parsing: .unconditional,
        help: "Wall time of reruns per failing run, proving which steps caused its violations (default $\(WhyBudget.environmentVariable), else \(WhyBudget.defaultText); 0 or off: none).")
    var whyBudget: String?
    @Option(parsing: .unconditional, help: "Run only this runner's part: K/N (1-based) or auto/N (K = $JOB_COMPLETION_INDEX + 1); the N parts together are the whole run (harness merge joins them).")
    var shard: String?

    static let maxSeeds = 10_000

    /// `--user-retry`: nil when not given.
    static func userRetry(_ text: String?) throws -> UserRetry? {
        guard let text else { return nil }
        guard let retry = UserRetry(text) else { throw InputError("--user-retry \(String(reflecting: text)): use \(UserRetry.accepted)") }
        return retry
    }
    static let maxFailpoints = 100

    /// The seeds the command line asks for; nil = the suite's (or seed 1 for one scenario).
    func seedList() throws -> [UInt64]? { try Self.seedList(seed: seed, seeds: seeds) }

    static func seedList(seed: UInt64?, seeds: String?) throws -> [UInt64]? {
        guard let seeds else { return seed.map { [$0] } }
        let parts = seeds.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let a = UInt64(parts[0]), let b = UInt64(parts[1]) else {
            throw InputError("--seeds \(String(reflecting: seeds)): use a range of whole numbers like 1-20")
        }
        guard a <= b else { throw InputError("--seeds \(seeds): the first seed \(a) is greater than the last \(b); write it as \(b)-\(a)") }
        guard b - a < UInt64(Self.maxSeeds) else { throw InputError("--seeds \(seeds): \(b - a + 1) seeds; at most \(Self.maxSeeds) in one run") }
        return Array(a...b)
    }

    /// The suite file: `--suite`, else harness/suite.yaml of the checkout (the working directory,
    /// else next to the build).
    func suiteFile() throws -> SuiteFile { try Self.suiteFile(suite) }

    static func suiteFile(_ suite: String?) throws -> SuiteFile {
        if let suite { return try SuiteFile.load(path: suite) }
        let candidates = ["harness/suite.yaml", Executables.directory + "/../../../harness/suite.yaml"]
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw InputError("no SCENARIO given and no harness/suite.yaml found (run from the checkout, pass --suite FILE, or name a scenario file)")
        }
        return try SuiteFile.load(path: (path as NSString).standardizingPath)
    }

    /// The runs asked for: each scenario × its variants (or `variant`) × `seeds` (default seed 1),
    /// or with no scenario the suite's entries (its seeds unless `seeds`) and its gate.
    static func cases(scenarios: [String], suite: () throws -> SuiteFile, variant: String?, seeds: [UInt64]?) throws -> (
        cases: [SuiteRunner.Case], samples: [SuiteSamples.Sample], gate: [String]?
    ) {
        var cases: [SuiteRunner.Case] = []
        var samples: [SuiteSamples.Sample] = []
        if !scenarios.isEmpty {
            for scenario in scenarios {
                let sc = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
                let variants = try variant.map { [try sc.variant(named: $0)] } ?? sc.variants
                for v in variants { for s in seeds ?? [1] { cases.append(.init(scenarioPath: scenario, scenario: sc, variant: v, seed: s)) } }
            }
            return (cases, [], nil)
        }
        let file = try suite()
        for entry in file.entries {
            for p in entry.scenarioPaths {
                let sc = try ScenarioParser.load(path: p, systems: HarnessCLI.catalog)
                var variants = try (entry.variants ?? sc.variants.map(\.rawValue)).map { name throws(ScenarioError) in try entry.variant(name, of: sc) }
                if let variant { variants = variants.filter { $0.rawValue == variant } }
                for v in variants {
                    for s in seeds ?? Array(entry.seeds) {
                        let c = SuiteRunner.Case(scenarioPath: p, scenario: sc, variant: v, seed: s)
                        if let sample = entry.explore {
                            guard sc.clock.mode == .virtual else {
                                throw InputError("\(file.path): explore: \(p) runs at clock.mode: fixed; a crash-point sample needs virtual time (a run killed at a point must be the recorded run up to it)")
                            }
                            samples.append(.init(case: c, budgetSeconds: sample.budgetSeconds))
                        } else {
                            cases.append(c)
                        }
                    }
                }
            }
        }
        guard !cases.isEmpty || !samples.isEmpty else { throw InputError("\(file.path): no run left\(variant.map { " with --variant \($0)" } ?? "")") }
        return (cases, samples, file.gate)
    }

    /// Everything that can be checked before a run is (docs/CI.md "Exit codes"): a bad input never
    /// costs a run, and never exits with the code of a verdict.
    func preflight() throws -> (
        cases: [SuiteRunner.Case], samples: [SuiteSamples.Sample], durationOverride: Duration?, outDir: String, deviceRoot: String?, gate: [String]?,
        failpoints: [Failpoint], scope: InProcessScope
    ) {
        let seedValues = try seedList()
        let durationOverride = try Preflight.durationOverride(duration)
        if suite != nil && scenario != nil { throw InputError("--suite \(suite ?? ""): name a SCENARIO or a suite, not both") }
        let found = try Self.cases(scenarios: scenario.map { [$0] } ?? [], suite: { try suiteFile() }, variant: variant, seeds: seedValues)
        var cases = found.cases
        var samples = found.samples
        let gate = found.gate
        var failpoints: [Failpoint] = []
        if !failpoint.isEmpty {
            guard let first = cases.first, scenario != nil else { throw InputError("--failpoint \(failpoint[0]): name a SCENARIO (a failpoint names a process of its system)") }
            failpoints = try Preflight.failpoints(failpoint, scenario: first.scenario, limit: Self.maxFailpoints)
        }
        if !samples.isEmpty && (deviceRoot != nil || crashPoints) {
            throw InputError("\(deviceRoot != nil ? "--device-root" : "--crash-points") is for runs; the suite's crash-point samples (explore:) make their own: leave it out, or run a SCENARIO")
        }
        if let gate {
            // A typo in the suite's gate hides violations: every gated variant must be one of its systems'.
            let known = Set((cases + samples.map(\.case)).flatMap { $0.scenario.system.descriptor.variants })
            for g in gate where !known.contains(g) {
                throw InputError("\(suite ?? "harness/suite.yaml"): gate: unknown variant '\(g)'; its systems have: \(known.sorted().joined(separator: ", "))")
            }
        }
        if let shard {
            // Decided on the whole list (same order in every shard), before anything else is checked.
            let part: Shard
            do { part = try Shard.parse(shard, environment: ProcessInfo.processInfo.environment) } catch { throw InputError(error.description) }
            // The scenario's text is part of the plan: shards of two scenarios that share a name
            // (an edited file between two CI jobs) are not one suite's and do not merge.
            var texts: [String: String] = [:]
            for c in cases where texts[c.scenarioPath] == nil {
                texts[c.scenarioPath] = Shard.digest([(try? String(contentsOfFile: c.scenarioPath, encoding: .utf8)) ?? ""])
            }
            let names = cases.map { "\($0.scenario.name)|\($0.variant.rawValue)|\($0.seed)|\(texts[$0.scenarioPath] ?? "")" }
            for i in cases.indices { cases[i].shardFacts = part.facts(index: i, names: names) }
            cases = part.part(of: cases)
            // `harness merge` joins the shards' runs; a sample is an exploration of its own, which it
            // would take for explore shards: a sharded suite leaves its samples out, and says so.
            if !samples.isEmpty {
                FileHandle.standardError.write(Data("… --shard: the suite's \(samples.count) crash-point sample(s) (explore:) are left out; run them unsharded, or as harness explore … --each-label-once --shard K/N\n".utf8))
                samples = []
            }
        }
        try Preflight.timeline((cases + samples.map(\.case)).map { ($0.scenarioPath, $0.scenario) }, durationOverride: durationOverride)
        let bin = Executables.directory
        for path in Set((cases + samples.map(\.case)).flatMap { $0.scenario.system.descriptor.roles.map { $0.executablePath(binDirectory: bin) } }).sorted() {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw InputError("\(path) is missing; build all products first (swift build -c release)")
            }
        }
        // Every other check first: bad input leaves no --out directory behind.
        if let junit { try Preflight.junitTarget(junit) }
        let root = try Preflight.runDeviceRoot(flag: deviceRoot, cases: cases.count)
        if let root { try Preflight.writableDeviceRoot(root, source: deviceRoot?.isEmpty == false ? "--device-root" : DeviceRoot.environmentVariable) }
        let scope = try InProcessScope.flag(inProcess)
        for c in cases { if let why = scope.refusal(scenario: c.scenario, failpoints: failpoints) { throw InputError(why) } }
        let outDir = try Preflight.outputDirectory(out)
        return (cases, samples, durationOverride, outDir, root, gate, failpoints, scope)
    }

    func run() throws {
        let whySeconds = try WhyBudget.seconds(whyBudget)
        let retry = try Self.userRetry(userRetry)
        let (cases, samples, durationOverride, outDir, root, gate, failpoints, scope) = try preflight()
        if scope != .none && cases.count > 1 {
            // A seed's own code keeps process-wide state: one run with stand-ins inside per harness.
            throw InputError("--in-process runs one scenario × variant × seed per harness (\(cases.count) asked): a seed's own code keeps process-wide state; run them one at a time, or explore them")
        }
        let cpu = try CPUPinning.fromEnvironment()
        // At a fixed clock rate a promise's bound may be shorter in wall time than the machine's
        // jitter: said before the run (its violations are reported undecided).
        var warned = Set<String>()
        for c in cases where c.scenario.clock.mode == .fixed && warned.insert(c.scenarioPath).inserted {
            let slow = SpeedDependence.bounds(c.scenario.system.descriptor, rate: c.scenario.clock.rate)
            if !slow.isEmpty {
                FileHandle.standardError.write(Data((SpeedDependence.warning(scenario: c.scenario.name, rate: c.scenario.clock.rate, bounds: slow) + "\n").utf8))
            }
        }
        RunInterruption.install()
        let printer = ProgressPrinter(total: max(cases.count, 1), quiet: quiet)
        let swept = DeviceRootLease.sweep(runsDirectory: DeviceRootLease.managedRunsDirectory)
        if !swept.isEmpty { printer.message("… removed \(swept.count) device root(s) of harnesses that died: \(swept.joined(separator: ", "))") }
        let results = SuiteRunner.run(
            cases, durationOverride: durationOverride, outputDirectory: outDir, binDirectory: Executables.directory,
            progress: { printer.message("… \($0)") }, deviceRoot: root,
            failpoints: failpoints, recordCrashPoints: crashPoints, cpu: cpu, inProcess: scope, userRetry: retry,
            onStart: { _, c in printer.started("\(c.scenario.name) \(c.variant.rawValue) seed \(c.seed)") },
            tick: { printer.tick($0) },
            onResult: { r in
                printer.message("  \(SuiteRunner.resultLine(r.outcome))")
                printer.finished(faults: r.outcome.killsAndStops, violated: r.outcome.exitCode == 1)
            })
        printer.end()
        if !cases.isEmpty { print(SuiteRunner.table(results)) }
        // Several runs: an index of their reports (this invocation's runs; the last one wins).
        let pages = results.compactMap { $0.outcome.reportPage }
        if pages.count > 1 {
            let index = outDir + "/index.html"
            do {
                try SuiteIndexPage.writeIndex(runDirectories: pages.map { PathText.directory(of: $0) }, indexPath: index)
                print("reports: \(index) (\(pages.count) runs)")
            } catch { printer.message("… index of the reports not written: \(error)") }
        }
        // The suite's crash-point samples (explore: entries), after its runs. What was printed goes
        // out first: the samples' and the reruns' progress is on stderr, and a CI log holds both.
        fflush(HarnessExit.standardOutputStream)
        let explored = SuiteSamples.run(
            samples, outputDirectory: outDir, durationOverride: durationOverride, cpu: cpu,
            jobs: max(1, min(ProcessInfo.processInfo.activeProcessorCount, ExploreCommand.maxJobs)),
            message: { text in if !quiet { FileHandle.standardError.write(Data("… \(text)\n".utf8)) } })
        if !explored.isEmpty {
            print("")
            print("crash-point samples (each label's first pass, a process killed there; the points that held leave no run directory):")
            print(SuiteSamples.table(explored))
            fflush(HarnessExit.standardOutputStream)
        }
        let proven = whySeconds.map { WhyBudget.explain(results, seconds: $0, text: WhyBudget.text(whyBudget), outputDirectory: outDir, cpu: cpu, printer: printer) } ?? [:]
        for r in results where r.outcome.exitCode != 0 {
            print("")
            print("── \(r.case.scenario.name) [\(r.case.variant.rawValue)] seed \(r.case.seed): \(r.outcome.exitCode == 1 ? "invariant violated" : "could not decide")")
            if let e = r.outcome.setupError { print("   \(e)") }
            if let rep = r.outcome.report {
                let lines = (proven[r.outcome.runDirectory] ?? []).map { ($0.violation, $0.runLines(runDirectory: r.outcome.runDirectory, executable: Harness.executableName)) }
                print(rep.humanSummary(proven: Dictionary(lines, uniquingKeysWith: { a, _ in a })))
            }
            if r.outcome.report?.tampered != nil {
                // What someone outside changed is no part of the scenario: a rerun cannot replay it.
                print("   rerun: \(r.outcome.rerunCommand) (runs the same scenario; the tampering came from outside the run and is not replayed)")
            } else {
                print("   rerun: \(r.outcome.rerunCommand)")
            }
            print("   history: \(r.outcome.runDirectory)/history.jsonl")
            if let page = r.outcome.reportPage { print("   report: \(page)") }
        }
        for line in SuiteSamples.details(explored) { print(line) }
        if let junit {
            var report = SuiteRunner.junit(results, suiteName: "ScreenTimeHarness")
            report.testCases += SuiteSamples.testCases(explored)
            do { try report.write(toPath: junit, what: "--junit") } catch {
                HarnessExit.fail(error.description)
                throw ExitCode(2)
            }
        }
        if let signal = RunInterruption.signal {
            // The run the signal cut short is in `results` too, but it did not finish.
            let finished = results.filter { $0.outcome.report?.interruption == nil }.count
            let cut = results.count - finished
            print("\ninterrupted by \(RunInterruption.name(of: signal)): \(finished) of \(cases.count) run(s) finished"
                + (cut > 0 ? "; the one it cut short is judged undecided from its partial history (\(Harness.executableName) check <run-dir> judges it again)." : "."))
            throw ExitCode(RunInterruption.exitCode(for: signal))
        }
        let considered = gate.map { g in results.filter { g.contains($0.case.variant.rawValue) } } ?? results
        let sampled = SuiteSamples.exitCode(explored, gate: gate)
        if results.contains(where: { $0.outcome.exitCode == 2 }) || sampled == 2 { throw ExitCode(2) }
        if considered.contains(where: { $0.outcome.exitCode == 1 }) || sampled == 1 { throw ExitCode(1) }
        if let gate {
            let findings = results.filter { !gate.contains($0.case.variant.rawValue) && $0.outcome.exitCode == 1 }.count
            let sampleFindings = SuiteSamples.findings(explored, gate: gate)
            if findings + sampleFindings > 0 {
                let what = [findings > 0 ? "\(findings) run(s)" : nil, sampleFindings > 0 ? "\(sampleFindings) crash-point sample(s)" : nil].compactMap { $0 }
                print("\nthe gate (\(gate.joined(separator: ", "))) held; \(what.joined(separator: " and ")) of the other variants have violations — findings (see above).")
            }
        }
    }
}

/// `--seed`: a whole number, with a message that says so (ArgumentParser reads `-1` as an option).
enum Seed {
    static func parse(_ text: String) throws -> UInt64 {
        guard let v = UInt64(text) else { throw InputError("use a whole number 0...\(UInt64.max), e.g. --seed 7") }
        return v
    }
}

/// The checks `run` (and `bench time`) make before starting anything.
enum Preflight {
    /// `--duration` of `run`, `explore`, `plan`, `coverage`: nil when not given, else more than 0
    /// and at most 366 days, or a one-line input error.
    static func durationOverride(_ text: String?) throws -> Duration? {
        guard let text else { return nil }
        guard let s = ScenarioDuration.seconds(from: text), s > 0 else {
            throw InputError("--duration \(String(reflecting: text)): use e.g. 90s, 15m, 2h, 1h30m, 2d (more than 0, at most 366 days)")
        }
        return .seconds(s)
    }

    /// `--failpoint` specs of `run`, `explore`: each parsed against the scenario's processes; a
    /// problem is one line naming the spec and the character it found wrong.
    static func failpoints(_ specs: [String], scenario: Scenario, limit: Int) throws -> [Failpoint] {
        guard specs.count <= limit else { throw InputError("--failpoint: \(specs.count) given; at most \(limit)") }
        var out: [Failpoint] = []
        for spec in specs {
            let quoted = Excerpt.quoted(spec)
            do {
                let p = try Failpoint.parse(spec, processes: scenario.system.descriptor.crashPointProcesses)
                if let never = FailpointReach.problem(p, in: scenario.system.descriptor) { throw never }
                if (scenario.failpoints + out).contains(where: { $0.label == p.label && $0.occurrence == p.occurrence }) {
                    throw InputError("--failpoint \(quoted): this label is armed twice (here or in the scenario); chain the actions with -> instead")
                }
                out.append(p)
            } catch let e as Failpoint.ParseError {
                throw InputError("--failpoint \(quoted): \(e.message) (at character \(e.offset + 1))")
            }
        }
        return out
    }

    /// Creates the output directory (and parents) and checks that it is one and writable.
    static func outputDirectory(_ out: String) throws -> String {
        // mkdir -p by hand: the failing component and its errno make the message.
        var prefix = out.hasPrefix("/") ? "" : "."
        for component in out.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw InputError("--out \(out): cannot create the output directory (mkdir \(prefix): \(String(cString: strerror(errno))))")
            }
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: out, isDirectory: &isDir), isDir.boolValue else {
            throw InputError("--out \(out): not a directory")
        }
        guard access(out, W_OK | X_OK) == 0 else { throw InputError("--out \(out): not writable (\(String(cString: strerror(errno))))") }
        // One spelling of the path (no `//`, no trailing `/`): it is written into the history (a
        // server's journal path, a port file in an error), and the normalizer replaces the run
        // directory only as spelled once.
        let absolute = out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out
        return "/" + absolute.split(separator: "/").joined(separator: "/")
    }

    /// A file the harness will write at the end: its directory must exist and be writable, and
    /// the path must not be a directory — found now, not after the run.
    /// Absent or a regular file (never a device, FIFO, socket or symlink: `OutputFile`).
    static func writableFile(_ path: String, what: String) throws {
        do { try OutputFile.check(path, what: what) } catch { throw InputError(error.description) }
    }

    /// `--junit PATH`: as `writableFile`, and an existing file must be a JUnit report already
    /// (CI reruns write over the last one) — never a user's file that happens to be there.
    static func junitTarget(_ path: String) throws {
        try writableFile(path, what: "--junit")
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }  // absent (writableFile refused everything else)
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &head, head.count)
        let text = String(decoding: head.prefix(max(0, n)), as: UTF8.self)
        guard n == 0 || text.contains("<testsuite") else {
            throw InputError("--junit \(path) exists and is not a JUnit report (no <testsuite>); choose another path (nothing was replaced)")
        }
    }

    /// `--device-root` (or `$SCREENTIME_DEVICE_ROOT`) for `run`: a root of the user's, kept after
    /// the run so it can be read (`harness defaults read`, `notify state`); absent or empty, never a
    /// symlink, and for one run only (two runs in one device root would see each other).
    static func runDeviceRoot(flag: String?, cases: Int) throws -> String? {
        let env = ProcessInfo.processInfo.environment[DeviceRoot.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = (flag?.isEmpty == false ? flag : nil) ?? env else { return nil }
        let source = flag?.isEmpty == false ? "--device-root" : DeviceRoot.environmentVariable
        guard cases == 1 else {
            throw InputError("\(source) \(path) takes one run, this is \(cases) (pick one --seed and --variant, or unset \(source))")
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFLNK { throw InputError("\(source) \(path) is a symlink; pass the directory itself") }
            if (st.st_mode & S_IFMT) != S_IFDIR { throw InputError("\(source) \(path) is not a directory") }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            if !entries.isEmpty { throw InputError("\(source) \(path) is not empty (\(entries.count) entries); a run needs a fresh device root") }
        }
        return path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

extension InProcessScope {
    /// `--in-process VALUE` (nil: not given), or a one-line error naming the values it takes.
    static func flag(_ value: String?) throws -> InProcessScope {
        guard let value else { return .none }
        guard let scope = InProcessScope(rawValue: value) else {
            throw InputError("--in-process \(value): takes \(InProcessScope.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        return scope
    }

    static let help = ArgumentHelp(
        "Run these roles inside the harness instead of as processes: none (the default), extensions (a thread per call), device (the apps and their extensions; servers stay processes) or all (the whole run is one process). Same history, less CPU.",
        valueName: "roles")
}
