import SystemKit

/// What a seed system is, as `harness systems` prints it: everything the core needs to know about
/// a pack without running it.
public struct SystemDescriptor: Sendable, Codable, Equatable {
    /// The scenario's `system:` value, e.g. `focuspledge`.
    public var id: String
    /// E.g. "FocusPledge".
    public var title: String
    /// The seed document it follows, e.g. "000".
    public var seed: String
    /// Variants its machines implement; `as-written` (the seed literally) comes first.
    public var variants: [String]
    /// App Group identifiers its processes are entitled to (`APP_GROUPS`).
    public var appGroups: [String]
    public var roles: [ProcessRole]
    /// One per promise of the seed the checker judges.
    public var invariants: [InvariantDescriptor]
    /// Top-level scenario keys the pack reads (besides the common name, system, variants, clock,
    /// duration, nemesis), e.g. `workload`, `server`.
    public var scenarioKeys: [String]
    /// Device time after the workload before the run is judged, when a scenario names no
    /// `settle:`: long enough for the system's own slowest promise (FocusPledge: its server's
    /// stale-heartbeat job) — the pack's to say, not the core's.
    public var defaultSettleSeconds: Int
    /// The latency series its checker measures (`CheckReport.latencies`), in report order.
    public var latencySeries: [LatencySeriesDescriptor]
    /// Its heartbeat writers and the monitors that decide from them (`HeartbeatJudge`).
    public var heartbeats: HeartbeatModel
    /// Whether the user taps again when the app died in their tap, when a scenario names no
    /// `user.retry`: what a user would do in the seed's flow (the pack's README says why).
    public var userRetry: UserRetry

    public init(
        id: String, title: String, seed: String, variants: [String], appGroups: [String], roles: [ProcessRole],
        invariants: [InvariantDescriptor], scenarioKeys: [String], defaultSettleSeconds: Int,
        latencySeries: [LatencySeriesDescriptor] = [], heartbeats: HeartbeatModel = .none, userRetry: UserRetry = .always
    ) {
        self.id = id
        self.title = title
        self.seed = seed
        self.variants = variants
        self.appGroups = appGroups
        self.roles = roles
        self.invariants = invariants
        self.scenarioKeys = scenarioKeys
        self.defaultSettleSeconds = defaultSettleSeconds
        self.latencySeries = latencySeries
        self.heartbeats = heartbeats
        self.userRetry = userRetry
    }

    public func role(_ name: String) -> ProcessRole? { roles.first { $0.name == name } }

    /// The role that receives calls at `point`, if the system has that extension.
    public func role(for point: ExtensionPoint) -> ProcessRole? {
        roles.first { $0.lifetime == .extension(point) }
    }

    /// Roles the nemesis may target, in the order the descriptor lists them (the default targets).
    public var nemesisTargets: [String] { roles.filter(\.nemesisTarget).map(\.name) }

    /// Processes whose crash points the core provides (CRASH-POINTS.md §11): the apps and extensions,
    /// which run on `StandInContext`; a server's are its pack's own.
    public var crashPointProcesses: [String] { roles.filter { $0.lifetime != .server }.map(\.name) }
}

/// One process of a system: the history's `process` name, how iOS runs it, and how to start it.
public struct ProcessRole: Sendable, Codable, Equatable {
    public enum Lifetime: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The host app: launched, relaunched after a kill (the user opens it again).
        case app
        /// An extension: a fresh process per call from the OS, ended when the call is done.
        case `extension`(ExtensionPoint)
        /// A server stand-in (127.0.0.1 only), restarted after a kill.
        case server

        public var description: String {
            switch self {
            case .app: "app"
            case .extension(let point): "extension (\(point.rawValue))"
            case .server: "server"
            }
        }

