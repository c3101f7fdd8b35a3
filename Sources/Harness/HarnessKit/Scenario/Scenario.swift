import AppGroup
import Foundation

/// One scenario file (schema in `ScenarioParser.swift` and `harness/scenarios/README.md`): which
/// system runs, under what clock, for how long, what goes wrong (nemesis) — the common part — and
/// the system's own settings (what the user does), read by its pack. Pure data; `ScenarioPlan`
/// turns it plus a seed into concrete actions and faults.
public struct Scenario: Sendable, Equatable {
    /// `[A-Za-z0-9._-]+`: it names run directories.
    public var name: String
    public var system: AnySystemPack
    /// The variants this scenario may run; `harness run --variant` picks one, default every one.
    public var variants: [ScenarioVariant]
    public var clock: Clock
    /// Device time the workload covers.
    public var durationSeconds: Int
    /// Device time given to the system after the workload to finish what is pending (settle
    /// sessions, run its servers' scheduled jobs) before the history is judged.
    public var settleSeconds: Int
    public var nemesis: Nemesis
    /// How the emulated iOS behaves (`os:`).
    public var os = OSSettings()
    /// The system's own sections, parsed by its pack.
    public var configuration: AnyConfiguration
    /// Whether the user taps again when the app died in their tap (`user.retry`); nil: the pack's
    /// `SystemDescriptor.userRetry`. `retry` is the one that applies.
    public var userRetry: UserRetry? = nil
    /// Failpoints armed in the stand-ins for every run of this scenario (`failpoints:`).
    public var failpoints: [Failpoint] = []
    /// Promises the scenario declares (`invariants:`), judged by the core beside the system's own.
    public var declaredInvariants: [DeclaredInvariant] = []
    /// The user's actions and the nemesis's faults written out (`plan:`), used instead of what
    /// the seed would plan (`harness shrink` writes them).
    public var pinnedPlan: PinnedPlan? = nil

    public init(
        name: String, system: AnySystemPack, variants: [ScenarioVariant], clock: Clock, durationSeconds: Int,
        settleSeconds: Int, nemesis: Nemesis, configuration: AnyConfiguration
    ) {
        self.name = name
        self.system = system
        self.variants = variants
        self.clock = clock
        self.durationSeconds = durationSeconds
        self.settleSeconds = settleSeconds
        self.nemesis = nemesis
        self.configuration = configuration
    }

    public static func == (a: Scenario, b: Scenario) -> Bool {
        a.name == b.name && a.system.id == b.system.id && a.variants == b.variants && a.clock == b.clock
            && a.durationSeconds == b.durationSeconds && a.settleSeconds == b.settleSeconds && a.nemesis == b.nemesis && a.os == b.os && a.configuration == b.configuration
            && a.failpoints == b.failpoints && a.pinnedPlan == b.pinnedPlan && a.userRetry == b.userRetry
    }

    /// The user's retry choice that applies: the scenario's, else the pack's.
    public var retry: UserRetry { userRetry ?? system.descriptor.userRetry }

    /// How device time passes.
    public enum ClockMode: String, Sendable, Equatable, CaseIterable {
        /// Time moves only when every process is idle and nothing is in flight, straight to the
        /// next deadline (PROTOCOL.md §9): verdicts do not depend on speed, runs replay exactly.
        case virtual
        /// Time runs at `rate` × wall time: wall-clock races between processes, chaos as it comes.
        case fixed
    }

    /// The virtual device clock the emulated OS starts with.
    public struct Clock: Sendable, Equatable {
        public var mode: ClockMode = .virtual
        /// Device seconds per wall second in the fixed mode. In the virtual mode it is the rate
        /// the nemesis's wall-millisecond settings refer to (they are scaled by it to device time).
        public var rate: Double
        /// Device time at the start of the run.
        public var start: Date
        /// IANA identifier, e.g. `Europe/Berlin` (DeviceActivity schedules are local time).
        public var timeZone: String

        public init(mode: ClockMode = .virtual, rate: Double, start: Date, timeZone: String) {
            self.mode = mode
            self.rate = rate
            self.start = start
            self.timeZone = timeZone
        }
    }

    /// What goes wrong: signals sent to the system's processes, in wall time.
    public struct Nemesis: Sendable, Equatable {
        public var enabled: Bool
        /// Wall time between one fault and the next.
        public var intervalMillis: ClosedRange<Int>
        public var weights: FaultWeights
        /// How long a SIGSTOP lasts before SIGCONT.
        public var stopMillis: ClosedRange<Int>
        /// How long a killed or terminated process stays down before it is relaunched.
        public var restartDelayMillis: ClosedRange<Int>
        /// Role names (`SystemDescriptor.nemesisTargets`).
        public var targets: [String]

        public init(
            enabled: Bool, intervalMillis: ClosedRange<Int>, weights: FaultWeights, stopMillis: ClosedRange<Int>,
            restartDelayMillis: ClosedRange<Int>, targets: [String]
        ) {
            self.enabled = enabled
            self.intervalMillis = intervalMillis
            self.weights = weights
            self.stopMillis = stopMillis
            self.restartDelayMillis = restartDelayMillis
            self.targets = targets
        }

        /// The same nemesis with its wall-millisecond settings turned into device milliseconds at
        /// `rate` (virtual time plans faults in device time).
        public func scaled(by rate: Double) -> Nemesis {
            func scale(_ r: ClosedRange<Int>) -> ClosedRange<Int> {
                let lo = Int((Double(r.lowerBound) * rate).rounded()), hi = Int((Double(r.upperBound) * rate).rounded())
                return lo...max(lo, hi)
            }
            var n = self
            n.intervalMillis = scale(intervalMillis)
            n.stopMillis = scale(stopMillis)
            n.restartDelayMillis = scale(restartDelayMillis)
            return n
        }

        /// What a scenario without a `nemesis` block gets: nothing goes wrong.
        public static func disabled(targets: [String]) -> Nemesis {
            Nemesis(
                enabled: false, intervalMillis: 40...120, weights: FaultWeights(kill: 0.5, term: 0.1, stop: 0.4),
                stopMillis: 20...250, restartDelayMillis: 10...400, targets: targets)
        }
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

    /// The variant to run: `name` if given (it must be one of `variants`), else the first listed.
    public func variant(named name: String?) throws(ScenarioError) -> ScenarioVariant {
        let listed = variants.map(\.rawValue).joined(separator: ", ")
        guard let name else {
            guard let first = variants.first else {
                throw ScenarioError(file: "--variant", message: "scenario '\(self.name)' lists no variants")
            }
            return first
        }
        guard system.descriptor.variants.contains(name) else {
            throw ScenarioError(
                file: "--variant",
                message: "unknown variant '\(name)'; \(system.id) has: \(system.descriptor.variants.joined(separator: ", "))")
        }
        let variant = ScenarioVariant(rawValue: name)
        guard variants.contains(variant) else {
            throw ScenarioError(file: "--variant", message: "variant '\(name)' is not listed in this scenario (\(listed))")
        }
        return variant
    }
}

/// A variant of a system's protocol (`SystemDescriptor.variants`). Every pack has these two.
public struct ScenarioVariant: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The seed literally, bugs included: its violations are the seed's findings.
    public static let asWritten = ScenarioVariant(rawValue: "as-written")
    /// A correct protocol over the same App Group, keys and servers: it must hold.
    public static let hardened = ScenarioVariant(rawValue: "hardened")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
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
