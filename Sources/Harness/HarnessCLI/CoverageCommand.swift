import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import RunReport
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// `harness coverage`: which of the app's code the chaos ran (docs/COVERAGE.md).
struct CoverageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Run scenarios with the stand-ins built for LLVM coverage and report which of the app's code they reached.",
        discussion: """
            Builds the package's stand-in executables (debug, -profile-generate -profile-coverage-mapping, continuous mode) into
            .build/coverage, runs the scenarios (or the suite) with every process writing its own profile — a process killed by the
            nemesis or at a crash point keeps its counters — and reports line, function and region (branch) coverage of the app's
            code (not the harness's core, not dependencies) per role and per file, what no run reached as file:line with its code,
            an HTML report (llvm-cov's) and coverage.json. Exit codes: 0 the report is written, 1 below --fail-under, 2 bad input
            or the build failed. The runs' verdicts are reported, not judged: use `run` for that.
            """)

    @Argument(help: "Scenario files (YAML). Default: the suite (harness/suite.yaml, or --suite).") var scenarios: [String] = []
    @Option(help: "Suite file to run when no SCENARIO is given (default: harness/suite.yaml of the checkout).") var suite: String?
    @Option(help: "as-written or hardened (default: every variant the scenarios list).") var variant: String?
    @Option(parsing: .unconditional, help: "Seed of the workload and fault schedule (a whole number).", transform: Seed.parse)
    var seed: UInt64?
    @Option(parsing: .unconditional, help: "A range of seeds, e.g. 1-20 (overrides --seed; in a suite, overrides its seeds).") var seeds: String?
    @Option(parsing: .unconditional, help: "Device time each run covers, e.g. 2h (default: the scenario's).") var duration: String?
    @Option(help: "Directory for the report (a new <out>/coverage-<time>/ each time: runs/, profiles/, html/, coverage.json).")
    var out: String = "coverage"
    @Option(name: .customLong("package-path"), help: "The Swift package whose stand-ins are built (default: the working directory).")
    var packagePath: String?
    @Option(name: .customLong("bin-path"), help: "Use the stand-in executables here, already built for coverage (see docs/COVERAGE.md); nothing is built.")
    var binPath: String?
    @Option(help: "Leave out of the report every file whose path contains TEXT (repeatable), e.g. --ignore /Generated/.")
    var ignore: [String] = []
    @Option(parsing: .unconditional, help: "How many unreached regions and functions to print (all are in coverage.json).") var gaps: Int = 30
    @Option(
        name: .customLong("fail-under"), parsing: .unconditional,
        help: ArgumentHelp("Exit 1 when the app's region (branch) coverage, every role together, is below PERCENT.", valueName: "percent"))
    var failUnder: Double?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Steer the workload by coverage for this long (wall time, e.g. 5m): keep the runs that reach new regions, mutate their plans, run again. One SCENARIO and --variant.",
            valueName: "duration"))
    var fuzz: String?
    @Option(name: .customLong("fuzz-with"), help: "plans (mutate the kept plans; default) or seeds (fresh seeds of the scenario's generator only: the baseline).")
    var fuzzWith: String = CoverageFuzz.Mode.plans.rawValue
    @Flag(help: "Print coverage.json instead of the tables.") var json = false
    @Flag(help: "No progress on stderr.") var quiet = false

    static let buildTimeout: Duration = .seconds(3600)
    static let reportTimeout: Duration = .seconds(600)

    func run() throws {
        guard gaps >= 0 else { throw InputError("--gaps \(gaps): use a whole number of lines, 0 or more") }
        if let f = failUnder, !(0...100).contains(f) { throw InputError("--fail-under \(f): use a percentage from 0 to 100 (of the app's regions)") }
        if suite != nil && !scenarios.isEmpty { throw InputError("--suite \(suite ?? ""): name SCENARIO files or a suite, not both") }
        let durationOverride = try Preflight.durationOverride(duration)
        var fuzzSeconds: Double?
        if let fuzz {
            guard let s = ScenarioDuration.seconds(from: fuzz), s > 0 else { throw InputError("--fuzz \(String(reflecting: fuzz)): use a wall time like 90s, 5m or 1h (more than 0)") }
            guard scenarios.count == 1, variant != nil else { throw InputError("--fuzz: name one SCENARIO and its --variant (the plans it mutates are that scenario's)") }
            guard seeds == nil else { throw InputError("--fuzz picks its own seeds (from --seed, default 1): leave out --seeds") }
            fuzzSeconds = Double(s)
        }
        guard let fuzzMode = CoverageFuzz.Mode(rawValue: fuzzWith) else {
            throw InputError("--fuzz-with \(String(reflecting: fuzzWith)): use plans or seeds")
        }
        let seedValues = try RunCommand.seedList(seed: seed, seeds: seeds)
        let cases = try RunCommand.cases(scenarios: scenarios, suite: { try RunCommand.suiteFile(suite) }, variant: variant, seeds: seedValues).cases
        try Preflight.timeline(cases.map { ($0.scenarioPath, $0.scenario) }, durationOverride: durationOverride)
        let tools: CoverageTools
        do { tools = try CoverageTools.find(environment: ProcessInfo.processInfo.environment) } catch { throw InputError(error.description) }

        // The executables to build: every role's that is a product of the package (a role may
        // name an absolute path instead — any program that speaks the protocol: run, not covered).
        var roles: [(key: String, executable: String)] = []
        for c in cases {
            for r in c.scenario.system.descriptor.roles where !r.executable.hasPrefix("/") {
                let key = c.scenario.system.id + "/" + r.name
                if !roles.contains(where: { $0.key == key }) { roles.append((key, r.executable)) }
            }
        }
        let products = Array(Set(roles.map(\.executable))).sorted()
        guard !products.isEmpty else { throw InputError("no role of these scenarios' systems is an executable of a package (each names an absolute path): nothing to cover") }

        let bin: String
        let package: String
        if let binPath {
            bin = Self.absolute(binPath)
            package = Self.absolute(packagePath ?? FileManager.default.currentDirectoryPath)
        } else {
            package = Self.absolute(packagePath ?? FileManager.default.currentDirectoryPath)
            guard FileManager.default.fileExists(atPath: package + "/Package.swift") else {
                throw InputError("\(package) has no Package.swift: run from your package's directory or pass --package-path (or --bin-path with executables built for coverage)")
            }
            bin = CoverageBuild.binDirectory(packagePath: package)
        }
        if binPath != nil {
            for product in products where !FileManager.default.isExecutableFile(atPath: bin + "/" + product) {
                throw InputError("\(bin)/\(product) is missing: build the stand-ins for coverage first (docs/COVERAGE.md) or leave out --bin-path")
            }
        }
        let outDir = try Preflight.outputDirectory(out)
        let dir = ScenarioRunner.claimDirectory(outDir + "/coverage-" + Self.stamp())
        let profiles = dir + "/profiles"
        try FileManager.default.createDirectory(atPath: profiles, withIntermediateDirectories: true)
        let say: (String) -> Void = { line in if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) } }

        if binPath == nil {
            for (i, product) in products.enumerated() {
                say("… building \(product) for coverage (\(i + 1)/\(products.count); debug, into \(CoverageBuild.scratchDirectory); the first build takes a minute or more) …")
                let log = dir + "/build-\(product).log"
                let result: CoverageTools.Result
                do {
                    result = try tools.run(
                        tools.swift, CoverageBuild.buildArguments(packagePath: package, product: product), timeout: Self.buildTimeout, stdoutFile: log)
                } catch { throw InputError("building \(product) for coverage: \(error)") }
                guard result.status == 0 else {
                    let tail = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").suffix(15).joined(separator: "\n")
                    FileHandle.standardError.write(Data((tail + "\n" + result.stderr.suffix(2000)).utf8))
                    throw InputError("building \(product) for coverage failed (exit \(result.status)); the whole log: \(log)")
                }
            }
        }
        for product in products where !FileManager.default.isExecutableFile(atPath: bin + "/" + product) {
            throw InputError("\(bin)/\(product) is missing after the build (whole logs: \(dir)/build-*.log)")
        }

        RunInterruption.install()
        let filter = AppCodeFilter.standard(ignored: ignore)
        var merger = CoverageMerger(tools: tools, directory: profiles)
        if let fuzzSeconds {
            say("… fuzzing \(cases[0].scenario.name) \(cases[0].variant.rawValue) for \(Int(fuzzSeconds)) s (\(fuzzMode == .plans ? "mutated plans and fresh seeds" : "fresh seeds only")); each run that reaches new code is printed …")
            let fuzzer = CoverageFuzz(
                scenarioPath: cases[0].scenarioPath, scenario: cases[0].scenario, variant: cases[0].variant, durationOverride: durationOverride,
                firstSeed: seed ?? 1, budgetSeconds: fuzzSeconds, mode: fuzzMode, bin: bin,
                executables: Array(Set(roles.map { bin + "/" + $0.executable })).sorted(), dir: dir, package: package, filter: filter, tools: tools,
                say: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) })
            let summary: CoverageReport.Fuzz
            do { summary = try fuzzer.run(merger: &merger) } catch { throw InputError("fuzz: \(error)") }
            try finish(
                roles: roles, tools: tools, merger: merger, bin: bin, dir: dir, package: package, filter: filter, runs: summary.runs,
                scenarios: [cases[0].scenario.name], pages: [], fuzz: summary, say: say)
            // Stopped early by a signal: the report of what ran is written, the exit says how it ended.
            if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
            return
        }
        let printer = ProgressPrinter(total: cases.count, quiet: quiet)
        var mergeError: Error?
        let results = SuiteRunner.run(
            cases, durationOverride: durationOverride, outputDirectory: dir + "/runs", binDirectory: bin,
            progress: { printer.message("… \($0)") }, profileDirectory: profiles,
            onStart: { _, c in printer.started("\(c.scenario.name) \(c.variant.rawValue) seed \(c.seed)") },
            tick: { printer.tick($0) },
            onResult: { r in
                printer.message("  \(SuiteRunner.resultLine(r.outcome))")
                printer.finished(faults: r.outcome.killsAndStops, violated: r.outcome.exitCode == 1)
                do { try merger.absorb() } catch { mergeError = mergeError ?? error }
            })
        printer.end()
        if let mergeError { throw InputError("merging the profiles: \(mergeError)") }
        if let signal = RunInterruption.signal {
            print("interrupted by \(RunInterruption.name(of: signal)) after \(results.count) of \(cases.count) run(s); no report")
            throw ExitCode(RunInterruption.exitCode(for: signal))
        }

        let pages = results.compactMap { $0.outcome.reportPage }
        try finish(
            roles: roles, tools: tools, merger: merger, bin: bin, dir: dir, package: package, filter: filter, runs: results.count,
            scenarios: Array(Set(cases.map(\.scenario.name))).sorted(), pages: pages, fuzz: nil, say: say)
        let undecided = results.filter { $0.outcome.exitCode == 2 }.count
        if undecided > 0 { say("note: \(undecided) run(s) could not be decided (see runs/); their processes' coverage is counted") }
    }

    /// The report: written, printed, linked from the runs' index; exit 1 under --fail-under.
    func finish(
        roles: [(key: String, executable: String)], tools: CoverageTools, merger: CoverageMerger, bin: String, dir: String, package: String,
        filter: AppCodeFilter, runs: Int, scenarios: [String], pages: [String], fuzz: CoverageReport.Fuzz?, say: (String) -> Void
    ) throws {
        say("… reporting (llvm-cov) …")
        var report: CoverageReport
        do {
            report = try Self.report(roles: roles, tools: tools, merger: merger, bin: bin, dir: dir, package: package, filter: filter, runs: runs, scenarios: scenarios)
        } catch { throw InputError("\(error)") }
        report.fuzz = fuzz
        if !pages.isEmpty {
            try? SuiteIndexPage.writeIndex(
                runDirectories: pages.map { PathText.directory(of: $0) }, indexPath: dir + "/runs/index.html",
                links: report.html.map { [("coverage of the app's code (llvm-cov)", $0)] } ?? [])
        }
        report.runsDirectory = dir + "/runs"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(report)
        try data.write(to: URL(fileURLWithPath: dir + "/coverage.json"))
        let text = report.text(gapLimit: gaps)
        try Data((report.text(gapLimit: Int.max) + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/coverage.txt"))
        if json {
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(text)
            print("")
            print("report: \(dir)/coverage.json, \(dir)/coverage.txt" + (report.html.map { ", \($0)" } ?? ""))
            print("runs: \(dir)/runs" + (pages.isEmpty ? "" : " (index.html links the coverage)"))
        }
        if let failUnder, report.totals.regions.count > 0 {
            let percent = 100 * Double(report.totals.regions.covered) / Double(report.totals.regions.count)
            if percent < failUnder {
                FileHandle.standardError.write(Data("coverage: regions \(String(format: "%.1f", percent))% < --fail-under \(failUnder)%\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    /// Per role (its profiles against its executable), then every role together (one profile,
    /// every executable), the unreached regions and the HTML.
    static func report(
        roles: [(key: String, executable: String)], tools: CoverageTools, merger: CoverageMerger, bin: String, dir: String, package: String,
        filter: AppCodeFilter, runs: Int, scenarios: [String]
    ) throws -> CoverageReport {
        var perRole: [RoleCoverage] = []
        var merged: [String] = []
        for r in roles {
            let tally = merger.tallies[r.key] ?? ProfileTally()
            let profile = merger.profile(role: r.key)
            var files: [FileCoverage] = []
            var totals = FileCoverage.none
            if FileManager.default.fileExists(atPath: profile) {
                merged.append(profile)
                let export = try exportJSON(tools, profile: profile, objects: [bin + "/" + r.executable], filter: filter, summaryOnly: true)
                (files, totals) = CoverageReport.files(export, filter: filter, base: package)
                files = files.filter { $0.lines.covered > 0 }
            }
            perRole.append(RoleCoverage(role: r.key, executable: r.executable, profiles: tally, totals: totals, files: files))
        }
        let executables = Array(Set(roles.map { bin + "/" + $0.executable })).sorted()
        var report = CoverageReport(runs: runs, scenarios: scenarios, roles: perRole)
        guard !merged.isEmpty else { return report }
        let all = dir + "/profiles/all.profdata"
        let m = try tools.run(tools.profdata, ["merge", "-sparse", "-o", all] + merged, timeout: reportTimeout)
        guard m.status == 0 else { throw CoverageError("llvm-profdata merge of the roles' profiles failed: \(m.firstLine)") }
        let export = try exportJSON(tools, profile: all, objects: executables, filter: filter, summaryOnly: false)
        (report.files, report.totals) = CoverageReport.files(export, filter: filter, base: package)
        var sources = SourceLines()
        report.gaps = CoverageReport.gaps(export, filter: filter, base: package) { file, line in sources.line(file, line) }
        var show = ["show", "-format=html", "-output-dir=" + dir + "/html", "-instr-profile=" + all, "-ignore-filename-regex=" + filter.regex, "-show-line-counts-or-regions"]
        if let d = tools.demangle { show.append("-Xdemangler=" + d) }
        show.append(executables[0])
        for e in executables.dropFirst() { show += ["-object", e] }
        let h = try tools.run(tools.cov, show, timeout: reportTimeout)
        if h.status == 0 && FileManager.default.fileExists(atPath: dir + "/html/index.html") { report.html = dir + "/html/index.html" }
        return report
    }

    static func exportJSON(_ tools: CoverageTools, profile: String, objects: [String], filter: AppCodeFilter, summaryOnly: Bool) throws -> CoverageExport {
        var args = ["export", "-format=text", "-instr-profile=" + profile, "-ignore-filename-regex=" + filter.regex]
        if summaryOnly { args.append("-summary-only") }
        args.append(objects[0])
        for o in objects.dropFirst() { args += ["-object", o] }
        let r = try tools.run(tools.cov, args, timeout: reportTimeout)
        guard r.status == 0 else { throw CoverageError("llvm-cov export failed: \(r.firstLine)") }
        return try CoverageExport.decode(r.stdout)
    }

    static func absolute(_ path: String) -> String {
        let p = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (p as NSString).standardizingPath
    }

    static func stamp() -> String {
        var t = time(nil)
        var parts = tm()
        localtime_r(&t, &parts)
        return String(format: "%04d%02d%02d-%02d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

}
