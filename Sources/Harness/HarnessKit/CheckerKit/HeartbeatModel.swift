import History

/// A pack's heartbeats, declared so the core can judge every "is it dead?" decision of a run:
/// who writes a heartbeat and how each beat shows in the history, who decides from it,
/// by which rule, and what the decision looks like. `SystemDescriptor.heartbeats`.
public struct HeartbeatModel: Sendable, Codable, Equatable {
    public var writers: [HeartbeatWriterModel]
    public var monitors: [HeartbeatMonitorModel]

    public init(writers: [HeartbeatWriterModel] = [], monitors: [HeartbeatMonitorModel] = []) {
        self.writers = writers
        self.monitors = monitors
    }

    public static let none = HeartbeatModel()
    public var isEmpty: Bool { writers.isEmpty && monitors.isEmpty }

    public func writer(_ name: String) -> HeartbeatWriterModel? { writers.first { $0.name == name } }

    /// The monitors that run in `variant` (nil: every monitor).
    public func monitors(in variant: String?) -> [HeartbeatMonitorModel] {
        monitors.filter { m in variant.map { v in m.variants.map { $0.contains(v) } ?? true } ?? true }
    }
}

/// One line pattern of the history: a process (role) and an event, with fields that must equal a
/// value and fields that must be present.
public struct HistoryLinePattern: Sendable, Codable, Equatable {
    public var process: String
    public var event: String
    public var equal: [String: String]
    public var present: [String]
    /// Device time of the line from this field (unix milliseconds) instead of its `t`: e.g. a
    /// server's `created` line dated at the pledge's planned start.
    public var timeFieldMillis: String?

    public init(process: String, event: String, equal: [String: String] = [:], present: [String] = [], timeFieldMillis: String? = nil) {
        self.process = process
        self.event = event
        self.equal = equal
        self.present = present
        self.timeFieldMillis = timeFieldMillis
    }

    public func matches(_ e: HistoryEvent) -> Bool {
        e.process == process && e.event == event && equal.allSatisfy { e[$0.key] == $0.value } && present.allSatisfy { e[$0] != nil }
    }

    /// The device time the line stands for.
    public func time(of e: HistoryEvent) -> Double {
        timeFieldMillis.flatMap { e[$0] }.flatMap(Double.init).map { $0 / 1000 } ?? e.t
    }
}

/// Who writes a heartbeat and how each beat shows in the history.
public struct HeartbeatWriterModel: Sendable, Codable, Equatable {
    /// How reports name it, e.g. `extension_heartbeat`.
    public var name: String
    /// The key, file or route it lands in, in the seed's words (for people).
    public var key: String
    /// The role whose process writes it: its state over device time is the ground truth.
    public var role: String
    /// A beat as the history records it — written by the writer (`defaults_set` with the key) or as
    /// its monitor received it (a server's `heartbeat` line).
    public var beat: HistoryLinePattern
    /// The field that names the subject a beat is about (a session), nil for one series per run.
    public var subjectField: String?
    /// The interval the writer means to keep, device seconds (phi accrual's prior with few
    /// samples); nil for a writer with no period (an extension that writes when called).
    public var intervalSeconds: Double?

    public init(name: String, key: String, role: String, beat: HistoryLinePattern, subjectField: String? = nil, intervalSeconds: Double? = nil) {
        self.name = name
        self.key = key
        self.role = role
        self.beat = beat
        self.subjectField = subjectField
        self.intervalSeconds = intervalSeconds
    }
}

/// Who decides from a heartbeat, by which rule, and what a decision "dead" looks like.
public struct HeartbeatMonitorModel: Sendable, Codable, Equatable {
    /// How reports name it, e.g. `stale-session-job`.
    public var name: String
    /// `HeartbeatWriterModel.name` of the heartbeat it reads.
    public var writer: String
    /// The role that decides.
    public var role: String
    /// The rule in the seed's words, e.g. `now - lastHeartbeat > 300`.
    public var rule: String
    /// Dead when the newest beat is older than this (device seconds) …
    public var thresholdSeconds: Double?
    /// … or than the number the `run_started` line holds under this name (the scenario's setting).
    public var thresholdFact: String?
    /// A decision "dead" in the history (its subject in `writer.subjectField`).
    public var decision: HistoryLinePattern
    /// A line that starts watching a subject (a session created); nil: the run's start.
    public var opens: HistoryLinePattern?
    /// Lines that end watching a subject (a session settled by anyone, its decision among them);
    /// none: the run's end.
    public var closes: [HistoryLinePattern]
    /// Device seconds a monitor may take past its threshold before a death counts as missed (its
    /// polling period plus slack).
    public var toleranceSeconds: Double
    /// Variants that run this monitor (nil: all).
    public var variants: [String]?
    /// The invariant a false alarm breaks when the pack promises the rule does not misfire; nil:
    /// false alarms are reported, never violations.
    public var mustNotMisfire: String?

    public init(
        name: String, writer: String, role: String, rule: String, thresholdSeconds: Double? = nil, thresholdFact: String? = nil,
        decision: HistoryLinePattern, opens: HistoryLinePattern? = nil, closes: [HistoryLinePattern] = [], toleranceSeconds: Double = 5,
        variants: [String]? = nil, mustNotMisfire: String? = nil
    ) {
        self.name = name
        self.writer = writer
        self.role = role
        self.rule = rule
        self.thresholdSeconds = thresholdSeconds
        self.thresholdFact = thresholdFact
        self.decision = decision
        self.opens = opens
        self.closes = closes
        self.toleranceSeconds = toleranceSeconds
        self.variants = variants
        self.mustNotMisfire = mustNotMisfire
    }

    /// The beats are lines of the monitor's own process (a server that receives them): while it is
    /// down or stopped, beats are lost, so a silence may be the monitor's. Beats written to a
    /// store (an App Group key) wait for it instead.
    public func receivesBeats(from writer: HeartbeatWriterModel) -> Bool { writer.beat.process == role }

    /// The rule's threshold in this run (the fact of `run_started`, else the fixed value).
    public func threshold(in events: [HistoryEvent]) -> Double? {
        if let fact = thresholdFact, let v = events.first(where: { $0.isHarnessLine("run_started") })?[fact].flatMap(Double.init), v > 0 { return v }
        return thresholdSeconds
    }
}
