import AppGroup
import Foundation
import History
import ScreenTimeModel
import ScreenTimeShims
import Supervision
import SystemFiles
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// One run of one scenario × variant × seed: starts the system's processes, plays the user (the
/// pack's workload), iOS (`DeviceOS`: schedules, shields, callbacks, the host's lifecycle, field
/// faults) and the nemesis
/// (`ProcessTable`: seeded SIGKILL / SIGTERM / SIGSTOP), records everything, then merges the
/// history (`HistoryMerge`) and has the pack judge it. This class is only the imperative shell:
/// every decision is made by those pure parts.
public final class ScenarioRunner: UserDevice {
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
        /// The device root to use and keep (`--device-root`); nil: a fresh one, removed after the run.
        public var deviceRoot: String?

        public init(
            scenario: Scenario, scenarioPath: String, variant: ScenarioVariant, seed: UInt64, durationOverride: Duration?,
            outputDirectory: String, binDirectory: String, progress: @escaping @Sendable (String) -> Void, deviceRoot: String? = nil
        ) {
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
        /// 0 = every invariant held, 1 = a violation, 2 = could not decide.
        public var exitCode: Int32 {
            guard setupError == nil, let r = report, r.decided else { return 2 }
            return r.violations.isEmpty ? 0 : 1
        }
        public var killsAndStops: Int { (faultCounts["kill"] ?? 0) + (faultCounts["term"] ?? 0) + (faultCounts["stop"] ?? 0) }
    }

    // Bounds.
    /// The main loop's tick.
    static let tickMicros: UInt32 = 1000
    static let quiesceMinWallNanos: Int64 = 1_500_000_000
    /// Hard bound on one run's wall time beyond its plan: past it the system "did not settle".
    static let overrunWallNanos: Int64 = 60_000_000_000
    static let startupTimeoutNanos: Int64 = 15_000_000_000
    /// How often the OS looks at the shims' files without being told (they post a notification).
    static let scanIntervalNanos: Int64 = 20_000_000

    let o: Options
    let pack: AnySystemPack
    let runDir: String
    let deviceRootPath: String
    let paths: RunPaths
    var root: DeviceRoot!
    /// The harness's own device time; it writes `<root>/clock` and never reads it back.
    let clock = HarnessClock()
    var rec: HarnessRecorder!
    var center: DarwinNotificationCenter!
    var plan: ScenarioPlan!

