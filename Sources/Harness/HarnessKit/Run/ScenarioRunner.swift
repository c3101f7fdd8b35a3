import AppGroup
import Foundation
import History
import RunReport
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// One run of one scenario × variant × seed: starts the system's processes, plays the user (the
/// pack's workload), iOS (`DeviceOS`: schedules, shields, callbacks, the host's lifecycle, field
/// faults) and the nemesis
/// (`ProcessTable`: seeded SIGKILL / SIGTERM / SIGSTOP), records everything, then merges the
/// history (`HistoryMerge`) and has the pack judge it. This class only orchestrates — set up
/// (`LiveRun`), run its clock loop, shut down, merge, report; every decision is made by the pure
/// parts and carried out by `LiveRun`'s parts.
public final class ScenarioRunner {
    /// A directory of its own under `base` (`RunSetup.claimRunDirectory`: `base`, else `base-2`, …).
    package static func claimDirectory(_ base: String) -> String { RunSetup.claimRunDirectory(base) }

    /// The harness executable's name in rerun lines: `harness`, or a team's own harness
    /// (HarnessCLI sets it at start).
    nonisolated(unsafe) public static var commandName = "harness"

    public struct Options: Sendable {
        public var scenario: Scenario
        public var scenarioPath: String
        public var variant: ScenarioVariant
        public var seed: UInt64
        public var durationOverride: Duration?
        /// Where the run directory goes (history, traces, schedule, report).
        public var outputDirectory: String
        /// Where the stand-in executables are (next to `harness`).
        public var binDirectory: String
        public var progress: @Sendable (String) -> Void
        /// Where the run is, a few times a second (the live progress line); when set, it replaces
        /// the periodic "x% of device time" messages of `progress`.
        public var tick: (@Sendable (RunProgress) -> Void)?
        /// The device root to use and keep (`--device-root`); nil: a fresh one, removed after the run.
        public var deviceRoot: String?
        /// Failpoints armed besides the scenario's (`--failpoint`).
        public var failpoints: [Failpoint] = []
        /// Record every crash point the stand-ins pass (`<run-dir>/crashpoints.txt`), even with no
        /// failpoint armed (`--crash-points`; `harness explore` does).
        public var recordCrashPoints = false
        /// Write report.html at the end (`harness explore` writes it itself, only for the runs it
        /// keeps: it removes every point's run that held, and the page is ~5 % of such a run).
        public var writeReportPage = true
        /// Whether a stepped run keeps itself and its processes on one CPU (`CPUPinning`; the
        /// commands take `HARNESS_CPU`); off by default.
        public var cpu: CPUPinning.Choice = .off
        /// Which roles the harness runs inside its own process instead of as child processes
        /// (`--in-process`, InProcessChild.swift); `.none` by default.
        public var inProcess: InProcessScope = .none
        /// More fields of the `run_started` line (a sharded suite's `Shard.facts`).
        public var extraRunFacts: [String: String] = [:]
        /// `harness explore` writes report.html for the point runs it keeps (off: the benchmark's
        /// baseline run, which is measured, not read).
        public var pagesForKeptRuns = true
        /// `harness coverage`: every stand-in process writes its LLVM coverage profile here
        /// (`CoverageProfiles`: continuous mode, so a killed process's counters are in it too) and
        /// each launch is listed in its `launches.tsv`. nil (the default): no profile is asked for.
        package var profileDirectory: String?

        /// Whether the user taps again when the app died in their tap, instead of the scenario's
        /// `user.retry` (`--user-retry`; `harness explore` tries a point the other way with it).
        public var userRetry: UserRetry?
        /// The retry choice that applies: the command line's, the scenario's, else the pack's.
        public var retry: UserRetry { userRetry ?? scenario.retry }

        /// The scenario's failpoints, then the command line's.
        public var allFailpoints: [Failpoint] { scenario.failpoints + failpoints }
        /// Whether the stand-ins count their crash points in this run.
        public var crashPointsOn: Bool { recordCrashPoints || !allFailpoints.isEmpty }

        public init(
            scenario: Scenario, scenarioPath: String, variant: ScenarioVariant, seed: UInt64, durationOverride: Duration?,
            outputDirectory: String, binDirectory: String, progress: @escaping @Sendable (String) -> Void, deviceRoot: String? = nil,
            tick: (@Sendable (RunProgress) -> Void)? = nil
        ) {
            self.tick = tick
            self.scenario = scenario
            self.scenarioPath = scenarioPath
            self.variant = variant
            self.seed = seed
            self.durationOverride = durationOverride
            self.outputDirectory = outputDirectory
            self.binDirectory = binDirectory
            self.progress = progress
            self.deviceRoot = deviceRoot
        }
    }

