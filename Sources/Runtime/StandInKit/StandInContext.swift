import AppGroup
import Foundation
import History
import Logging
import StandInRuntime
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// What every stand-in gets from its environment, as iOS would give it: the device root
/// (`SCREENTIME_DEVICE_ROOT`), its entitlements (`APP_GROUPS`), and from the harness the run
/// directory for its trace (`SCREENTIME_RUN_DIR`) and the variant (`SCREENTIME_VARIANT`)
/// (EMULATED-IOS.md §7). The pack names the role and its App Group suite.
public final class StandInContext: @unchecked Sendable {
    public let process: String
    /// The variant's name; the pack turns it into its own variant type.
    public let variant: String
    public let root: DeviceRoot
    public let runDirectory: String
    public let clock: DeviceClock
    public let center: DarwinNotificationCenter
    public let container: AppGroupContainer
    public let defaults: SharedDefaults
    public let trace: TraceLog
    public let logger: Logger

    public static let runDirectoryVariable = "SCREENTIME_RUN_DIR"
    public static let variantVariable = "SCREENTIME_VARIANT"

    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `appGroup`: the group whose container the process uses; `suite`: its shared defaults suite
    /// (`UserDefaults(suiteName:)`), by default the group id, as the seeds do.
    public init(
        process: String, appGroup: String, suite: String? = nil,
        environment env: [String: String] = StandInEnvironment.current
    ) throws {
        self.process = process
        StandInLogging.bootstrap()
        logger = Logger(label: process)
        guard let rootPath = env[DeviceRoot.environmentVariable] else { throw SetupError(description: "\(DeviceRoot.environmentVariable) is not set") }
        guard let run = env[Self.runDirectoryVariable] else { throw SetupError(description: "\(Self.runDirectoryVariable) is not set") }
        guard let variant = env[Self.variantVariable], !variant.isEmpty else {
            throw SetupError(description: "\(Self.variantVariable) is not set")
        }
        self.variant = variant
        runDirectory = run
        root = try DeviceRoot(path: rootPath, create: false)
        let clock = DeviceClock(deviceRoot: root)
        self.clock = clock
        center = try DarwinNotificationCenter(deviceRoot: root)
        container = try AppGroupContainer(deviceRoot: root, groupIdentifier: appGroup, entitlements: .fromEnvironment(env))
        defaults = try SharedDefaults(container: container, suiteName: suite ?? appGroup)
        let trace = try TraceLog(runDirectory: run, process: process, deviceTime: { clock.nowUnixSeconds() })
        self.trace = trace
        // Inside the harness, a launch that ends (killed, or its code returned) closes its trace:
        // threads its code started write nothing after, as of a process that is gone.
        CrashPoints.closeAtProcessEnd { trace.close() }
        OSLogTrace.install(trace)
        // A harness-armed defaults fault (PROTOCOL.md §3, EMULATED-IOS.md §10.5) shows in the history where it acted.
        defaults.onFault = { kind, fields in trace.log("defaults_fault", fields.merging(["kind": kind]) { a, _ in a }) }
        SharedDefaults.faultObserver = { kind, fields in trace.log("defaults_fault", fields.merging(["kind": kind]) { a, _ in a }) }
        // Crash points and failpoints, when the harness turns them on (CRASH-POINTS.md §11): a
        // failpoint that fires is traced before it acts (for `kill`, the process's last line).
        try CrashPoints.configure(process: process, environment: env)
        CrashPoints.onFire = { label, term in
            trace.log("failpoint", ["label": label, "action": term.description])
        }
        if env[Self.traceDefaultsVariable] == "1" {
            defaults.onWrite = { changes in trace.log("defaults_set", Self.traceFields(suite: suite ?? appGroup, changes)) }
            // The seed's own `UserDefaults(suiteName:)` instances too: their writes are what a checker judges.
            SharedDefaults.suiteWriteObserver = { name, changes in trace.log("defaults_set", Self.traceFields(suite: name, changes)) }
        }
    }

