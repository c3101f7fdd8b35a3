import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeOS
import Supervision
import OSFiles
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// One run once it is set up — device root, clock, recorder, emulated iOS, plan: `init` throws if
/// any of them cannot be made, so nothing here is optional — and its parts, each in its own file
/// with the state it keeps:
/// - the process table and its children (`RunProcesses`),
/// - the nemesis (`Nemesis`),
/// - the emulated-OS driver (`EmulatedOS`, with `OSFileScan` and the user it plays, `AppInboxes`),
/// - the clock loops (ClockLoop.swift: fixed rate; `VirtualTime`: stepped),
/// - the recorder (`HarnessRecorder`).
/// The parts call one another synchronously, in the order iOS and the processes act (a host's
/// spawn is shown to the OS before the next command runs; an OS effect spawns at once): the
/// history's order depends on it. That is why they share this one object rather than hold one
/// another.
final class LiveRun {
    /// How long a long-lived role may take to be ready at the start.
    static let startupTimeoutNanos: Int64 = 15_000_000_000

    let setup: RunSetup
    /// The harness's own device time; it writes `<root>/clock` and never reads it back.
    let clock: HarnessClock
    let root: DeviceRoot
    let rec: HarnessRecorder
    let center: DarwinNotificationCenter
    /// The device's files as the OS sees them (what the frameworks' shims wrote under `system/`).
    let device: EmulatedDevice
    let plan: ScenarioPlan
    /// Set by the notify observers (on their own thread) when a framework posted a change.
    let osDirty: Flag
    /// Set when a prompt's notification (authorization, notifications) was delivered to the run:
    /// `answerPrompts` looks at the files only then.
    let promptsDirty: Flag
    /// Looks for files someone outside the run put in the device root (DeviceRootTamper.swift).
    let tamperWatch: DeviceRootTamper
    var processes: RunProcesses
    var nemesis: Nemesis
    var emulated: EmulatedOS
    var virtualTime: VirtualTime
    var inboxes = AppInboxes()
    /// Wall time (monotonic ns) when the last long-lived role was ready.
    var startNanos: Int64 = 0
    /// The crash points the stand-ins passed (`<process>:<label>#<n>`, in order), read at the end.
    var crashPoints: [String] = []