    var table: ProcessTable
    /// The emulated iOS (ScenarioRunner+OS.swift).
    var os: DeviceOS!
    var osDeadline: Double?
    var osQueue: [OSEvent] = []
    var osDraining = false
    var device: EmulatedDevice!
    var lastRegistrations: [ActivityRegistrationRecord]?
    var lastShieldUnion: ShieldUnion?
    var lastSystemFileErrors: [String] = []
    var traceOffsets: [String: UInt64] = [:]
    var shieldResponses: [Int: ShieldActionResponse] = [:]
    var rebootsLeft: [Int] = []
    var revocationsLeft: [Int] = []
    var timeZoneChangesLeft: [Scenario.TimeZoneChange] = []
    /// The device's time zone now (`os.timeZoneChanges` move it).
    var deviceTimeZone = "UTC"
    var lastPendingNotifications: [NotificationRequestRecord]?
    var promptGenerations: [UInt64] = []
    var answeredPrompts: Set<String> = []
    /// `os.faults` of the App Group (stale_defaults, torn_write), as each role's environment.
    var defaultsFaultEnvironment: [String: String] = [:]
    /// Virtual time: the clock steps when the system is idle (PROTOCOL.md §9).
    let stepped: Bool
    var scheduler = VirtualScheduler()
    var schedulerInbox: SchedulerInbox?
    /// Virtual time: device unix seconds now (the harness is the clock's only writer).
    var steppedNow: Double = 0
    /// Virtual time: clock moves, and quiescence waits that ran into their bound.
    var steps = 0
    var quiescenceTimeouts = 0
    var children: [Int32: ChildProcess] = [:]
    /// Virtual time: children SIGKILLed at a quiescent instant whose exit is already recorded and
    /// which the kernel is still tearing down (reaped when it is done; see `killQuiescent`).
    var dying: [Int32: ChildProcess] = [:]
    /// Virtual time: true while a planned fault runs at a quiescent instant (`loopStepped`).
    var faultAtQuiescentInstant = false
    /// Virtual time: while a user action is performed, the processes it resumes (SIGCONT) are
    /// continued only once the whole action is in place — its taps in the inboxes, its files
    /// written — so what a resumed app finds first never depends on how fast it woke.
    var resumesHeld = false
    var heldResumes: [ProcessTable.Command] = []
    var killedQuiescent: [Int32] = []
    var lastQuiesceTimedOut = false
    var inboxes: [String: AppInbox] = [:]
    var inboxSeq = 1
    let osDirty = Flag()
    var envBase: [String: String] = [:]
    var startNanos: Int64 = 0
    var tamperWatch: DeviceRootTamper?  // DeviceRootTamper.swift

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.lock(); value = true; lock.unlock() }
        func take() -> Bool { lock.lock(); defer { lock.unlock() }; let v = value; value = false; return v }
    }

    public init(options: Options) {
        o = options
        pack = options.scenario.system
        let stamp = Int(Date().timeIntervalSince1970)
        runDir = "\(options.outputDirectory)/\(options.scenario.name)-\(options.variant.rawValue)-seed\(options.seed)-\(stamp)-\(getpid())"
        // The device root lives on tmpfs when there is one: notify round trips are ~4x faster.
        deviceRootPath = options.deviceRoot ?? DeviceRootLease.managedRunsDirectory + "/\(UUID().uuidString.prefix(12))"
        paths = RunPaths(runDirectory: runDir, deviceRoot: deviceRootPath)
        stepped = options.scenario.clock.mode == .virtual
        table = ProcessTable(
            longLivedRoles: pack.descriptor.roles.filter(\.lifetime.isLongLived).map(\.name),
            ticksPerMillisecond: stepped ? 1 : 1_000_000, armsExtensionFaults: stepped)
    }

    /// The process table's clock: wall ns at a fixed rate, device ms under virtual time.
    func ticks() -> Int64 { stepped ? Int64((steppedNow * 1000).rounded()) : Self.now() }

    static func now() -> Int64 { TraceLog.monotonicNanos() }

    // MARK: Run

    public func run() -> Outcome {
        let t0 = Self.now()
        var setupError: String?
        var report: CheckReport?
        var events = 0
        let lease = o.deviceRoot == nil ? try? DeviceRootLease(path: deviceRootPath) : nil
        let stream = HistoryStream(runDirectory: runDir)
        do {
            try setUp()
            loop()
            let merged = try finish()
            events = merged.events.count
            report = RunJudgement.judge(pack, merged.events)
            try writeReport(report!)
        } catch {
            setupError = OneLineError.describe(error)
            shutdownAll()
        }
        stream.stop()
        if o.deviceRoot == nil { try? FileManager.default.removeItem(atPath: deviceRootPath) }
        lease?.release()
        return Outcome(
            runDirectory: runDir, rerunCommand: rerunCommand(), report: report, setupError: setupError,
            faultCounts: table.faultCounts, wallSeconds: Double(Self.now() - t0) / 1e9, historyEvents: events)
    }

    var deviceSeconds: Int { ScenarioPlan.deviceDurationSeconds(scenario: o.scenario, override: o.durationOverride) }

    func setUp() throws {
        for dir in ["logs", "ports", "trace"] {
            try FileManager.default.createDirectory(atPath: runDir + "/" + dir, withIntermediateDirectories: true)
        }
        for role in pack.descriptor.roles where role.lifetime == .server {
            try FileManager.default.createDirectory(atPath: paths.dataDirectory(role.name), withIntermediateDirectories: true)
        }
        root = try DeviceRoot(path: deviceRootPath)
        let start = o.scenario.clock.start.timeIntervalSince1970
        if stepped {
            if let role = pack.descriptor.roles.first(where: { $0.lifetime.isLongLived && !$0.participatesInVirtualTime }) {
                throw RunError("\(pack.id)'s \(role.name) does not take part in virtual time; run it with clock.mode: fixed")
            }
            steppedNow = start
            try clock.write(.stepped(at: start, timeZone: o.scenario.clock.timeZone), to: root)
            schedulerInbox = try SchedulerInbox(deviceRoot: root)
        } else {
            try clock.write(
                DeviceClock.Configuration(epochUnixSeconds: start, rate: o.scenario.clock.rate, timeZone: o.scenario.clock.timeZone), to: root)
        }
        rec = try HarnessRecorder(runDirectory: runDir, clock: clock)
        center = try DarwinNotificationCenter(deviceRoot: root)
        let osDirty = self.osDirty
        try center.addObserver(EmulatedOSPaths.deviceActivityChanged) { _ in osDirty.set() }
        try center.addObserver(EmulatedOSPaths.managedSettingsChanged) { _ in osDirty.set() }
        device = EmulatedDevice(root: root, center: center, process: "harness")
        os = makeOS(start: start)
        osDeadline = os.nextDeadline()
        rebootsLeft = o.scenario.os.reboots
        revocationsLeft = o.scenario.os.revokeAt
        timeZoneChangesLeft = o.scenario.os.timeZoneChanges
        deviceTimeZone = o.scenario.clock.timeZone
        try center.addObserver(SystemPaths.notificationsChanged) { _ in osDirty.set() }
        try center.addObserver(SystemPaths.authorizationChanged) { _ in osDirty.set() }

        plan = ScenarioPlan.make(scenario: o.scenario, seed: o.seed, durationOverride: o.durationOverride)
        try OutputFile.write(plan.jsonData(), to: runDir + "/schedule.json", what: "the run's schedule")

        envBase = ProcessInfo.processInfo.environment
        envBase[DeviceRoot.environmentVariable] = deviceRootPath
        envBase[Entitlements.environmentVariable] = pack.descriptor.appGroups.joined(separator: ",")
        envBase["SCREENTIME_RUN_DIR"] = runDir
        envBase["SCREENTIME_VARIANT"] = o.variant.rawValue

        var started = [
            "scenario": o.scenario.name, "system": pack.id, "variant": o.variant.rawValue, "seed": String(o.seed),
            "rate": String(o.scenario.clock.rate), "clockMode": o.scenario.clock.mode.rawValue, "deviceRoot": deviceRootPath,
            "command": rerunCommand(),
        ]
        started.merge(pack.runFacts(o.scenario.configuration)) { core, _ in core }
        rec.record("run_started", started)
        perform(os.apply(.boot))
        defaultsFaultEnvironment = Self.defaultsFaultEnvironment(o.scenario.os.faults, roles: pack.descriptor.roles)
        for (role, spec) in defaultsFaultEnvironment.sorted(by: { $0.key < $1.key }) {
            rec.record("defaults_fault_armed", ["target": role, "spec": spec])
        }
        // Servers first (the apps talk to them), then the apps; each must be ready before the next.
        let longLived = pack.descriptor.roles.filter(\.lifetime.isLongLived)
        for role in longLived.filter({ $0.lifetime == .server }) + longLived.filter({ $0.lifetime == .app }) {
            try spawn(role.name)
            try waitUntilReady(role)
        }
        startNanos = Self.now()
    }

    func rerunCommand() -> String {
        var c = "harness run \(o.scenarioPath) --variant \(o.variant.rawValue) --seed \(o.seed)"
        if let d = o.durationOverride { c += " --duration \(d.components.seconds)s" }
        return c
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

    // MARK: Processes

    func logFd(_ name: String) -> Int32 {
        open("\(runDir)/logs/\(name).log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    }

    func start(_ role: ProcessRole, extra: [String]) throws -> ChildProcess {
        let fd = logFd(role.name)
        defer { if fd >= 0 { close(fd) } }
        var env = envBase
        if let spec = defaultsFaultEnvironment[role.name] { env[DefaultsFaults.environmentVariable] = spec }
        if role.tracesDefaultsWrites { env["SCREENTIME_TRACE_DEFAULTS"] = "1" }  // PROTOCOL.md §3, traced writes
        let child = try ChildProcess.spawn(
            o.binDirectory + "/" + role.executable, role.arguments + extra, environment: env, captureStdout: false,
            stdoutTo: fd, stderrTo: fd)
        children[child.pid] = child
        return child
    }

    /// Virtual time: a stopped server is unreachable — its port is withdrawn until it is continued
    /// — because a request that reached a frozen server would be handled when it is continued, at
    /// a moment that depends on wall-clock scheduling. At a fixed rate requests hang, as on iOS.
    func withdrawPort(of pid: Int32, _ withdraw: Bool) {
        guard stepped, let role = table.longLived.first(where: { $0.pid == pid })?.role,
            pack.descriptor.role(role)?.lifetime == .server
        else { return }
        let live = paths.portFile(role)
        let aside = paths.runDirectory + "/ports/.\(role).port.withdrawn"
        if withdraw { rename(live, aside) } else { rename(aside, live) }
    }

    /// Starts a long-lived role and records it.
    func spawn(_ name: String) throws {
        guard let role = pack.descriptor.role(name) else { throw RunError("\(pack.id) has no role \(name)") }
        let child = try start(role, extra: pack.launchArguments(for: role, configuration: o.scenario.configuration, run: paths))
        table.spawned(role: name, pid: child.pid)
        if stepped { scheduler.spawned(pid: child.pid, role: name) }
        rec.record("spawn", ["target": name, "childPid": String(child.pid)])
        if name == hostRole { osApply(.hostLaunched) }
    }

    func execute(_ commands: [ProcessTable.Command]) {
        for command in commands {
            switch command {
            case .spawn(let role):
                do { try spawn(role) } catch {
                    execute(table.spawnFailed(role: role, error: "\(error)", now: ticks()))
                }
            case .signal(let pid, let signal):
                guard let child = children[pid] else { continue }
                switch signal {
                case .kill:
                    if !killQuiescent(pid, child) { child.signal(SIGKILL) }
                case .term: child.signal(SIGTERM)
                case .stop:
                    withdrawPort(of: pid, true)
                    child.signal(SIGSTOP)
                case .cont:
                    if resumesHeld {
                        heldResumes.append(command)
                        continue
                    }
                    child.signal(SIGCONT)
                    withdrawPort(of: pid, false)
                }
            case .record(let event, let fields):
                rec.record(event, fields)
            }
        }
        // After the batch: its record of the kill comes before the exit.
        while !killedQuiescent.isEmpty { exited(killedQuiescent.removeFirst(), .signalled(SIGKILL)) }
    }

    /// Reaps exited children; true when any had exited.
    @discardableResult
    func reap() -> Bool {
        let order = table.longLived.compactMap(\.pid) + table.extensions.map(\.pid)
        var any = false
        for pid in order {
            guard let child = children[pid], let status = child.poll() else { continue }
            any = true
            exited(pid, status)
        }
        for (pid, child) in dying where child.poll() != nil { dying[pid] = nil }
        execute(table.watchdog(wallNanos: Self.now()))
        return any
    }

    /// Records a child's exit and does what follows from it (restarts, the OS's view).
    func exited(_ pid: Int32, _ status: ChildProcess.ExitStatus) {
        children[pid] = nil
        scheduler.exited(pid: pid)
        let call = table.extensions.first { $0.pid == pid }
        let role = table.longLived.first { $0.pid == pid }?.role
        execute(table.exited(pid: pid, status: "\(status)", clean: status == .exited(0), now: ticks()))
        if let call { extensionEnded(delivery: call.delivery, role: call.role, clean: status == .exited(0)) }
        if let role, role == hostRole { osApply(.hostExited) }
    }

    /// Virtual time: a planned SIGKILL of a long-lived process at a quiescent instant. The process
    /// is idle — blocked waiting, its last report sent — so once `kill` returns it can do nothing
    /// more: its exit is recorded at once instead of when the kernel has torn it down, which for a
    /// process holding an inotify instance takes an RCU grace period (~10 ms of wall time per kill,
    /// ~200 kills in a 24-hour run; `harness bench time`). A server's port is withdrawn first, so
    /// no request reaches a listening socket the kernel has not closed yet. False (nothing done)
    /// when these conditions do not hold; the caller then kills and reaps as usual.
    func killQuiescent(_ pid: Int32, _ child: ChildProcess) -> Bool {
        guard stepped, faultAtQuiescentInstant, !lastQuiesceTimedOut,
            let entry = table.longLived.first(where: { $0.pid == pid }), child.isRunningUserCode == true
        else { return false }
        if pack.descriptor.role(entry.role)?.lifetime == .server, !entry.isStopped { withdrawPort(of: pid, true) }
        guard child.signal(SIGKILL) else { return false }
        dying[pid] = child
        killedQuiescent.append(pid)
        return true
    }

    // MARK: UserDevice (what the pack's workload does through the harness)

    public var now: Double { stepped ? steppedNow : clock.nowUnixSeconds() }

    public func record(_ action: String, _ fields: [String: String]) {
        var f = fields
        f["action"] = action
        rec.record("user_action", f)
    }

    public func tap(in role: String, _ message: AppMessage) {
        // A tap in the host means the user has it open: one iOS suspended or terminated (force
        // quit, reboot) is opened first. (One the nemesis killed comes back on its own schedule.)
        // (Under virtual time the SIGCONT waits until the whole action is in place: `resumesHeld`.)
        if role == hostRole, let entry = table.entry(role), entry.heldDownByOS || entry.osSuspended { openHost() }
        sendToInbox(role, message)
    }

    /// Writes `message` to the role's inbox (PROTOCOL.md §7.7) without opening anything: the OS's
    /// own messages (a notification response) arrive however iOS launched the app.
    func sendToInbox(_ role: String, _ message: AppMessage) {
        var m = message
        m.seq = inboxSeq
        inboxSeq += 1
        do {
            if inboxes[role] == nil { inboxes[role] = try AppInbox(process: role, deviceRoot: root, center: center) }
            try inboxes[role]!.send(m)
        } catch {
            rec.record("inbox_error", ["target": role, "error": "\(error)"])
        }
    }

    public var shieldedApplications: Set<String> { ManagedSettingsStore.shieldedApplications(deviceRoot: root) }

    public func isMonitored(_ activity: String) -> Bool { os.isMonitored(activity) }

    public func deliver(_ call: ExtensionCall, label: [String: String]) { osApply(.harnessCall(call, label: label)) }

    public func useApp(_ bundleIdentifier: String, seconds: Double, label: [String: String]) {
        osApply(.user(.useApp(bundleIdentifier: bundleIdentifier, seconds: seconds, label: label)))
    }

    public func pressShieldButton(_ action: ShieldAction, label: [String: String]) { osApply(.user(.pressShieldButton(action, label: label))) }

    public func openHost() { osApply(.user(.openHost)) }

    public func leaveHost() { osApply(.user(.leaveHost)) }

    public func forceQuitHost() { osApply(.user(.forceQuitHost)) }

    public func openURL(_ url: String) { osApply(.user(.openURL(url))) }

    public func tapNotification(_ identifier: String, action: String) {
        osScanNotifications()
        osApply(.user(.tapNotification(identifier: identifier, action: action, foreground: notificationActionForegrounds(identifier, action: action))))
    }

    /// iOS launches an extension process for one call the OS made (`delivery` is its id).
    /// `killedByOS`: a field fault kills it before it returns — at launch, so that the outcome
    /// does not depend on how far it got in wall time (PROTOCOL.md §10).
    func launchCall(_ call: ExtensionCall, delivery: Int, label: [String: String], killedByOS: Bool) {
        var f = label
        f["callback"] = call.callbackName
        f["delivery"] = String(delivery)
        guard let role = pack.descriptor.role(for: call.point) else {
            f["why"] = "\(pack.id) has no \(call.point.rawValue) extension"
            rec.record("callback_not_delivered", f)
            return
        }
        guard !table.extensionCallsFull else {
            f["why"] = "too many extension calls running"
            rec.record("callback_not_delivered", f)
            osApply(.callEnded(delivery: delivery, completed: false, response: nil))
            return
        }
        if killedByOS {
            f["childPid"] = "-"
            rec.record("callback_delivered", f)
            rec.record("signal", ["target": role.name, "signal": "KILL", "by": "ios", "delivery": String(delivery), "at": "launch"])
            rec.record("callback_failed", ["callback": call.callbackName, "delivery": String(delivery), "status": "killed by iOS at launch"])
            osApply(.callEnded(delivery: delivery, completed: false, response: nil))
            return
        }
        // Virtual time: a fault armed for this extension lands at launch, where its outcome does
        // not depend on how far the process got in wall time — a kill means the call never runs,
        // a stop that it runs only when continued.
        if stepped, let fault = table.takeArmedFault(role: role.name, now: ticks()) {
            switch fault.kind {
            case .kill, .term:
                f["childPid"] = "-"
                rec.record("callback_delivered", f)
                rec.record("signal", [
                    "target": role.name, "signal": fault.kind == .kill ? "KILL" : "TERM", "by": "nemesis",
                    "delivery": String(delivery), "at": "launch",
                ])
                rec.record("callback_failed", [
                    "callback": call.callbackName, "delivery": String(delivery), "status": "killed at launch",
                ])
                osApply(.callEnded(delivery: delivery, completed: false, response: nil))
            case .stop:
                f["deferredUntil"] = String(Double(ticks() + fault.holdTicks) / 1000)
                rec.record("callback_delivered", f)
                rec.record("signal", [
                    "target": role.name, "signal": "STOP", "by": "nemesis", "delivery": String(delivery), "at": "launch",
                ])
                deferredCalls.append((ticks() + fault.holdTicks, role, call, delivery))
            }
            return
        }
        launch(role, call, delivery: delivery, fields: f)
    }

    func launch(_ role: ProcessRole, _ call: ExtensionCall, delivery: Int, fields: [String: String]) {
        var f = fields
        do {
            let child = try start(role, extra: call.arguments(delivery: delivery))
            table.extensionStarted(role: role.name, pid: child.pid, callback: call.callbackName, delivery: delivery, wallNanos: Self.now())
            f["childPid"] = String(child.pid)
            rec.record(f["deferredUntil"] == nil ? "callback_delivered" : "callback_started", f)
        } catch {
            rec.record("callback_not_delivered", ["callback": call.callbackName, "delivery": String(delivery), "error": "\(error)"])
            osApply(.callEnded(delivery: delivery, completed: false, response: nil))
        }
    }

    /// Virtual time: calls held back by an armed stop, started at their tick.
    var deferredCalls: [(ticks: Int64, role: ProcessRole, call: ExtensionCall, delivery: Int)] = []

    /// Starts the deferred calls that are due; true if any.
    func launchDeferredCalls() -> Bool {
        let due = deferredCalls.filter { $0.ticks <= ticks() }
        guard !due.isEmpty else { return false }
        deferredCalls.removeAll { $0.ticks <= ticks() }
        for d in due {
            rec.record("signal", ["target": d.role.name, "signal": "CONT", "by": "nemesis", "delivery": String(d.delivery)])
            launch(d.role, d.call, delivery: d.delivery, fields: [
                "callback": d.call.callbackName, "delivery": String(d.delivery), "deferredUntil": String(Double(d.ticks) / 1000),
            ])
        }
        return true
    }

    /// Generations of the shims' notifications at the last scan (virtual time scans only when
    /// they moved or an interval boundary is due: scanning is the costliest part of a step).
    var scannedGenerations: [UInt64] = []

    /// Virtual time: shows the OS the files when the frameworks posted a change, and the clock
    /// when one of its deadlines came; true if anything was recorded or launched.
    @discardableResult
    func scanEmulatedOSIfNeeded() -> Bool {
        let gens = [EmulatedOSPaths.deviceActivityChanged, EmulatedOSPaths.managedSettingsChanged, SystemPaths.notificationsChanged]
            .map { (try? center.generation($0)) ?? 0 }
        let due = osDeadline.map { $0 <= steppedNow } ?? false
        guard gens != scannedGenerations || due else { return false }
        let before = rec.counts.values.reduce(0, +)
        osTick()
        if gens != scannedGenerations {
            scannedGenerations = gens
            osScan()
        }
        return rec.counts.values.reduce(0, +) != before
    }

    // MARK: The loop

    func loop() {
        if stepped { loopStepped() } else { loopFixedRate() }
    }

    func loopFixedRate() {
        var actionIndex = 0
        let actionTimes = plan.workload.actionTimes
        var faults = plan.faults[...]
        let deviceStart = o.scenario.clock.start.timeIntervalSince1970
        let workloadEnd = deviceStart + Double(plan.deviceDurationSeconds)
        let quiesceUntilDevice = workloadEnd + Double(o.scenario.settleSeconds)
        var quiescing = false
        var quiesceStarted: Int64 = 0
        var lastScan: Int64 = 0
        let hardDeadline = startNanos + Int64(plan.wallSpanMillis) * 1_000_000 + Self.overrunWallNanos
        var lastProgress = Self.now()
        while true {
            if stopRequested() { return }
            let now = Self.now()
            if now > hardDeadline {
                rec.record("run_overran", [
                    "why": "not settled \(Self.overrunWallNanos / 1_000_000_000) s of wall time after the plan's end",
                    "extensionCallsRunning": String(table.extensions.count),
                ])
                return
            }
            let deviceNow = clock.nowUnixSeconds()
            reap()
            execute(table.due(now: now))
            if !quiescing {
                let elapsedMillis = Int((now - startNanos) / 1_000_000)
                while let f = faults.first, f.atOffsetMillis <= elapsedMillis {
                    faults = faults.dropFirst()
                    execute(table.apply(f, now: now))
                }
            }
            while actionIndex < actionTimes.count, deviceStart + actionTimes[actionIndex] <= deviceNow {
                plan.workload.perform(action: actionIndex, on: self)
                actionIndex += 1
            }
            if osDirty.take() || now - lastScan > Self.scanIntervalNanos {
                lastScan = now
                osScan()
            }
            osTick()
            answerPrompts()
            if !quiescing { _ = rebootIfDue() }
            _ = osScheduleIfDue()
            if !quiescing && actionIndex == actionTimes.count && deviceNow >= workloadEnd {
                quiescing = true
                quiesceStarted = now
                rec.record("quiesce", [:])
                execute(table.beginQuiesce(now: now))
                reopenHostForSettling()
            }
            if quiescing && deviceNow >= quiesceUntilDevice && now - quiesceStarted >= Self.quiesceMinWallNanos
                && !table.extensionCallsRunning
            {
                return
            }
            if now - lastProgress > 2_000_000_000 {
                lastProgress = now
                let pct = Int(100 * min(1, (deviceNow - deviceStart) / max(1, quiesceUntilDevice - deviceStart)))
                let faultCount = table.faultCounts.values.reduce(0, +)
                o.progress("\(o.scenario.name)/\(o.variant.rawValue) seed \(o.seed): \(pct)% of device time, \(faultCount) faults")
            }
            usleep(Self.tickMicros)
        }
    }

    // MARK: Virtual time

    /// How long (wall) the system may take to go quiet at one device instant before the harness
    /// records who held it and moves on anyway: never a hang.
    static let quiescenceWallNanos: Int64 = 5_000_000_000

    /// The pids the nemesis holds stopped, and the server roles among them.
    func stoppedNow() -> (pids: Set<Int32>, services: Set<String>) {
        var pids = Set<Int32>()
        var services = Set<String>()
        for e in table.longLived where e.isStopped || e.osSuspended {
            if let pid = e.pid { pids.insert(pid) }
            if pack.descriptor.role(e.role)?.lifetime == .server { services.insert(e.role) }
        }
        for call in table.extensions where call.resumeAtNanos != nil { pids.insert(call.pid) }
        return (pids, services)
    }

    /// Waits until nothing holds device time at this instant (bounded).
    func quiesce() {
        lastQuiesceTimedOut = false
        let deadline = Self.now() + Self.quiescenceWallNanos
        var blockers: [String] = []
        // Blockers are worked out again only when something changed: a report came, a child
        // exited, or we posted a wake (reading the notify records is the costly part).
        var changed = true
        while true {
            if reap() { changed = true }
            if answerPrompts() { changed = true }
            let reports = schedulerInbox?.read(timeoutMillis: 0) ?? []
            for report in reports { scheduler.received(report) }
            if !reports.isEmpty { changed = true }
            let running = table.extensions.filter { $0.resumeAtNanos == nil }.map(\.role)
            if changed {
                changed = false
                let stopped = stoppedNow()
                var read: [String: UInt64] = [:]
                let generation: (String) -> UInt64 = { name in
                    if let g = read[name] { return g }
                    let g = (try? self.center.generation(name)) ?? 0
                    read[name] = g
                    return g
                }
                for pid in scheduler.toWake(now: steppedNow, generation: generation, stopped: stopped.pids) {
                    try? center.post(SchedulerChannel.wakeNotification(pid: pid))
                    read[SchedulerChannel.wakeNotification(pid: pid)] = nil
                }
                let exiting = table.longLived.filter { $0.pid != nil && $0.expectedExit && !$0.isStopped }.map(\.role)
                // A stopped server's port is withdrawn (`withdrawPort`), so every request ends at
                // once: a participant waiting for any answer holds time.
                blockers = scheduler.blockers(
                    now: steppedNow, generation: generation, stopped: stopped.pids, stoppedServices: [],
                    runningCalls: running, exiting: exiting)
                if blockers.isEmpty { return }
            }
            if Self.now() > deadline { break }
            // Participants answer through the FIFO, which wakes us at once; an exit does not, so
            // while calls run or processes die we look again within a millisecond.
            let waitingForExit = !running.isEmpty || table.longLived.contains { $0.pid != nil && $0.expectedExit }
            let wait: Int32 = waitingForExit ? 1 : 50
            let arrived = schedulerInbox?.read(timeoutMillis: wait) ?? []
            for report in arrived { scheduler.received(report) }
            if !arrived.isEmpty { changed = true }
        }
        lastQuiesceTimedOut = true
        quiescenceTimeouts += 1
        rec.record("quiescence_timeout", ["waitingFor": blockers.joined(separator: "; ")])
    }

    /// Moves the stepped clock to `t`; `quiesce` then wakes the participants whose deadline came.
    func advance(to t: Double) {
        steppedNow = t
        steps += 1
        do {
            try clock.write(.stepped(at: t, timeZone: deviceTimeZone), to: root)
        } catch {
            rec.record("clock_error", ["error": "\(error)"])
        }
    }

    func loopStepped() {
        let actionTimes = plan.workload.actionTimes
        var actionIndex = 0
        var faults = plan.faults[...]
        let deviceStart = o.scenario.clock.start.timeIntervalSince1970
        let workloadEnd = deviceStart + Double(plan.deviceDurationSeconds)
        let end = workloadEnd + Double(o.scenario.settleSeconds)
        var quiescing = false
        // Virtual time is far faster than the device; bound the wall time anyway.
        let hardDeadline = startNanos + Self.overrunWallNanos + Int64(Double(plan.deviceDurationSeconds + o.scenario.settleSeconds) / 100 * 1e9)
        var lastProgress = Self.now()
        quiesce()
        while true {
            if stopRequested() { return }
            // Everything due at this instant, in a fixed order, each followed by quiet.
            if scanEmulatedOSIfNeeded() { quiesce() }
            let due = table.due(now: ticks())
            if !due.isEmpty {
                execute(due)
                quiesce()
                if scanEmulatedOSIfNeeded() { quiesce() }
            }
            if launchDeferredCalls() {
                quiesce()
                if scanEmulatedOSIfNeeded() { quiesce() }
            }
            if !quiescing && rebootIfDue() {
                quiesce()
                continue
            }
            if osScheduleIfDue() {
                quiesce()
                while scanEmulatedOSIfNeeded() { quiesce() }
            }
            if !quiescing {
                while let f = faults.first, deviceStart + Double(f.atOffsetMillis) / 1000 <= steppedNow {
                    faults = faults.dropFirst()
                    faultAtQuiescentInstant = true
                    execute(table.apply(f, now: ticks()))
                    faultAtQuiescentInstant = false
                    quiesce()
                }
            }
            while actionIndex < actionTimes.count, deviceStart + actionTimes[actionIndex] <= steppedNow {
                resumesHeld = true
                plan.workload.perform(action: actionIndex, on: self)
                resumesHeld = false
                execute(heldResumes)
                heldResumes = []
                actionIndex += 1
                quiesce()
                while scanEmulatedOSIfNeeded() { quiesce() }
            }
            if !quiescing && actionIndex == actionTimes.count && steppedNow >= workloadEnd {
                quiescing = true
                rec.record("quiesce", [:])
                armedFaultsDropped()
                execute(table.beginQuiesce(now: ticks()))
                reopenHostForSettling()
                quiesce()
                continue
            }
            if quiescing && steppedNow >= end && !table.extensionCallsRunning && deferredCalls.isEmpty { return }
            if Self.now() > hardDeadline {
                rec.record("run_overran", [
                    "why": "virtual time did not reach the end within its wall-time bound",
                    "extensionCallsRunning": String(table.extensions.count),
                ])
                return
            }
            // The next instant anything happens.
            let stopped = stoppedNow()
            var candidates: [Double] = [quiescing ? end : workloadEnd]
            if let t = scheduler.nextDeadline(after: steppedNow, stopped: stopped.pids) { candidates.append(t) }
            if actionIndex < actionTimes.count { candidates.append(deviceStart + actionTimes[actionIndex]) }
            if !quiescing, let f = faults.first { candidates.append(deviceStart + Double(f.atOffsetMillis) / 1000) }
            if let t = table.nextDueTicks { candidates.append(Double(t) / 1000) }
            if let t = deferredCalls.map(\.ticks).min() { candidates.append(Double(t) / 1000) }
            if let t = osDeadline { candidates.append(t) }
            if !quiescing, let t = nextReboot { candidates.append(t) }
            if let t = nextScheduledOSEvent { candidates.append(t) }
            let next = candidates.filter { $0 > steppedNow }.min() ?? (steppedNow + 0.001)
            advance(to: next)
            quiesce()
            let wall = Self.now()
            if wall - lastProgress > 2_000_000_000 {
                lastProgress = wall
                let pct = Int(100 * min(1, (steppedNow - deviceStart) / max(1, end - deviceStart)))
                let faultCount = table.faultCounts.values.reduce(0, +)
                o.progress("\(o.scenario.name)/\(o.variant.rawValue) seed \(o.seed): \(pct)% of device time, \(faultCount) faults (virtual time)")
            }
        }
    }

    /// Armed extension faults do not outlive the workload (the settle time is fault-free).
    func armedFaultsDropped() {
        for (role, fault) in table.armed.sorted(by: { $0.key < $1.key }) {
            rec.record("fault_skipped", ["target": role, "kind": fault.kind.rawValue, "why": "no call before the workload ended"])
        }
    }

    // MARK: Finish

    func shutdownAll() {
        table.shuttingDown()
        for entry in table.longLived {
            guard let pid = entry.pid, let child = children[pid] else { continue }
            child.signal(SIGCONT)
            child.signal(SIGTERM)
            if child.wait(timeout: .seconds(2)) == nil { _ = child.killAndReap() }
            rec?.record("exit", [
                "target": entry.role, "childPid": String(pid), "status": "\(child.poll().map { "\($0)" } ?? "killed")", "by": "harness",
            ])
            children[pid] = nil
        }
        for call in table.extensions {
            _ = children[call.pid]?.killAndReap()
            children[call.pid] = nil
        }
        for (pid, child) in dying {
            if child.wait(timeout: .seconds(2)) == nil { _ = child.killAndReap() }
            dying[pid] = nil
        }
    }

    /// Stops everything, adds the pack's evidence and the quarantine records, merges the history.
    func finish() throws -> HistoryMerge.Merged {
        shutdownAll()
        recordTamperAtTheEnd()
        for e in pack.evidence(run: paths) { rec.record(e.event, e.fields) }
        for line in root.quarantineRecords() {
            let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            rec.record("quarantine", [
                "file": obj?["file"] as? String ?? "", "movedTo": obj?["movedTo"] as? String ?? "", "reason": obj?["reason"] as? String ?? line,
            ])
        }
        var finished = table.faultCounts.mapValues(String.init)
        if stepped {
            finished["steps"] = String(steps)
            finished["quiescenceTimeouts"] = String(quiescenceTimeouts)
        }
        rec.record("run_finished", finished)
        let merged = try HistoryMerge.merge(runDirectory: runDir)
        try OutputFile.write(merged.jsonl, to: runDir + "/history.jsonl", what: "the run's history")
        if merged.tornLines > 0 { o.progress("note: \(merged.tornLines) torn trace line(s) of killed processes skipped") }
        return merged
    }

    func writeReport(_ r: CheckReport) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        try OutputFile.write(enc.encode(r), to: runDir + "/report.json", what: "the run's report")
    }
}

public struct RunError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