    public struct Outcome: Sendable {
        public var runDirectory: String
        /// The command line that reruns exactly this scenario × variant × seed.
        public var rerunCommand: String
        public var report: CheckReport?
        /// Set when the run could not be decided (setup failure): exit 2, never blamed on the system.
        public var setupError: String?
        public var faultCounts: [String: Int]
        public var wallSeconds: Double
        public var historyEvents: Int
        /// The run's report.html (RunReport), nil when it could not be written (no history).
        public var reportPage: String? = nil
        /// The crash points the stand-ins passed, in order (`<process>:<label>#<n>`), when counted.
        public var crashPoints: [String] = []
        /// The failpoints that fired (`failpoint` trace lines: label and action), in history order.
        public var failpointsFired: [(label: String, action: String)] = []
        /// Whether the user's retry choice decided a tap the app died in (`user.retry`).
        public var retryChoiceDecided = false
        /// 0 = every invariant held, 1 = a violation, 2 = could not decide.
        public var exitCode: Int32 {
            guard setupError == nil, let r = report, r.decided else { return 2 }
            return r.violations.isEmpty ? 0 : 1
        }
        public var killsAndStops: Int { (faultCounts["kill"] ?? 0) + (faultCounts["term"] ?? 0) + (faultCounts["stop"] ?? 0) }
    }

    private(set) var setup: RunSetup
    var o: Options { setup.options }
    /// The device root this run uses (a fresh one unless `Options.deviceRoot` names one).
    var deviceRootPath: String { setup.deviceRootPath }

    public init(options: Options) {
        setup = RunSetup(options)
    }

    public func run() -> Outcome {
        // One run with stand-ins inside the harness per process (InProcessChild.beginRun).
        if o.inProcess != .none { setup.holdsInProcessSlot = InProcessChild.beginRun() }
        // A stepped run on one CPU; the thread's own mask again afterwards (CPUPinning).
        return CPUPinning.pinned(to: setup.stepped ? CPUPinning.cpu(for: o.cpu) : nil) { runHere() }
    }

    private func runHere() -> Outcome {
        let t0 = LiveRun.now()
        var setupError: String?
        var report: CheckReport?
        var events = 0
        // The merged history, once written: the page is rendered from it, not from the file read back.
        var mergedEvents: [HistoryEvent]?
        var fired: [(label: String, action: String)] = []
        // Set once the device root, clock, recorder and OS are in place; what is shut down on failure.
        var live: LiveRun?
        let lease = o.deviceRoot == nil ? try? DeviceRootLease(path: setup.deviceRootPath) : nil
        let stream = HistoryStream(runDirectory: setup.runDir)
        do {
            let run = try LiveRun(setup)
            live = run
            try run.start()
            run.loop()
            let merged = try run.finish()
            events = merged.events.count
            mergedEvents = merged.events
            fired = merged.events.filter { $0.event == "failpoint" }.map { ($0.fields["label"] ?? "", $0.fields["action"] ?? "") }
            var judged = RunJudgement.judge(setup.pack, merged.events)
            let faults = o.scenario.os.faults, osRules = o.scenario.os.rules
            if !faults.isEmpty || !osRules.changed.isEmpty || !o.allFailpoints.isEmpty {
                let deviceRoles = setup.pack.descriptor.roles.filter { $0.lifetime != .server }.map(\.name)
                judged.faultRules = FaultRuleTally.tally(faults, osRules: osRules, deviceRoles: deviceRoles, events: merged.events)
                    + FaultRuleTally.tally(o.allFailpoints, fired: fired.map(\.label))
            }
            report = judged
            try writeReport(judged)
        } catch {
            setupError = OneLineError.describe(error)
            live?.shutdownAll()
        }
        stream.stop()
        stream.close()
        // The notify center, let go of here: the process's inotify watcher holds it (and through
        // it the device root, and through its observers the scheduler inbox) until the watched
        // directory is gone, which the center's own open descriptor of it prevents — each run of
        // a suite kept seven descriptors, and a long suite (`--seeds 1-500`, `coverage --fuzz`)
        // ran out of them.
        live?.center.shutdown()
        // The page people read: from the history just written, whatever the verdict (an
        // interrupted run's too). A page that cannot be written costs the run nothing but a line.
        var page: String?
        if o.writeReportPage && FileManager.default.fileExists(atPath: setup.runDir + "/history.jsonl") {
            do {
                page = try mergedEvents.map { events throws(RunReportError) in try RunReportPage.write(runDirectory: setup.runDir, events: events) }
                    ?? RunReportPage.write(runDirectory: setup.runDir)
            } catch { o.progress("report.html not written: \(error)") }
        }
        if o.deviceRoot == nil { try? FileManager.default.removeItem(atPath: setup.deviceRootPath) }
        lease?.release()
        var outcome = Outcome(
            runDirectory: setup.runDir, rerunCommand: setup.rerunCommand(), report: report, setupError: setupError,
            faultCounts: live?.processes.table.faultCounts ?? [:], wallSeconds: Double(LiveRun.now() - t0) / 1e9,
            historyEvents: events)
        outcome.reportPage = page
        outcome.crashPoints = live?.crashPoints ?? []
        outcome.failpointsFired = fired
        outcome.retryChoiceDecided = live?.inboxes.retryChoiceDecided ?? false
        return outcome
    }