    var o: ScenarioRunner.Options { setup.options }
    var pack: AnySystemPack { setup.pack }
    var runDir: String { setup.runDir }
    var paths: RunPaths { setup.paths }
    var stepped: Bool { setup.stepped }
    var hostRole: String? { setup.hostRole }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.lock(); value = true; lock.unlock() }
        func take() -> Bool { lock.lock(); defer { lock.unlock() }; let v = value; value = false; return v }
    }

    static func now() -> Int64 { TraceLog.monotonicNanos() }

    /// The bounds whose expiry changes the run are measured on this: wall time the harness was
    /// running, its own stops left out (`RunningClock`).
    var running = RunningClock(monotonicNanos: LiveRun.now())
    func runningNow() -> Int64 { running.look(monotonicNanos: Self.now()) }

    /// Everything up to the first process: directories, the device root, the clock, the recorder,
    /// the OS's notify observers, the OS, the plan (`schedule.json`), the children's environment.
    init(_ setup: RunSetup) throws {
        self.setup = setup
        let o = setup.options, pack = setup.pack, runDir = setup.runDir
        for dir in ["logs", "ports", "trace"] {
            try FileManager.default.createDirectory(atPath: runDir + "/" + dir, withIntermediateDirectories: true)
        }
        for role in pack.descriptor.roles where role.lifetime == .server {
            try FileManager.default.createDirectory(atPath: setup.paths.dataDirectory(role.name), withIntermediateDirectories: true)
        }
        if let why = o.inProcess.refusal(scenario: o.scenario, failpoints: o.failpoints) { throw RunError(why) }
        // Threads a stand-in's own code starts take the turn holder's context: one run's.
        if o.inProcess != .none && !setup.holdsInProcessSlot {
            throw RunError("--in-process: this harness ran stand-ins inside itself already; one run per harness process (a seed's own code keeps process-wide state) — run the cases one at a time")
        }
        let root = try DeviceRoot(path: setup.deviceRootPath)
        self.root = root
        let tornWritesPlanned = o.scenario.os.faults.contains { if case .tornWrite = $0.kind { return true } else { return false } }
        tamperWatch = DeviceRootTamper(root: root, tornWritesPlanned: tornWritesPlanned)
        // The clock page its children read instead of the file (ClockPage); without one (no memfd)
        // they read the file, as before.
        let clock = HarnessClock(page: try? ClockPage.create(for: root))
        self.clock = clock
        let start = setup.deviceStart
        var schedulerInbox: SchedulerInbox?
        if setup.stepped {
            if let role = pack.descriptor.roles.first(where: { $0.lifetime.isLongLived && !$0.participatesInVirtualTime }) {
                throw RunError("\(pack.id)'s \(role.name) does not take part in virtual time; run it with clock.mode: fixed")
            }
            try clock.write(.stepped(at: start, timeZone: o.scenario.clock.timeZone), to: root)
            schedulerInbox = try SchedulerInbox(deviceRoot: root)
        } else {
            try clock.write(
                DeviceClock.Configuration(epochUnixSeconds: start, rate: o.scenario.clock.rate, timeZone: o.scenario.clock.timeZone), to: root)
        }
        virtualTime = VirtualTime(now: setup.stepped ? start : 0, inbox: schedulerInbox, wakes: setup.stepped ? WakeSender(deviceRoot: root) : nil)
        let inbox = schedulerInbox
        rec = try HarnessRecorder(runDirectory: runDir, clock: clock)
        let center = try DarwinNotificationCenter(deviceRoot: root)
        self.center = center
        let osDirty = Flag()
        self.osDirty = osDirty
        try center.addObserver(OSPaths.deviceActivityChanged) { _ in osDirty.set() }
        try center.addObserver(OSPaths.managedSettingsChanged) { _ in osDirty.set() }
        device = EmulatedDevice(root: root, center: center, process: "harness")
        emulated = EmulatedOS(setup, start: start)
        // A prompt ends the wait for quiet at once (`answerPrompts`): the app that filed it waits
        // for the answer and reports nothing meanwhile, so the wait ran to its 50 ms bound.
        let promptsDirty = Flag()
        promptsDirty.set()
        self.promptsDirty = promptsDirty
        for name in [OSPaths.notificationsChanged, OSPaths.authorizationChanged] {
            try center.addObserver(name) { _ in
                osDirty.set()
                promptsDirty.set()
                inbox?.nudge()
            }
        }

        // The scenario as it was run: `harness replay` reads this copy, not a file that may have changed since.
        if let bytes = try? ScenarioParser.readFile(o.scenarioPath) {
            try OutputFile.write(bytes, to: runDir + "/scenario.yaml", what: "the run's scenario")
        }
        plan = ScenarioPlan.make(scenario: o.scenario, seed: o.seed, durationOverride: o.durationOverride)
        try OutputFile.write(plan.jsonData(), to: runDir + "/schedule.json", what: "the run's schedule")
        nemesis = Nemesis(planned: plan.faults)

        var environment = ProcessInfo.processInfo.environment
        environment[DeviceRoot.environmentVariable] = setup.deviceRootPath
        environment[Entitlements.environmentVariable] = pack.descriptor.appGroups.joined(separator: ",")
        environment["SCREENTIME_RUN_DIR"] = runDir
        environment["SCREENTIME_VARIANT"] = o.variant.rawValue
        // App code that iterates a Dictionary or Set (a seed serializing its event with
        // JSONSerialization) sees one order in every run, so a seed's run replays exactly; Swift
        // seeds its hashing per process otherwise (EMULATED-IOS.md §7.8).
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        if let page = clock.page { environment[ClockPage.environmentVariable] = String(page.fd) }
        if o.scenario.os.lockedAfterReboot != nil {
            // PROTOCOL.md §3 "Before first unlock": the stores look at the device's lock.
            environment[SharedDefaults.dataProtectionVariable] = "1"
        }
        if o.crashPointsOn {
            // CRASH-POINTS.md §11: the stand-ins count and log their crash points, and arm these failpoints.
            environment[CrashPoints.directoryVariable] = runDir + "/crashpoints"
            environment[CrashPoints.failpointsVariable] = o.allFailpoints.map(\.description).joined(separator: "\n")
            environment[CrashPoints.seedVariable] = String(o.seed)
        }
        processes = RunProcesses(
            table: ProcessTable(
                longLivedRoles: pack.descriptor.roles.filter(\.lifetime.isLongLived).map(\.name),
                ticksPerMillisecond: setup.stepped ? 1 : 1_000_000, armsExtensionFaults: setup.stepped),
            environment: environment,
            defaultsFaults: Self.defaultsFaultEnvironment(o.scenario.os.faults, roles: pack.descriptor.roles))
    }

    /// Records the start, boots the device and starts the long-lived roles: servers first (the
    /// apps talk to them), then the apps; each must be ready before the next.
    func start() throws {
        var started = [
            "scenario": o.scenario.name, "system": pack.id, "variant": o.variant.rawValue, "seed": String(o.seed),
            "rate": String(o.scenario.clock.rate), "clockMode": o.scenario.clock.mode.rawValue,
            // The device's zone at the start (`time_zone` lines record moves): checkers that judge local days need it.
            "timeZone": o.scenario.clock.timeZone, "deviceRoot": setup.deviceRootPath,
            "command": setup.rerunCommand(),
        ]
        // The OS rules that differ from Apple's documented ones: what every finding of the run depends on.
        if !o.scenario.os.rules.changed.isEmpty { started["osRules"] = o.scenario.os.rules.changed.joined(separator: ",") }
        if !o.scenario.os.appGroupUnavailable.isEmpty { started["appGroupUnavailable"] = o.scenario.os.appGroupUnavailable.joined(separator: ",") }
        if !o.allFailpoints.isEmpty { started["failpoints"] = o.allFailpoints.map(\.description).joined(separator: "\n") }
        // What `harness replay` needs beyond the scenario's copy: the command line's part and the build.
        if !o.failpoints.isEmpty { started["extraFailpoints"] = o.failpoints.map(\.description).joined(separator: "\n") }
        if let d = o.durationOverride { started["durationSeconds"] = String(d.components.seconds) }
        // Whether the user taps again after the app died in their tap; the command line's choice
        // apart, for `harness replay`, `why` and `shrink` to make again.
        started["userRetry"] = o.retry.description
        if let r = o.userRetry { started["userRetryOverride"] = r.description }
        started["build"] = BuildIdentity.of(binDirectory: o.binDirectory, executables: [Executables.currentName] + pack.descriptor.roles.map(\.executable))
        if o.crashPointsOn { started["crashPoints"] = "recorded" }
        // Pinned (CPUPinning): the CPU the kernel says this thread, and so the run, may use.
        if stepped && o.cpu != .off {
            let cpus = CPUPinning.allowedCPUs()
            if cpus.count == 1 { started["cpu"] = String(cpus[0]) }
        }
        if !o.scenario.declaredInvariants.isEmpty { started[DeclaredInvariant.runStartedField] = DeclaredInvariant.encode(o.scenario.declaredInvariants) }
        started.merge(o.extraRunFacts) { core, _ in core }
        started.merge(pack.runFacts(o.scenario.configuration)) { core, _ in core }
        rec.record(.runStarted, started)
        perform(emulated.os.apply(.boot))
        for (role, spec) in processes.defaultsFaults.sorted(by: { $0.key < $1.key }) {
            rec.record(.defaultsFaultArmed, ["target": role, "spec": spec])
        }
        let longLived = pack.descriptor.roles.filter(\.lifetime.isLongLived)
        for role in longLived.filter({ $0.lifetime == .server }) + longLived.filter({ $0.lifetime == .app }) {
            try spawn(role.name)
            try waitUntilReady(role)
        }
        startNanos = Self.now()
    }

    func waitUntilReady(_ role: ProcessRole) throws {
        let ready: () -> Bool
        switch role.readiness {
        case .none: return
        case .portFile: ready = { FileManager.default.fileExists(atPath: self.paths.portFile(role.name)) }
        case .traceEvent(let event):
            ready = { TraceReadiness.hasEvent(event, inTraceAt: self.paths.trace(role.name)) }
        }
        let deadline = Self.now() + Self.startupTimeoutNanos
        while !ready() {
            if Self.now() > deadline {
                throw RunError("timed out waiting for \(role.name) to be ready (logs in \(runDir)/logs/\(role.name).log)")
            }
            reap()
            usleep(2000)
        }
    }

    /// Stops everything, adds the pack's evidence and the quarantine records, merges the history.
    func finish() throws -> HistoryMerge.Merged {
        shutdownAll()
        // The file catches up with the page (`writePageOnly`), and is looked at for tampering.
        if clock.fileBehind, let current = clock.current {
            do { try clock.write(current, to: root) } catch { rec.record(.clockError, ["error": "\(error)"]) }
        }
        recordTamperAtTheEnd()
        if stepped, running.gapNanos > 1_000_000_000 {
            // Said beside the history, not in it: the same seed gives the same history either way.
            o.progress(String(format: "note: the harness was not running for %.1f s of wall time (stopped or not scheduled); its wall bounds did not count it", Double(running.gapNanos) / 1e9))
        }
        for f in FoundationDefaults.found(deviceRoot: root.path) {
            o.progress("note: " + FoundationDefaults.reason(role: f.role, suite: f.suite))
            rec.record(.foundationDefaults, ["target": f.role, "suite": f.suite, "file": f.path])
        }
        for e in pack.evidence(run: paths) { rec.recordEvidence(e.event, e.fields) }
        for line in root.quarantineRecords() {
            let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            rec.record(.quarantine, [
                "file": obj?["file"] as? String ?? "", "movedTo": obj?["movedTo"] as? String ?? "", "reason": obj?["reason"] as? String ?? line,
            ])
        }
        var finished = processes.table.faultCounts.mapValues(String.init)
        if o.crashPointsOn {
            crashPoints = CrashPoints.recorded(in: runDir + "/crashpoints", stepStarts: stepped ? virtualTime.stepStartMonos : nil)
            finished["crashPoints"] = String(crashPoints.count)
            try OutputFile.write(Data(crashPoints.map { $0 + "\n" }.joined().utf8), to: runDir + "/crashpoints.txt", what: "the run's crash points")
        }
        if stepped {
            finished["steps"] = String(virtualTime.steps)
            finished["quiescenceTimeouts"] = String(virtualTime.quiescenceTimeouts)
        }
        rec.record(.runFinished, finished)
        let merged = try HistoryMerge.merge(runDirectory: runDir)
        try OutputFile.write(merged.jsonl, to: runDir + "/history.jsonl", what: "the run's history")
        if merged.tornLines > 0 { o.progress("note: \(merged.tornLines) torn trace line(s) of killed processes skipped") }
        return merged
    }
}
