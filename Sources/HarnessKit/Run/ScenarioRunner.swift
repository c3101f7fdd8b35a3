import AppGroup
import FocusPledge
import Foundation
import History
import ScreenTimeShims
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// One run of one scenario × variant × seed: starts the stand-ins and the settlement server,
/// plays the user (workload) and iOS (callbacks, shields, relaunches) and the nemesis (seeded
/// SIGKILL / SIGTERM / SIGSTOP), records everything, then merges the history and checks it.
public final class ScenarioRunner {
    public struct Options: Sendable {
        public var scenario: Scenario
        public var scenarioPath: String
        public var variant: ScenarioVariant
        public var seed: UInt64
        public var durationOverride: Duration?
        /// Where the run directory goes (history, traces, schedule, report).
        public var outputDirectory: String
        /// Where host-app, monitor-extension, ... are (next to `harness`).
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
        /// Set when the run could not be decided (setup failure, crash of the harness's own logic).
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
    /// An extension still running after this is killed, as iOS's watchdog would.
    static let extensionWatchdogNanos: Int64 = 3_000_000_000
    /// Device time given to the system after the workload, to settle what is pending.
    static let quiesceDeviceSeconds: Double = 45 * 60
    static let quiesceMinWallNanos: Int64 = 1_500_000_000
    /// Hard bound on one run's wall time beyond its plan.
    static let overrunWallNanos: Int64 = 60_000_000_000
    static let startupTimeoutNanos: Int64 = 15_000_000_000

    let o: Options
    let runDir: String
    let deviceRootPath: String
    var root: DeviceRoot!
    var clock: DeviceClock!
    var rec: HarnessRecorder!
    var center: DarwinNotificationCenter!
    var inbox: AppInbox!
    var plan: ScenarioPlan!

    let host = ManagedProcess(name: "host-app")
    let server = ManagedProcess(name: "settlement-server")
    struct RunningExtension {
        let target: FaultTarget
        let child: ChildProcess
        let callback: String
        let delivery: Int
        let startedNanos: Int64
        var resumeAtNanos: Int64?
    }
    var extensions: [RunningExtension] = []
    var nextDelivery = 1
    var inboxSeq = 1
    var faultCounts: [String: Int] = [:]
    var lastShields: [String]?
    /// Registrations the emulated OS has seen: activity → (start, end, started, ended).
    var activities: [String: (start: Double, end: Double, started: Bool, ended: Bool)] = [:]
    let osDirty = Box(false)
    var startNanos: Int64 = 0
    var envBase: [String: String] = [:]

    final class Box<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var v: T
        init(_ v: T) { self.v = v }
        func swap(_ n: T) -> T { lock.lock(); defer { lock.unlock() }; let o = v; v = n; return o }
        func set(_ n: T) { lock.lock(); v = n; lock.unlock() }
    }

