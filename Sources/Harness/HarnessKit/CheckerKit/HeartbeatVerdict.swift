/// One monitor's decisions in one run, each judged against what its writer really was
/// (`report.json` `heartbeats`, docs/REPORT.md).
public struct HeartbeatVerdict: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// The writer was dead when the monitor declared it so.
        case trueAlarm = "true-alarm"
        /// The writer was alive (running, stopped, suspended, or an idle on-demand extension).
        case falseAlarm = "false-alarm"
        /// The writer stayed dead past the rule's own bound and the monitor never said so.
        case missedDeath = "missed-death"
    }

    /// One judged decision, or one missed death.
    public struct Finding: Codable, Equatable, Sendable {
        public var kind: Kind
        /// Device time of the decision (a missed death: when the rule's bound passed).
        public var t: Double
        /// The subject the monitor watched (a session), if it watches several.
        public var subject: String?
        /// The writer's state then (`WriterState` raw value) and how it got there.
        public var writerState: String
        public var detail: String
        /// True alarm: device seconds from the death to this decision.
        public var latencySeconds: Double?
    }

    public var monitor: String
    public var writer: String
    public var monitorRole: String
    public var writerRole: String
    public var rule: String
    public var thresholdSeconds: Double?
    public var decisions: Int
    public var trueAlarms: Int
    public var falseAlarms: Int
    /// False alarms by the writer's state.
    public var falseAlarmStates: [String: Int]
    /// Of the false alarms, those whose silence the monitor itself was down or stopped for part
    /// of, when it receives the beats itself (a server): the beats of then could not reach it.
    public var falseAlarmsMonitorDown: Int
    /// Deaths of the writer while the monitor watched it.
    public var deaths: Int
    /// Of those, declared dead by the monitor at least once while dead.
    public var detected: Int
    /// Of those, dead past the rule's bound and never declared.
    public var missed: Int
    /// Death → the first decision, device seconds, over detected deaths.
    public var detectionLatencyP50Seconds: Double?
    public var detectionLatencyP99Seconds: Double?
    public var detectionLatencyMaxSeconds: Double?
    /// The invariant a false alarm breaks (nil: the pack does not promise the rule never misfires).
    public var mustNotMisfire: String?
    /// False alarms and missed deaths first, then true alarms; at most `maxFindings`.
    public var findings: [Finding]
    public var findingsOmitted: Int

    public static let maxFindings = 100

    /// "heartbeats: N deaths, detected M (p99 X s), false alarms K of D decisions".
    public static func summary(_ verdicts: [HeartbeatVerdict]) -> String? {
        guard !verdicts.isEmpty else { return nil }
        let deaths = verdicts.reduce(0) { $0 + $1.deaths }
        let detected = verdicts.reduce(0) { $0 + $1.detected }
        let falseAlarms = verdicts.reduce(0) { $0 + $1.falseAlarms }
        let p99 = verdicts.compactMap(\.detectionLatencyP99Seconds).max()
        let latency = p99.map { " (p99 \(Self.seconds($0)) s)" } ?? ""
        let missed = verdicts.reduce(0) { $0 + $1.missed }
        // Counted in the monitor's own decisions (one per check it made while the writer was
        // alive); `harness heartbeats` counts one per silence, and says so.
        let decisions = verdicts.reduce(0) { $0 + $1.decisions }
        return "heartbeats: \(deaths) death\(deaths == 1 ? "" : "s"), detected \(detected)\(latency), false alarms \(falseAlarms) of \(decisions) decision\(decisions == 1 ? "" : "s")"
            + (missed > 0 ? ", missed \(missed)" : "")
    }

    /// `900`, `33`, `5.3`: whole numbers without a decimal point, else one decimal.
    static func seconds(_ v: Double) -> String {
        guard v.isFinite else { return String(v) }
        let tenths = (v * 10).rounded() / 10
        // `%.0f`, not `Int(_:)`: a value past Int's range (a user's `--max-false-alarms-per-day 1e19`)
        // prints instead of trapping.
        return v >= 100 || tenths == tenths.rounded() ? String(format: "%.0f", v.rounded() + 0) : String(tenths)
    }
}

/// Nearest-rank percentile of `values` (nil when empty).
func nearestRank(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}