    /// `1`: every write to the process's App Group suite is traced as `defaults_set` (PROTOCOL.md
    /// §3): what a seed's own code wrote, for checkers that judge writes (a key registry, a flag).
    public static let traceDefaultsVariable = "SCREENTIME_TRACE_DEFAULTS"
    /// Values longer than this are cut in the trace (the suite has the whole value).
    static let tracedValueCharacters = 80

    /// `suite`, `keys` (sorted, comma-separated) and `v.<key>` per key: the value as one short
    /// line, `<removed>` for a removal.
    static func traceFields(suite: String, _ changes: [String: PropertyListValue?]) -> [String: String] {
        var f = ["suite": suite, "keys": changes.keys.sorted().joined(separator: ",")]
        for (k, v) in changes {
            let text = v.map(plain) ?? "<removed>"
            let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            f["v." + k] = line.count > tracedValueCharacters ? String(line.prefix(tracedValueCharacters)) + "…" : line
        }
        return f
    }

    /// A value as a person reads it: `true`, `42`, `1.5`, `text`, `[a, b]`, data as its UTF-8 text
    /// when it is some (JSON, as seed 003 writes), else `<N bytes>`.
    static func plain(_ v: PropertyListValue) -> String {
        switch v {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .bool(let b): return String(b)
        case .date(let d): return String(d.timeIntervalSince1970)
        case .data(let d): return String(data: d, encoding: .utf8) ?? "<\(d.count) bytes>"
        case .array(let a): return "[" + a.map(plain).joined(separator: ", ") + "]"
        case .dictionary(let d): return "{" + d.sorted { $0.key < $1.key }.map { "\($0.key): \(plain($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    /// The suite as it is now; a store error is traced and reads as empty (the app would see nil).
    public func snapshot() -> [String: PropertyListValue] {
        do { return try defaults.snapshot() } catch {
            trace.log("store_error", ["op": "read", "error": "\(error)"])
            return [:]
        }
    }

    /// The process's own store (`UserDefaults.standard`): `sandboxes/<process>/Library/Preferences/standard.plist`,
    /// opened on first use. No other process opens it; it survives kills and relaunches.
    public func privateDefaults() throws -> SharedDefaults {
        privateLock.lock()
        defer { privateLock.unlock() }
        if let d = privateStore.value { return d }
        let d = try SharedDefaults(container: AppGroupContainer(sandboxOf: process, deviceRoot: root), suiteName: Self.privateSuite)
        let trace = trace
        d.onFault = { kind, fields in trace.log("defaults_fault", fields.merging(["kind": kind]) { a, _ in a }) }
        privateStore.value = d
        return d
    }

    /// The private store as it is now; an error is traced and reads as empty.
    public func privateSnapshot() -> [String: PropertyListValue] {
        do { return try privateDefaults().snapshot() } catch {
            trace.log("private_store_error", ["op": "read", "error": "\(error)"])
            return [:]
        }
    }

    /// The suite name of every process's private store.
    public static let privateSuite = "standard"
    private let privateLock = NSLock()
    private final class Box: @unchecked Sendable { var value: SharedDefaults? }
    private let privateStore = Box()

    /// Where a server role publishes its port (HISTORY.md §8).
    public static func portFile(runDirectory: String, service: String) -> String {
        runDirectory + "/ports/\(service).port"
    }

    /// One line on stderr (the process's log) and exit 2: a stand-in that cannot start says why.
    public static func fail(_ process: String, _ message: String) -> Never {
        StandInLogging.bootstrap()
        Logger(label: process).critical("\(message)")
        // A stand-in the harness runs in its own process ends its thread, not the harness.
        if let inProcess = InProcessStandIns.current { inProcess.end(2) }
        exit(2)
    }
}

/// swift-log for every stand-in: one line per message on stderr, which the harness keeps in
/// `logs/<process>.log`.
public enum StandInLogging {
    nonisolated(unsafe) static var done = false
    static let lock = NSLock()

    public static func bootstrap() {
        lock.lock()
        defer { lock.unlock() }
        guard !done else { return }
        done = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
    }
}