    public init(options: Options) {
        o = options
        let stamp = Int(Date().timeIntervalSince1970)
        runDir = "\(options.outputDirectory)/\(options.scenario.name)-\(options.variant.rawValue)-seed\(options.seed)-\(stamp)-\(getpid())"
        // The device root lives on tmpfs when there is one: notify round trips are ~4x faster.
        let base = DeviceRoot.resolvePath(environment: [:])
        deviceRootPath = (base as NSString).deletingLastPathComponent + "/runs/\(UUID().uuidString.prefix(12))"
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
            try loop()
            events = try finish()
            let history = try Data(contentsOf: URL(fileURLWithPath: runDir + "/history.jsonl"))
            let parsed = HistoryEvent.parse(jsonl: history)
            report = FocusPledgeChecker.check(parsed.events)
            try writeReport(report!)
        } catch {
            setupError = "\(error)"
            shutdownAll()
        }
        try? FileManager.default.removeItem(atPath: deviceRootPath)
        return Outcome(
            runDirectory: runDir, rerunCommand: rerunCommand(), report: report, setupError: setupError, faultCounts: faultCounts,
            wallSeconds: Double(Self.now() - t0) / 1e9, historyEvents: events)
    }

    func setUp() throws {
        try FileManager.default.createDirectory(atPath: runDir + "/logs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runDir + "/server", withIntermediateDirectories: true)
        root = try DeviceRoot(path: deviceRootPath)
        let cfg = DeviceClock.Configuration(
            epochUnixSeconds: o.scenario.clock.start.timeIntervalSince1970, rate: o.scenario.clock.rate,
            timeZone: o.scenario.clock.timeZone)
        try DeviceClock.write(cfg, to: root)
        clock = DeviceClock(deviceRoot: root)
        rec = try HarnessRecorder(runDirectory: runDir, clock: clock)
        center = try DarwinNotificationCenter(deviceRoot: root)
        inbox = try AppInbox(process: "host-app", deviceRoot: root, center: center)
        let osDirty = self.osDirty
        try center.addObserver(EmulatedOSPaths.deviceActivityChanged) { _ in osDirty.set(true) }
        try center.addObserver(EmulatedOSPaths.managedSettingsChanged) { _ in osDirty.set(true) }

        let deviceSeconds = o.durationOverride.map { Double($0.components.seconds) } ?? Double(o.scenario.durationSeconds)
        let wallSpan = Int(deviceSeconds / o.scenario.clock.rate * 1000)
        plan = ScenarioPlan.make(scenario: o.scenario, seed: o.seed, durationOverride: o.durationOverride, wallSpanMillis: max(wallSpan, 1))
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        enc.dateEncodingStrategy = .iso8601
        try enc.encode(plan).write(to: URL(fileURLWithPath: runDir + "/schedule.json"), options: .atomic)

        envBase = ProcessInfo.processInfo.environment
        envBase[DeviceRoot.environmentVariable] = deviceRootPath
        envBase[Entitlements.environmentVariable] = FocusPledgeKeys.appGroupId
        envBase["SCREENTIME_RUN_DIR"] = runDir
        envBase["SCREENTIME_VARIANT"] = o.variant.rawValue

        rec.record("run_started", [
            "scenario": o.scenario.name, "variant": o.variant.rawValue, "seed": String(o.seed),
            "rate": String(o.scenario.clock.rate), "staleAfterSeconds": String(o.scenario.server.staleAfterMinutes * 60),
            "pollSeconds": "5", "deviceRoot": deviceRootPath, "command": rerunCommand(),
        ])
        try spawnServer()
        try waitFor("settlement server port file") { FileManager.default.fileExists(atPath: self.runDir + "/settlement-server.port") }
        try spawnHost()
        try waitFor("host-app launch") { self.traceContains("host-app", "\"launched\"") }
        startNanos = Self.now()
    }

    func rerunCommand() -> String {
        var c = "harness run \(o.scenarioPath) --variant \(o.variant.rawValue) --seed \(o.seed)"
        if let d = o.durationOverride { c += " --duration \(d.components.seconds)s" }
        return c
    }

    func waitFor(_ what: String, _ cond: () -> Bool) throws {
        let deadline = Self.now() + Self.startupTimeoutNanos
        while !cond() {
            if Self.now() > deadline { throw RunError("timed out waiting for \(what) (logs in \(runDir)/logs)") }
            reapAll()
            usleep(2000)
        }
    }

    func traceContains(_ process: String, _ needle: String) -> Bool {
        guard let d = FileManager.default.contents(atPath: "\(runDir)/trace/\(process).jsonl") else { return false }
        return String(decoding: d, as: UTF8.self).contains(needle)
    }

    // MARK: Spawning

    func logFd(_ name: String) -> Int32 {
        open("\(runDir)/logs/\(name).log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    }

    func spawn(_ name: String, _ args: [String]) throws -> ChildProcess {
        let fd = logFd(name)
        defer { if fd >= 0 { close(fd) } }
        return try ChildProcess.spawn(
            o.binDirectory + "/" + name, args, environment: envBase, captureStdout: false, stdoutTo: fd, stderrTo: fd)
    }

    func spawnServer() throws {
        let c = try spawn("settlement-server", [
            "--journal", runDir + "/server/ledger.jsonl", "--port-file", runDir + "/settlement-server.port",
            "--trace", runDir + "/trace/settlement-server.jsonl", "--device-root", deviceRootPath,
            "--stale-after-seconds", String(o.scenario.server.staleAfterMinutes * 60), "--job-interval-ms", "20",
        ])
        server.child = c
        server.restartAtNanos = nil
        server.expectedExit = false
        rec.record("spawn", ["target": "settlement-server", "childPid": String(c.pid)])
    }

    func spawnHost() throws {
        let c = try spawn("host-app", [])
        host.child = c
        host.restartAtNanos = nil
        host.expectedExit = false
        rec.record("spawn", ["target": "host-app", "childPid": String(c.pid)])
    }

    /// iOS launches an extension process for one callback.
    func deliver(_ target: FaultTarget, callback: String, args: [String], fields: [String: String]) {
        let delivery = nextDelivery
        nextDelivery += 1
        do {
            let c = try spawn(target.rawValue, args + ["--delivery", String(delivery)])
            extensions.append(RunningExtension(target: target, child: c, callback: callback, delivery: delivery, startedNanos: Self.now()))
            var f = fields
            f["callback"] = callback
            f["delivery"] = String(delivery)
            f["childPid"] = String(c.pid)
            rec.record("callback_delivered", f)
        } catch {
            rec.record("callback_not_delivered", ["callback": callback, "error": "\(error)"])
        }
    }

    // MARK: The loop

    func loop() throws {
        var actions = plan.userActions[...]
        var faults = plan.faults[...]
        let deviceStart = o.scenario.clock.start.timeIntervalSince1970
        let lastSessionEnd = plan.sessions.map { deviceStart + $0.endDeviceOffsetSeconds }.max() ?? deviceStart
        let workloadEnd = max(deviceStart + Double(plan.deviceDurationSeconds), lastSessionEnd)
        let quiesceUntilDevice = workloadEnd + Self.quiesceDeviceSeconds
        var quiescing = false
        var quiesceStarted: Int64 = 0
        var lastScan: Int64 = 0
        let hardDeadline = startNanos + Int64(plan.wallSpanMillis) * 1_000_000 + Self.overrunWallNanos
        var lastProgress = Self.now()
        while true {
            let now = Self.now()
            if now > hardDeadline { throw RunError("run exceeded its wall-time bound; the system did not settle") }
            let deviceNow = clock.nowUnixSeconds()
            reapAll()
            restartDue(now)
            resumeDue(now)
            if !quiescing {
                let elapsedMillis = Int((now - startNanos) / 1_000_000)
                while let f = faults.first, f.atWallOffsetMillis <= elapsedMillis {
                    faults = faults.dropFirst()
                    apply(f, now: now)
                }
            }
            while let a = actions.first, deviceStart + a.atDeviceOffsetSeconds <= deviceNow {
                actions = actions.dropFirst()
                perform(a.action)
            }
            if osDirty.swap(false) || now - lastScan > 20_000_000 {
                lastScan = now
                scanEmulatedOS(deviceNow: deviceNow)
            }
            if !quiescing && actions.isEmpty && deviceNow >= workloadEnd {
                quiescing = true
                quiesceStarted = now
                beginQuiesce()
            }
            if quiescing && deviceNow >= quiesceUntilDevice && now - quiesceStarted >= Self.quiesceMinWallNanos && extensions.isEmpty {
                break
            }
            if now - lastProgress > 2_000_000_000 {
                lastProgress = now
                let pct = Int(100 * min(1, (deviceNow - deviceStart) / (quiesceUntilDevice - deviceStart)))
                o.progress("\(o.scenario.name)/\(o.variant.rawValue) seed \(o.seed): \(pct)% of device time, \(faultCounts.values.reduce(0, +)) faults")
            }
            usleep(Self.tickMicros)
        }
    }

    func perform(_ a: UserAction) {
        switch a {
        case .selectApps(let apps):
            rec.record("user_action", ["action": "select_apps", "apps": apps.joined(separator: ",")])
            sendInbox(InboxMessage(seq: 0, action: "select_apps", apps: apps))
        case .startSession(let sid, let minutes):
            rec.record("user_action", ["action": "start_session", "sid": sid, "durationMinutes": String(minutes)])
            sendInbox(InboxMessage(seq: 0, action: "start_session", sessionId: sid, durationMinutes: minutes))
        case .stopSession(let sid):
            rec.record("user_action", ["action": "stop_session", "sid": sid])
            sendInbox(InboxMessage(seq: 0, action: "stop_session", sessionId: sid))
        case .openBlockedApp(let app, let sid):
            // DeviceActivity counts the use only while the session's activity is monitored.
            let activity = FocusPledgeKeys.activityName(sessionId: sid)
            let deviceNow = clock.nowUnixSeconds()
            let monitored = activities[activity].map { deviceNow >= $0.start && deviceNow < $0.end } ?? false
            rec.record("user_action", ["action": "open_blocked_app", "sid": sid, "app": app, "monitored": String(monitored)])
            if monitored {
                deliver(.monitorExtension, callback: "eventDidReachThreshold",
                        args: ["--callback", "eventDidReachThreshold", "--activity", activity, "--event", "blocked_app_opened"],
                        fields: ["sid": sid, "activity": activity, "app": app])
            }
        case .pressShieldButton(let app, let sid):
            // A shield button exists only while the app is shielded.
            let shielded = ManagedSettingsStore.shieldedApplications(deviceRoot: root).contains(app)
            rec.record("user_action", ["action": "press_shield_button", "sid": sid, "app": app, "shielded": String(shielded)])
            if shielded {
                deliver(.shieldActionExtension, callback: "shieldAction",
                        args: ["--action", "primary", "--app", app], fields: ["sid": sid, "app": app])
            }
        }
    }

    func sendInbox(_ m: InboxMessage) {
        var m = m
        m.seq = inboxSeq
        inboxSeq += 1
        do { try inbox.send(m) } catch { rec.record("inbox_error", ["error": "\(error)"]) }
    }

    /// The emulated OS: shield ground truth and DeviceActivity interval callbacks.
    func scanEmulatedOS(deviceNow: Double) {
        let apps = ManagedSettingsStore.shieldedApplications(deviceRoot: root).sorted()
        if apps != lastShields {
            lastShields = apps
            rec.record("shields", ["apps": apps.joined(separator: ",")])
        }
        let regs = DeviceActivityCenter.registrations(deviceRoot: root)
        var seen = Set<String>()
        for r in regs {
            seen.insert(r.activity)
            let s = r.schedule.intervalStart.timeIntervalSince1970, e = r.schedule.intervalEnd.timeIntervalSince1970
            if activities[r.activity] == nil || activities[r.activity]!.start != s || activities[r.activity]!.end != e {
                activities[r.activity] = (s, e, false, false)
            }
            var st = activities[r.activity]!
            let sid = FocusPledgeKeys.sessionId(fromActivity: r.activity) ?? ""
            if !st.started && deviceNow >= s {
                st.started = true
                deliver(.monitorExtension, callback: "intervalDidStart", args: ["--callback", "intervalDidStart", "--activity", r.activity], fields: ["sid": sid, "activity": r.activity])
            }
            if !st.ended && deviceNow >= e {
                st.ended = true
                deliver(.monitorExtension, callback: "intervalDidEnd", args: ["--callback", "intervalDidEnd", "--activity", r.activity], fields: ["sid": sid, "activity": r.activity])
            }
            activities[r.activity] = st
        }
        // stopMonitoring of an ongoing interval delivers intervalDidEnd.
        for (name, st) in activities where !seen.contains(name) {
            if st.started && !st.ended {
                let sid = FocusPledgeKeys.sessionId(fromActivity: name) ?? ""
                deliver(.monitorExtension, callback: "intervalDidEnd", args: ["--callback", "intervalDidEnd", "--activity", name], fields: ["sid": sid, "activity": name, "why": "stopMonitoring"])
            }
            activities[name] = nil
        }
    }

    // MARK: Nemesis

    func apply(_ f: PlannedFault, now: Int64) {
        let sig: Int32
        let sigName: String
        switch f.kind {
        case .kill: (sig, sigName) = (SIGKILL, "KILL")
        case .term: (sig, sigName) = (SIGTERM, "TERM")
        case .stop: (sig, sigName) = (SIGSTOP, "STOP")
        }
        let hold = Int64(f.holdMillis) * 1_000_000
        switch f.target {
        case .hostApp, .settlementServer:
            let p = f.target == .hostApp ? host : server
            guard let c = p.child, !p.isStopped else {
                rec.record("fault_skipped", ["target": p.name, "kind": f.kind.rawValue, "why": p.isStopped ? "stopped" : "not running"])
                return
            }
            c.signal(sig)
            rec.record("signal", ["target": p.name, "childPid": String(c.pid), "signal": sigName, "by": "nemesis"])
            faultCounts[f.kind.rawValue, default: 0] += 1
            if f.kind == .stop {
                p.resumeAtNanos = now + hold
            } else {
                p.expectedExit = true
                p.restartAtNanos = now + hold
            }
        case .monitorExtension, .shieldActionExtension:
            guard let i = extensions.firstIndex(where: { $0.target == f.target && $0.resumeAtNanos == nil }) else {
                rec.record("fault_skipped", ["target": f.target.rawValue, "kind": f.kind.rawValue, "why": "not running"])
                return
            }
            extensions[i].child.signal(sig)
            rec.record("signal", ["target": f.target.rawValue, "childPid": String(extensions[i].child.pid), "signal": sigName, "by": "nemesis", "delivery": String(extensions[i].delivery)])
            faultCounts[f.kind.rawValue, default: 0] += 1
            if f.kind == .stop { extensions[i].resumeAtNanos = now + hold }
        }
    }

    func resumeDue(_ now: Int64) {
        for p in [host, server] {
            if let r = p.resumeAtNanos, r <= now {
                p.resumeAtNanos = nil
                if let c = p.child {
                    c.signal(SIGCONT)
                    rec.record("signal", ["target": p.name, "childPid": String(c.pid), "signal": "CONT", "by": "nemesis"])
                }
            }
        }
        for i in extensions.indices {
            if let r = extensions[i].resumeAtNanos, r <= now {
                extensions[i].resumeAtNanos = nil
                extensions[i].child.signal(SIGCONT)
                rec.record("signal", ["target": extensions[i].target.rawValue, "childPid": String(extensions[i].child.pid), "signal": "CONT", "by": "nemesis"])
            }
        }
    }

    func restartDue(_ now: Int64) {
        if let r = server.restartAtNanos, r <= now, server.child == nil {
            do { try spawnServer() } catch { rec.record("spawn_failed", ["target": "settlement-server", "error": "\(error)"]) ; server.restartAtNanos = now + 100_000_000 }
        }
        // Relaunching the host = the user opening the app again.
        if let r = host.restartAtNanos, r <= now, host.child == nil {
            do { try spawnHost() } catch { rec.record("spawn_failed", ["target": "host-app", "error": "\(error)"]); host.restartAtNanos = now + 100_000_000 }
        }
    }

    func reapAll() {
        for p in [host, server] {
            guard let c = p.child, let status = c.poll() else { continue }
            rec.record("exit", ["target": p.name, "childPid": String(c.pid), "status": "\(status)"])
            p.child = nil
            p.resumeAtNanos = nil
            if !p.expectedExit {
                // It died on its own (a crash): iOS/the user brings it back, but not forever.
                p.unexpectedExits += 1
                if p.unexpectedExits <= ManagedProcess.maxUnexpectedExits {
                    p.restartAtNanos = Self.now() + 50_000_000
                } else {
                    rec.record("gave_up_restarting", ["target": p.name])
                }
            }
            p.expectedExit = false
        }
        let now = Self.now()
        extensions.removeAll { e in
            if let status = e.child.poll() {
                let f = ["callback": e.callback, "delivery": String(e.delivery), "childPid": String(e.child.pid), "status": "\(status)"]
                rec.record(status == .exited(0) ? "callback_completed" : "callback_failed", f)
                return true
            }
            if now - e.startedNanos > Self.extensionWatchdogNanos && e.resumeAtNanos == nil {
                e.child.signal(SIGKILL)
                rec.record("signal", ["target": e.target.rawValue, "childPid": String(e.child.pid), "signal": "KILL", "by": "watchdog"])
            }
            return false
        }
    }

    func beginQuiesce() {
        rec.record("quiesce", [:])
        for p in [host, server] {
            if p.isStopped, let c = p.child {
                c.signal(SIGCONT)
                p.resumeAtNanos = nil
                rec.record("signal", ["target": p.name, "childPid": String(c.pid), "signal": "CONT", "by": "harness"])
            }
            if p.child == nil { p.restartAtNanos = Self.now() }
        }
        for i in extensions.indices where extensions[i].resumeAtNanos != nil {
            extensions[i].resumeAtNanos = nil
            extensions[i].child.signal(SIGCONT)
        }
    }

    // MARK: Finish

    func shutdownAll() {
        for p in [host, server] {
            guard let c = p.child else { continue }
            p.expectedExit = true
            c.signal(SIGCONT)
            c.signal(SIGTERM)
            if c.wait(timeout: .seconds(2)) == nil { c.killAndReap() }
            rec?.record("exit", ["target": p.name, "childPid": String(c.pid), "status": "\(c.poll().map { "\($0)" } ?? "killed")", "by": "harness"])
            p.child = nil
        }
        for e in extensions { e.child.killAndReap() }
        extensions.removeAll()
    }

    /// Stops everything, adds the ledger and quarantine records, merges the history.
    func finish() throws -> Int {
        shutdownAll()
        for s in try ledgerSettlements() { rec.record("ledger", s) }
        for line in root.quarantineRecords() {
            let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            rec.record("quarantine", ["file": obj?["file"] as? String ?? "", "movedTo": obj?["movedTo"] as? String ?? "", "reason": obj?["reason"] as? String ?? line])
        }
        rec.record("run_finished", faultCounts.mapValues(String.init))
        return try mergeHistory()
    }

    /// The settlement server's durable journal: the authority on what was settled.
    func ledgerSettlements() throws -> [[String: String]] {
        guard let data = FileManager.default.contents(atPath: runDir + "/server/ledger.jsonl") else { return [] }
        var out: [[String: String]] = []
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let obj = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any], obj["type"] as? String == "settled",
                let s = obj["settlement"] as? [String: Any]
            else { continue }
            var f: [String: String] = [:]
            for k in ["sessionId", "resolution", "reason", "idempotencyKey", "origin", "previousStatus"] { f[k] = s[k].map { "\($0)" } ?? "" }
            f["ledgerSeq"] = (s["ledgerSeq"] as? NSNumber).map { "\($0.int64Value)" } ?? ""
            f["settledAtUnixMillis"] = (s["settledAtUnixMillis"] as? NSNumber).map { "\($0.int64Value)" } ?? ""
            out.append(f)
        }
        return out
    }

    func mergeHistory() throws -> Int {
        var all: [HistoryEvent] = []
        var torn = 0
        let dir = runDir + "/trace"
        for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where name.hasSuffix(".jsonl") {
            guard let d = FileManager.default.contents(atPath: dir + "/" + name) else { continue }
            let p = HistoryEvent.parse(jsonl: d)
            all += p.events
            torn += p.badLines.count
        }
        all.sort { ($0.mono, $0.process, $0.pid) < ($1.mono, $1.process, $1.pid) }
        var out = Data()
        for e in all { out.append(Data((e.jsonLine() + "\n").utf8)) }
        try out.write(to: URL(fileURLWithPath: runDir + "/history.jsonl"), options: .atomic)
        if torn > 0 { o.progress("note: \(torn) torn trace line(s) of killed processes skipped") }
        return all.count
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
