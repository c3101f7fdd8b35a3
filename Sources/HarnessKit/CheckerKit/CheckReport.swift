/// A checker's verdict on one run's history. "Could not decide" (`decided == false`) is not a
/// failure of the system under test: the history itself is incomplete.
public struct CheckReport: Codable, Equatable, Sendable {
    public var checker: String
    public var decided: Bool
    /// Set when `decided` is false.
    public var undecidedReason: String?
    public var results: [InvariantResult]
    public var violations: [InvariantViolation]
    public var detectionLatency: DetectionLatency
    /// User actions the system never got to act on because iOS lost every call that carried them
    /// (dropped, or the extension killed before it returned): not violations of the system under
    /// test, listed so that a pass is never read as "every user action was handled". Nil = none.
    public var lostByOS: [InvariantViolation]?
    /// Set when the run did not reach its end: the signal that stopped it (`SIGINT`, `SIGTERM`)
    /// or `killed` (the history just stops). Undecided; `results` are what could be checked.
    public var interruption: String?
    /// Set when the device root was changed behind the harness's back during the run. Undecided.
    public var tampered: String?

    /// A human reads a violation's history lines; more than this is noise.
    public static let maxRelevantEvents = 10

    public init(
        checker: String, decided: Bool, undecidedReason: String? = nil, results: [InvariantResult],
        violations: [InvariantViolation], detectionLatency: DetectionLatency
    ) {
        self.checker = checker
        self.decided = decided
        self.undecidedReason = undecidedReason
        self.results = results
        self.violations = violations
        self.detectionLatency = detectionLatency
    }

    public static func undecided(checker: String, reason: String) -> CheckReport {
        CheckReport(
            checker: checker, decided: false, undecidedReason: reason, results: [], violations: [],
            detectionLatency: DetectionLatency(samplesNanos: []))
    }

    /// Decided, and every invariant held.
    public var passed: Bool { decided && violations.isEmpty }

    public func result(_ name: String) -> InvariantResult? { results.first { $0.name == name } }

    public func violations(of name: String) -> [InvariantViolation] { violations.filter { $0.invariant == name } }
}
