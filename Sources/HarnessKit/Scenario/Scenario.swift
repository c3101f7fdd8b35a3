import Foundation

/// One scenario file (`harness/scenarios/*.yaml`, schema in `ScenarioParser.swift` and
/// `harness/scenarios/README.md`): which system runs, under what clock, what the user does
/// (workload) and what goes wrong (nemesis). Pure data; `ScenarioPlan` turns it plus a seed into
/// concrete actions and faults.
public struct Scenario: Sendable, Equatable {
    /// `[A-Za-z0-9._-]+`: it names run directories.
    public var name: String
    public var system: ScenarioSystem
    /// The variants this scenario may run; `harness run --variant` picks one, default the first.
    public var variants: [ScenarioVariant]
    public var clock: Clock
    /// Device time the workload covers; sessions are packed into it.
    public var durationSeconds: Int
    public var workload: Workload
    public var nemesis: Nemesis
    public var server: Server
    public var host: Host

    public init(
        name: String, system: ScenarioSystem, variants: [ScenarioVariant], clock: Clock,
        durationSeconds: Int, workload: Workload, nemesis: Nemesis, server: Server, host: Host
    ) {
        self.name = name
        self.system = system
        self.variants = variants
        self.clock = clock
        self.durationSeconds = durationSeconds
        self.workload = workload
        self.nemesis = nemesis
        self.server = server
        self.host = host
    }

    /// The virtual device clock the emulated OS starts with.
    public struct Clock: Sendable, Equatable {
        /// Device seconds per wall second.
        public var rate: Double
        /// Device time at the start of the run.
        public var start: Date
        /// IANA identifier, e.g. `Europe/Berlin` (DeviceActivity schedules are local time).
        public var timeZone: String

        public init(rate: Double, start: Date, timeZone: String) {
            self.rate = rate
            self.start = start
            self.timeZone = timeZone
        }
    }

    /// What the user does.
    public struct Workload: Sendable, Equatable {
        /// Bundle ids selected in the app picker and shielded during sessions.
        public var blockedApps: [String]
        public var sessionDurationMinutes: ClosedRange<Int>
        public var gapMinutes: ClosedRange<Int>
        /// Chance that a session has any violations at all.
        public var violationProbability: Double
        public var violationKinds: [ViolationKind]
        /// A violating session has 1...maxViolationsPerSession violations.
        public var maxViolationsPerSession: Int
        /// Chance that the user stops a session by hand (`stopNativeSession`) before it ends.
        public var stopSessionProbability: Double

        public init(
            blockedApps: [String], sessionDurationMinutes: ClosedRange<Int>, gapMinutes: ClosedRange<Int>,
            violationProbability: Double, violationKinds: [ViolationKind], maxViolationsPerSession: Int,
            stopSessionProbability: Double
        ) {
            self.blockedApps = blockedApps
            self.sessionDurationMinutes = sessionDurationMinutes
            self.gapMinutes = gapMinutes
            self.violationProbability = violationProbability
            self.violationKinds = violationKinds
            self.maxViolationsPerSession = maxViolationsPerSession
            self.stopSessionProbability = stopSessionProbability
        }
    }

    /// What goes wrong: signals sent to the stand-in processes, in wall time.
    public struct Nemesis: Sendable, Equatable {
        public var enabled: Bool
        /// Wall time between one fault and the next.
        public var intervalMillis: ClosedRange<Int>
        public var weights: FaultWeights
        /// How long a SIGSTOP lasts before SIGCONT.
        public var stopMillis: ClosedRange<Int>
        /// How long a killed or terminated process stays down before it is relaunched.
        public var restartDelayMillis: ClosedRange<Int>
        public var targets: [FaultTarget]

        public init(
            enabled: Bool, intervalMillis: ClosedRange<Int>, weights: FaultWeights, stopMillis: ClosedRange<Int>,
            restartDelayMillis: ClosedRange<Int>, targets: [FaultTarget]
        ) {
            self.enabled = enabled
            self.intervalMillis = intervalMillis
            self.weights = weights
            self.stopMillis = stopMillis
            self.restartDelayMillis = restartDelayMillis
            self.targets = targets
        }

