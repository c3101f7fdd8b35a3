import AppGroup
import Foundation
import History
import ScreenTimeShims
import Supervision
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// One run of one scenario × variant × seed: starts the system's processes, plays the user (the
/// pack's workload), iOS (`EmulatedOS`: shields, callbacks, relaunches) and the nemesis
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

        public init(
            scenario: Scenario, scenarioPath: String, variant: ScenarioVariant, seed: UInt64, durationOverride: Duration?,
            outputDirectory: String, binDirectory: String, progress: @escaping @Sendable (String) -> Void
        ) {
            self.scenario = scenario
            self.scenarioPath = scenarioPath
            self.variant = variant
            self.seed = seed
            self.durationOverride = durationOverride
            self.outputDirectory = outputDirectory
            self.binDirectory = binDirectory
            self.progress = progress
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
    var clock: DeviceClock!
    var rec: HarnessRecorder!
    var center: DarwinNotificationCenter!
    var plan: ScenarioPlan!

    var table: ProcessTable
    var os = EmulatedOS()
    var children: [Int32: ChildProcess] = [:]
    var inboxes: [String: AppInbox] = [:]
    var nextDelivery = 1
    var inboxSeq = 1
    let osDirty = Flag()
    var envBase: [String: String] = [:]
    var startNanos: Int64 = 0

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
        let base = DeviceRoot.resolvePath(environment: [:])
        deviceRootPath = (base as NSString).deletingLastPathComponent + "/runs/\(UUID().uuidString.prefix(12))"
        paths = RunPaths(runDirectory: runDir, deviceRoot: deviceRootPath)
        table = ProcessTable(longLivedRoles: pack.descriptor.roles.filter(\.lifetime.isLongLived).map(\.name))
    }

    static func now() -> Int64 { TraceLog.monotonicNanos() }

    // MARK: Run

    public func run() -> Outcome {
        let t0 = Self.now()
        var setupError: String?
        var report: CheckReport?
        var events = 0
        do {
            try setUp()
            loop()
            let merged = try finish()
            events = merged.events.count
            report = pack.check(merged.events)
            try writeReport(report!)
        } catch {
            setupError = "\(error)"
            shutdownAll()
        }
        try? FileManager.default.removeItem(atPath: deviceRootPath)
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
        let cfg = DeviceClock.Configuration(
            epochUnixSeconds: o.scenario.clock.start.timeIntervalSince1970, rate: o.scenario.clock.rate,
            timeZone: o.scenario.clock.timeZone)
        try DeviceClock.write(cfg, to: root)
        clock = DeviceClock(deviceRoot: root)
        rec = try HarnessRecorder(runDirectory: runDir, clock: clock)
        center = try DarwinNotificationCenter(deviceRoot: root)
        let osDirty = self.osDirty
        try center.addObserver(EmulatedOSPaths.deviceActivityChanged) { _ in osDirty.set() }
        try center.addObserver(EmulatedOSPaths.managedSettingsChanged) { _ in osDirty.set() }

        plan = ScenarioPlan.make(scenario: o.scenario, seed: o.seed, durationOverride: o.durationOverride)
        try plan.jsonData().write(to: URL(fileURLWithPath: runDir + "/schedule.json"), options: .atomic)

        envBase = ProcessInfo.processInfo.environment
        envBase[DeviceRoot.environmentVariable] = deviceRootPath
        envBase[Entitlements.environmentVariable] = pack.descriptor.appGroups.joined(separator: ",")
        envBase["SCREENTIME_RUN_DIR"] = runDir
        envBase["SCREENTIME_VARIANT"] = o.variant.rawValue

        var started = [
            "scenario": o.scenario.name, "system": pack.id, "variant": o.variant.rawValue, "seed": String(o.seed),
            "rate": String(o.scenario.clock.rate), "deviceRoot": deviceRootPath, "command": rerunCommand(),
        ]
        started.merge(pack.runFacts(o.scenario.configuration)) { core, _ in core }
        rec.record("run_started", started)
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
            ready = {
                guard let d = FileManager.default.contents(atPath: self.paths.trace(role.name)) else { return false }
                return String(decoding: d, as: UTF8.self).contains("\"event\":\"\(event)\"")
            }
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
        let child = try ChildProcess.spawn(
            o.binDirectory + "/" + role.executable, role.arguments + extra, environment: envBase, captureStdout: false,
            stdoutTo: fd, stderrTo: fd)
        children[child.pid] = child
        return child
    }

    /// Starts a long-lived role and records it.
    func spawn(_ name: String) throws {
        guard let role = pack.descriptor.role(name) else { throw RunError("\(pack.id) has no role \(name)") }
        let child = try start(role, extra: pack.launchArguments(for: role, configuration: o.scenario.configuration, run: paths))
        table.spawned(role: name, pid: child.pid)
        rec.record("spawn", ["target": name, "childPid": String(child.pid)])
    }

    func execute(_ commands: [ProcessTable.Command]) {
        for command in commands {
            switch command {
            case .spawn(let role):
                do { try spawn(role) } catch {
                    execute(table.spawnFailed(role: role, error: "\(error)", now: Self.now()))
                }
            case .signal(let pid, let signal):
                guard let child = children[pid] else { continue }
                switch signal {
                case .kill: child.signal(SIGKILL)
                case .term: child.signal(SIGTERM)
                case .stop: child.signal(SIGSTOP)
                case .cont: child.signal(SIGCONT)
                }
            case .record(let event, let fields):
                rec.record(event, fields)
            }
        }
    }

    func reap() {
        let order = table.longLived.compactMap(\.pid) + table.extensions.map(\.pid)
        for pid in order {
            guard let child = children[pid], let status = child.poll() else { continue }
            children[pid] = nil
            execute(table.exited(pid: pid, status: "\(status)", clean: status == .exited(0), now: Self.now()))
        }
    }

    // MARK: UserDevice (what the pack's workload does through the harness)

    public var now: Double { clock.nowUnixSeconds() }

    public func record(_ action: String, _ fields: [String: String]) {
        var f = fields
        f["action"] = action
        rec.record("user_action", f)
    }

    public func tap(in role: String, _ message: AppMessage) {
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

    public func isMonitored(_ activity: String) -> Bool { os.isMonitored(activity, now: now) }

    /// iOS launches an extension process for one call.
    public func deliver(_ call: ExtensionCall, label: [String: String]) {
        guard let role = pack.descriptor.role(for: call.point) else {
            rec.record("callback_not_delivered", ["callback": call.callbackName, "why": "\(pack.id) has no \(call.point.rawValue) extension"])
            return
        }
        guard !table.extensionCallsFull else {
            rec.record("callback_not_delivered", ["callback": call.callbackName, "why": "too many extension calls running"])
            return
        }
        let delivery = nextDelivery
        nextDelivery += 1
        do {
            let child = try start(role, extra: call.arguments(delivery: delivery))
            table.extensionStarted(role: role.name, pid: child.pid, callback: call.callbackName, delivery: delivery, now: Self.now())
            var f = label
            f["callback"] = call.callbackName
            f["delivery"] = String(delivery)
            f["childPid"] = String(child.pid)
            rec.record("callback_delivered", f)
        } catch {
            rec.record("callback_not_delivered", ["callback": call.callbackName, "error": "\(error)"])
        }
    }

    /// The emulated OS looks at the shims' files.
    func scanEmulatedOS() {
        let registrations = DeviceActivityCenter.registrations(deviceRoot: root).map {
            EmulatedOS.Registration(
                activity: $0.activity, start: $0.schedule.intervalStart.timeIntervalSince1970,
                end: $0.schedule.intervalEnd.timeIntervalSince1970)
        }
        for step in os.observe(shielded: shieldedApplications, registrations: registrations, now: now) {
            switch step {
            case .record(let event, let fields): rec.record(event, fields)
            case .deliver(let call, let label): deliver(call, label: label)
            }
        }
    }

    // MARK: The loop

    func loop() {
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
                while let f = faults.first, f.atWallOffsetMillis <= elapsedMillis {
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
                scanEmulatedOS()
            }
            if !quiescing && actionIndex == actionTimes.count && deviceNow >= workloadEnd {
                quiescing = true
                quiesceStarted = now
                rec.record("quiesce", [:])
                execute(table.beginQuiesce(now: now))
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
    }

    /// Stops everything, adds the pack's evidence and the quarantine records, merges the history.
    func finish() throws -> HistoryMerge.Merged {
        shutdownAll()
        for e in pack.evidence(run: paths) { rec.record(e.event, e.fields) }
        for line in root.quarantineRecords() {
            let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            rec.record("quarantine", [
                "file": obj?["file"] as? String ?? "", "movedTo": obj?["movedTo"] as? String ?? "", "reason": obj?["reason"] as? String ?? line,
            ])
        }
        rec.record("run_finished", table.faultCounts.mapValues(String.init))
        let merged = try HistoryMerge.merge(runDirectory: runDir)
        try merged.jsonl.write(to: URL(fileURLWithPath: runDir + "/history.jsonl"), options: .atomic)
        if merged.tornLines > 0 { o.progress("note: \(merged.tornLines) torn trace line(s) of killed processes skipped") }
        return merged
    }

    func writeReport(_ r: CheckReport) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        try enc.encode(r).write(to: URL(fileURLWithPath: runDir + "/report.json"), options: .atomic)
    }
}

public struct RunError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
