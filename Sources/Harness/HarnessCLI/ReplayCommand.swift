import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import History
import Supervision


/// `harness replay RUN_DIR`: the recorded run again — its scenario (the copy in the run
/// directory), variant, seed, duration and failpoints — on the same build, and whether the same
/// invariants fail.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rerun a recorded run (scenario, seed, failpoints) and say whether the same invariants fail.",
        discussion: """
            Reads RUN_DIR/history.jsonl (run_started: variant, seed, duration, failpoints, build) and RUN_DIR/scenario.yaml
            (the scenario as it was run), runs it again and compares the violated invariants with the recording's, judged
            again from its history (report.json is not trusted). Refuses (exit 2) when this harness or a stand-in is another
            build than the one that recorded the run (GNU build ids differ): under virtual time a run replays exactly only on
            the same build. Exit codes: 0 the same invariants fail (or hold) again, 1 they differ, 2 bad input, a replay that
            could not be decided, or a recording that was undecided (interrupted, tampered): it has no verdict to reproduce.
            """)

    @Argument(help: "A run directory (runs/<scenario>-<variant>-seed<n>-…).") var runDirectory: String
    @Option(help: "Directory for the replay's run directory.") var out: String = "runs"

    func run() throws {
        let dir = runDirectory.hasSuffix("/") ? String(runDirectory.dropLast()) : runDirectory
        let historyPath = dir + "/history.jsonl"
        guard let data = FileManager.default.contents(atPath: historyPath) else {
            throw InputError("cannot read \(historyPath): pass a finished run's directory")
        }
        guard let started = HistoryEvent.parse(jsonl: data).events.first(where: { $0.event == "run_started" }) else {
            throw InputError("\(historyPath) has no run_started line: not a run's history")
        }
        let scenarioCopy = dir + "/scenario.yaml"
        guard FileManager.default.fileExists(atPath: scenarioCopy) else {
            throw InputError("\(dir) holds no scenario.yaml (recorded by a harness before replay existed); rerun it with: \(started["command"] ?? "its command")")
        }
        let sc = try ScenarioParser.load(path: scenarioCopy, systems: HarnessCLI.catalog)
        let variant = try sc.variant(named: started["variant"])
        guard let seed = started["seed"].flatMap({ UInt64($0) }) else { throw InputError("\(historyPath): run_started has no seed") }
        let bin = Executables.directory
        try Self.requireSameBuild(recorded: started["build"], runDirectory: dir, system: sc.system, binDirectory: bin, verb: "replay")
        let failpoints = try Preflight.failpoints(
            (started["extraFailpoints"] ?? "").split(separator: "\n").map(String.init), scenario: sc, limit: RunCommand.maxFailpoints)
        let outDir = try Preflight.outputDirectory(out)
        var options = ScenarioRunner.Options(
            scenario: sc, scenarioPath: scenarioCopy, variant: variant, seed: seed,
            durationOverride: started["durationSeconds"].flatMap { Int64($0) }.map { .seconds($0) }, outputDirectory: outDir,
            binDirectory: bin, progress: { FileHandle.standardError.write(Data("… \($0)\n".utf8)) })
        options.failpoints = failpoints
        // The command line's `--user-retry`, as recorded.
        options.userRetry = started["userRetryOverride"].flatMap(UserRetry.init)
        options.cpu = try CPUPinning.fromEnvironment()
        // Recorded only when asked for (failpoints turn counting on by themselves).
        options.recordCrashPoints = started["command"]?.hasSuffix(" --crash-points") == true
        RunInterruption.install()
        // The recording judged again from its own history (report.json may be stale or edited): an
        // interrupted or tampered recording is undecided, and nothing can reproduce it.
        let recordedReport = try? CheckCommand.judgeAgain(dir)
        let recorded = recordedReport.flatMap { $0.decided ? Set($0.violations.map(\.invariant)) : nil }
        let outcome = ScenarioRunner(options: options).run()
        if let signal = RunInterruption.signal { throw ExitCode(RunInterruption.exitCode(for: signal)) }
        guard outcome.exitCode != 2 else {
            throw InputError("the replay could not be decided: \(outcome.setupError ?? outcome.report?.undecidedReason ?? "undecided") (\(outcome.runDirectory))")
        }
        // The plan is the seed's, made again: a recorded schedule.json that differs was edited (or
        // is garbage) and played no part; say so rather than let it pass as replayed.
        let recordedPlan = FileManager.default.contents(atPath: dir + "/schedule.json")
        if recordedPlan != FileManager.default.contents(atPath: outcome.runDirectory + "/schedule.json") {
            print("note: \(dir)/schedule.json \(recordedPlan == nil ? "is missing" : "is not the plan seed \(seed) makes (edited after the run?)"); the replay ran the seed's plan, which the recorded history followed")
        }
        let now = Set(outcome.report?.violations.map(\.invariant) ?? [])
        func words(_ s: Set<String>) -> String { s.isEmpty ? "held" : "violated: " + s.sorted().joined(separator: ", ") }
        guard let recorded else {
            let why = recordedReport?.undecidedReason ?? "its history could not be read"
            print("recorded: undecided — \(Excerpt.inner(why, limit: 200)) (\(dir))")
            print("replayed: \(words(now)) (\(outcome.runDirectory))")
            print("not compared: an undecided recording has no verdict to reproduce")
            throw ExitCode(2)
        }
        print("recorded: \(words(recorded)) (\(dir))")
        print("replayed: \(words(now)) (\(outcome.runDirectory))")
        if recorded == now {
            print("reproduced")
        } else {
            print("differs")
            throw ExitCode(1)
        }
    }

    /// Under virtual time a run replays exactly only on the build that recorded it: refuses
    /// (exit 2, one line) when the harness or a stand-in differs from run_started's `build`.
    static func requireSameBuild(recorded: String?, runDirectory dir: String, system: AnySystemPack, binDirectory bin: String, verb: String) throws {
        guard let recorded else { throw InputError("\(dir)/history.jsonl: run_started names no build; it cannot be \(verb == "replay" ? "replayed" : "shrunk")") }
        let here = BuildIdentity.of(binDirectory: bin, executables: [Executables.currentName] + system.descriptor.roles.map(\.executable))
        guard here == recorded else {
            let what = BuildIdentity.differences(recorded: recorded, now: here).joined(separator: "; ")
            throw InputError("\(dir) was recorded by another build (\(what)); check out and build that commit to \(verb) it")
        }
    }
}