        /// What a scenario without a `nemesis` block gets: nothing goes wrong.
        public static let disabled = Nemesis(
            enabled: false, intervalMillis: 40...120, weights: FaultWeights(kill: 0.5, term: 0.1, stop: 0.4),
            stopMillis: 20...250, restartDelayMillis: 10...400, targets: FaultTarget.allCases
        )
    }

    /// Relative weights of the fault kinds (need not sum to 1).
    public struct FaultWeights: Sendable, Equatable {
        public var kill: Double
        public var term: Double
        public var stop: Double

        public init(kill: Double, term: Double, stop: Double) {
            self.kill = kill
            self.term = term
            self.stop = stop
        }

        public func weight(of kind: FaultKind) -> Double {
            switch kind {
            case .kill: kill
            case .term: term
            case .stop: stop
            }
        }
    }

    /// The settlement-server stand-in.
    public struct Server: Sendable, Equatable {
        /// The seed's "no heartbeat" job: an unsettled session whose last check is older than this
        /// is resolved FAILURE / no_heartbeat.
        public var staleAfterMinutes: Int

        public init(staleAfterMinutes: Int) {
            self.staleAfterMinutes = staleAfterMinutes
        }
    }

    /// The host-app stand-in.
    public struct Host: Sendable, Equatable {
        /// The seed's `Timer.periodic(Duration(seconds: 5))` polling of `checkSessionStatus`, device time.
        public var pollSeconds: Double

        public init(pollSeconds: Double) {
            self.pollSeconds = pollSeconds
        }
    }

    /// The variant to run: `name` if given (it must be one of `variants`), else the first listed.
    public func variant(named name: String?) throws(ScenarioError) -> ScenarioVariant {
        let listed = variants.map(\.rawValue).joined(separator: ", ")
        guard let name else {
            guard let first = variants.first else {
                throw ScenarioError(file: "--variant", message: "scenario '\(self.name)' lists no variants")
            }
            return first
        }
        guard let variant = ScenarioVariant(rawValue: name) else {
            throw ScenarioError(file: "--variant", message: "unknown variant '\(name)'; this scenario lists: \(listed)")
        }
        guard variants.contains(variant) else {
            throw ScenarioError(file: "--variant", message: "variant '\(name)' is not listed in this scenario (\(listed))")
        }
        return variant
    }
}

/// The seed systems a scenario can run. Only FocusPledge (seed 000) has stand-ins so far.
public enum ScenarioSystem: String, Sendable, CaseIterable, Codable {
    case focuspledge

    /// The protocol variants this system's state machines implement.
    public var knownVariants: [ScenarioVariant] {
        switch self {
        case .focuspledge: [.asWritten, .hardened]
        }
    }
}

/// Raw values match `FocusPledge.Variant` so the runner converts with `Variant(rawValue:)`.
public enum ScenarioVariant: String, Sendable, CaseIterable, Codable {
    /// The seed literally, bugs included.
    case asWritten = "as-written"
    /// A correct protocol over the same App Group, keys and server.
    case hardened
}

/// How the user breaks a pledge.
public enum ViolationKind: String, Sendable, CaseIterable, Codable {
    /// Opens a blocked app: DeviceActivity reports the threshold to the monitor extension.
    case openBlockedApp = "open_blocked_app"
    /// Taps a button on the shield: ManagedSettings hands the action to the shield-action extension.
    case pressShieldButton = "press_shield_button"
}

/// The processes the nemesis may signal; raw values are the stand-in executables' names.
public enum FaultTarget: String, Sendable, CaseIterable, Codable, Comparable {
    case hostApp = "host-app"
    case settlementServer = "settlement-server"
    case monitorExtension = "monitor-extension"
    case shieldActionExtension = "shield-action-extension"

    public static func < (lhs: FaultTarget, rhs: FaultTarget) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// What the nemesis does to a target.
public enum FaultKind: String, Sendable, CaseIterable, Codable {
    /// SIGKILL; relaunched after `holdMillis`.
    case kill
    /// SIGTERM; relaunched after `holdMillis`.
    case term
    /// SIGSTOP, then SIGCONT after `holdMillis`.
    case stop
}
