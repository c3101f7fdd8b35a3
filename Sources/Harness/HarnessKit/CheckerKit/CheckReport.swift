/// A checker's verdict on one run's history. "Could not decide" (`decided == false`) is not a
/// failure of the system under test: the history itself is incomplete.
///
/// Written as `report.json` in every run directory; its schema is docs/REPORT.md, versioned by
/// `schemaVersion` (raise it whenever a field changes meaning or goes away).
public struct CheckReport: Codable, Equatable, Sendable {
    /// The `report.json` schema this report follows (docs/REPORT.md).
    public static let currentSchemaVersion = 2
    public var schemaVersion = CheckReport.currentSchemaVersion
    public var checker: String
    public var decided: Bool
    /// Set when `decided` is false.
    public var undecidedReason: String?
    public var results: [InvariantResult]
    public var violations: [InvariantViolation]
    /// The latency series the pack measures (`SystemDescriptor.latencySeries`), by name.
    public var latencies: [LatencySeries]
    /// User actions the system never got to act on because iOS lost every call that carried them
    /// (dropped, or the extension killed before it returned): not violations of the system under
    /// test, listed so that a pass is never read as "every user action was handled". Nil = none.
    public var lostByOS: [InvariantViolation]?
    /// How often each of the scenario's `os.faults` rules acted (the runner's, from the history);
    /// nil when the scenario has none. See `faultRulesNeverFired`.
    public var faultRules: [FaultRuleOutcome]?
    /// Rules that were armed but never acted in this run: the run did not test them.
    public var faultRulesNeverFired: [FaultRuleOutcome] { (faultRules ?? []).filter { $0.fired == 0 } }
    /// Set when the run did not reach its end: the signal that stopped it (`SIGINT`, `SIGTERM`)
    /// or `killed` (the history just stops). Undecided; `results` are what could be checked.
    public var interruption: String?
    /// Set when the device root was changed behind the harness's back during the run. Undecided.
    public var tampered: String?
    /// At a fixed clock rate: violations of promises whose bound is shorter in wall time than the
    /// machine's jitter (`SpeedDependence`), kept apart from `violations` — the machine's as much
    /// as the app's. Nil = none.
    public var speedDependent: [InvariantViolation]?
    /// Every heartbeat monitor the pack declares for this variant, its decisions judged against
    /// the writer's real state (`HeartbeatJudge`); nil when the pack declares none.
    public var heartbeats: [HeartbeatVerdict]?

    /// A human reads a violation's history lines; more than this is noise.
    public static let maxRelevantEvents = 10

    public init(
        checker: String, decided: Bool, undecidedReason: String? = nil, results: [InvariantResult],
        violations: [InvariantViolation], latencies: [LatencySeries]
    ) {
        self.checker = checker
        self.decided = decided
        self.undecidedReason = undecidedReason
        self.results = results
        self.violations = violations
        self.latencies = latencies
    }

    public static func undecided(checker: String, reason: String) -> CheckReport {
        CheckReport(
            checker: checker, decided: false, undecidedReason: reason, results: [], violations: [], latencies: [])
    }

    /// Decided, and every invariant held.
    public var passed: Bool { decided && violations.isEmpty }

    public func result(_ name: String) -> InvariantResult? { results.first { $0.name == name } }

    public func violations(of name: String) -> [InvariantViolation] { violations.filter { $0.invariant == name } }

    /// The series named `name`, if the pack measured it.
    public func latency(_ name: String) -> LatencySeries? { latencies.first { $0.name == name } }
}