    func writeReport(_ r: CheckReport) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        try OutputFile.write(enc.encode(r), to: setup.runDir + "/report.json", what: "the run's report")
    }
}

/// What a run is before anything starts: the scenario × variant × seed, the pack, where its files
/// go and whether its clock is virtual.
struct RunSetup {
    /// This run is the harness's one run with stand-ins inside it.
    var holdsInProcessSlot = false
    let options: ScenarioRunner.Options
    let pack: AnySystemPack
    /// The run directory: history, traces, schedule, report.
    let runDir: String
    let deviceRootPath: String
    let paths: RunPaths
    /// Virtual time: the clock steps when the system is idle (PROTOCOL.md §9).
    let stepped: Bool

    init(_ options: ScenarioRunner.Options) {
        self.options = options
        pack = options.scenario.system
        let stamp = Int(Date().timeIntervalSince1970)
        runDir = Self.claimRunDirectory("\(options.outputDirectory)/\(options.scenario.name)-\(options.variant.rawValue)-seed\(options.seed)-\(stamp)-\(getpid())")
        // The device root lives on tmpfs when there is one: notify round trips are ~4x faster.
        deviceRootPath = options.deviceRoot ?? DeviceRootLease.managedRunsDirectory + "/\(UUID().uuidString.prefix(12))"
        paths = RunPaths(runDirectory: runDir, deviceRoot: deviceRootPath)
        stepped = options.scenario.clock.mode == .virtual
    }

    /// The run directory, made here so that no other run has it: two runs of one scenario × variant
    /// × seed that one process starts within the same second (a benchmark's short runs) got the
    /// same name, and the second one's traces and history were appended to the first's. `base`,
    /// else `base-2`, `base-3`, … (a bounded search; an error making it is left to the run, which
    /// says it).
    static func claimRunDirectory(_ base: String) -> String {
        try? FileManager.default.createDirectory(atPath: PathText.directory(of: base), withIntermediateDirectories: true)
        for n in 1...1000 {
            let candidate = n == 1 ? base : "\(base)-\(n)"
            if mkdir(candidate, 0o755) == 0 { return candidate }
            guard errno == EEXIST else { return candidate }
        }
        return base
    }

    /// The host app: the system's first app role (iOS's lifecycle applies to it).
    var hostRole: String? { pack.descriptor.roles.first { $0.lifetime == .app }?.name }

    /// Device unix seconds at the scenario's start.
    var deviceStart: Double { options.scenario.clock.start.timeIntervalSince1970 }

    /// The command line that reruns exactly this scenario × variant × seed.
    func rerunCommand() -> String {
        var c = "\(ScenarioRunner.commandName) run \(options.scenarioPath) --variant \(options.variant.rawValue) --seed \(options.seed)"
        if let d = options.durationOverride { c += " --duration \(d.components.seconds)s" }
        for f in options.failpoints { c += " --failpoint '\(f)'" }
        if options.recordCrashPoints { c += " --crash-points" }
        if options.inProcess != .none { c += " --in-process \(options.inProcess.rawValue)" }
        if let r = options.userRetry { c += " --user-retry \(r)" }
        return c
    }
}

/// Which roles a run carries inside the harness's own process (`--in-process`).
public enum InProcessScope: String, Sendable, CaseIterable {
    /// Every role is a process of its own (the default).
    case none
    /// The one-call extension roles run in the harness, a thread per call; apps and servers
    /// stay processes.
    case extensions
    /// Every process on the device — the apps and their extensions — runs in the harness;
    /// servers stay processes (off the device, as on a phone).
    case device
    /// Every role, servers included: the whole run is one process.
    case all
}

public struct RunError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