        public var isLongLived: Bool { self == .app || self == .server }
    }

    /// How the harness knows a started process is ready for the run to begin.
    public enum Readiness: Sendable, Codable, Equatable {
        /// It wrote `<run-dir>/ports/<role>.port` (servers).
        case portFile
        /// Its trace has a line with this event (apps: `launched`).
        case traceEvent(String)
        /// Nothing to wait for (extensions).
        case none
    }

    /// Where `executable` is, for a harness whose executables are in `binDirectory`.
    public func executablePath(binDirectory: String) -> String {
        executable.hasPrefix("/") ? executable : binDirectory + "/" + executable
    }

    public var name: String
    public var lifetime: Lifetime
    /// The role's executable: a name, found beside the harness executable (this package's
    /// `harness`, or a team's own harness built in the same package), or an absolute path — any
    /// program that speaks docs/PROTOCOL.md.
    public var executable: String
    /// Arguments before the pack's own launch arguments (e.g. the subcommand `host-app`).
    public var arguments: [String]
    public var nemesisTarget: Bool
    public var readiness: Readiness
    /// Long-lived roles: it reports idleness under virtual time (PROTOCOL.md §9). A role that does
    /// not can run only with `clock.mode: fixed`.
    public var participatesInVirtualTime: Bool
    /// One line for `harness systems`.
    public var summary: String
    /// An app role: what its code hears from iOS besides taps (EMULATED-IOS.md §7.7).
    public var notices: AppNotices
    /// Its process traces every App Group write that landed (`defaults_set`, PROTOCOL.md §3):
    /// for a seed's own code, whose writes the checkers judge.
    public var tracesDefaultsWrites: Bool

    public init(
        name: String, lifetime: Lifetime, executable: String, arguments: [String] = [], nemesisTarget: Bool = true,
        readiness: Readiness? = nil, participatesInVirtualTime: Bool = true, summary: String, notices: AppNotices = .none,
        tracesDefaultsWrites: Bool = false
    ) {
        self.notices = notices
        self.tracesDefaultsWrites = tracesDefaultsWrites
        self.participatesInVirtualTime = participatesInVirtualTime
        self.name = name
        self.lifetime = lifetime
        self.executable = executable
        self.arguments = arguments
        self.nemesisTarget = nemesisTarget
        switch lifetime {
        case .app: self.readiness = readiness ?? .traceEvent("launched")
        case .server: self.readiness = readiness ?? .portFile
        case .extension: self.readiness = readiness ?? .none
        }
        self.summary = summary
    }
}

/// One promise a checker judges: its name in reports and the seed line it comes from.
public struct InvariantDescriptor: Sendable, Codable, Equatable {
    public var name: String
    public var promise: String
    /// Where the seed says so (section and quote).
    public var source: String
    /// The shortest device-time bound the rule judges the promise by (e.g. "within 2 s"), nil when
    /// it has none: at a fixed clock rate a bound shorter than the machine's wall-clock jitter makes
    /// its verdict the machine's (`SpeedDependence`).
    public var boundSeconds: Double?

    public init(name: String, promise: String, source: String, boundSeconds: Double? = nil) {
        self.name = name
        self.promise = promise
        self.source = source
        self.boundSeconds = boundSeconds
    }

    /// This promise judged within `seconds` of device time (nil: no bound).
    public func bounded(by seconds: Double?) -> InvariantDescriptor {
        var d = self
        d.boundSeconds = seconds
        return d
    }
}

/// A latency series a pack measures: its name in reports and what it measures.
public struct LatencySeriesDescriptor: Sendable, Codable, Equatable {
    public var name: String
    /// From which event to which, one line.
    public var what: String

    public init(name: String, what: String) {
        self.name = name
        self.what = what
    }

    /// The series of these samples.
    public func series(samplesNanos: [Int64], excluded: [String: Int] = [:]) -> LatencySeries {
        LatencySeries(name: name, what: what, samplesNanos: samplesNanos, excluded: excluded)
    }
}

/// What an app's code hears from iOS besides the user's taps, as its Info.plist and observers
/// declare it. iOS tells every app of its lifecycle and of time changes, but an app whose code
/// does not observe them cannot tell the difference — so a role declares what its seed observes,
/// and the emulated iOS delivers (and the app traces) only that. URL schemes are the app's
/// `CFBundleURLTypes`: a URL of another scheme does not open it.
public struct AppNotices: Sendable, Codable, Equatable {
    /// `didBecomeActive` / `didEnterBackground` (React Native's `AppState`, Flutter's lifecycle).
    public var lifecycle: Bool
    /// `significantTimeChangeNotification`: local midnight, a time-zone or DST change.
    public var significantTimeChange: Bool
    /// Schemes it opens (`pushin` for `pushin://workout`).
    public var urlSchemes: [String]

    public init(lifecycle: Bool = false, significantTimeChange: Bool = false, urlSchemes: [String] = []) {
        self.lifecycle = lifecycle
        self.significantTimeChange = significantTimeChange
        self.urlSchemes = urlSchemes
    }

    public static let none = AppNotices()
}
