import History

/// Judges every "is it dead?" decision of a run against the ground truth: a decision
/// while the writer was dead is a true alarm (latency from the death), one while it was alive a
/// false alarm (with the state it was in), and a death that outlasted the rule's own bound without
/// a decision a missed death. From the history alone.
public enum HeartbeatJudge {
    /// A subject the monitor watched: from `openT` to `closeT` (nil: the run's end), with its beats.
    public struct Watch: Sendable, Equatable {
        public var subject: String?
        public var openT: Double
        public var closeT: Double?
        /// Device times of its beats inside the watch, ascending (the opening counts as one when the
        /// monitor measures from it, `opens`).
        public var beats: [Double]
    }

    /// One monitor judged, with what a pack needs to turn false alarms into violations.
    public struct Judged: Sendable {
        public var verdict: HeartbeatVerdict
        /// Each false alarm's decision line and the line that put the writer in its state.
        public var falseAlarmLines: [(decision: HistoryEvent, state: HistoryEvent?, finding: HeartbeatVerdict.Finding)]
        /// Death → first decision, nanoseconds of device time (for a pack's latency series).
        public var detectionSamplesNanos: [Int64]

        /// The pack's invariant "the rule does not misfire": one violation per false alarm.
        public func outcome(_ invariant: String, subjectKind: String = "decision") -> RuleOutcome {
            var o = RuleOutcome(invariant, subjectKind: subjectKind)
            o.checkedCount = verdict.decisions
            for (i, fa) in falseAlarmLines.enumerated() {
                o.fail(
                    "\(i + 1)@t=\(Int(fa.decision.t))" + (fa.finding.subject.map { " \($0)" } ?? ""),
                    "\(verdict.monitorRole) decided \(verdict.writerRole) dead by \"\(verdict.rule)\" at t=\(fa.decision.t); it was \(fa.finding.writerState): \(fa.finding.detail)",
                    [fa.decision, fa.state])
            }
            return o
        }
    }

    /// Every monitor of `descriptor` that runs in the history's variant, judged.
    public static func verdicts(_ descriptor: SystemDescriptor, _ events: [HistoryEvent]) -> [HeartbeatVerdict] {
        let variant = events.first { $0.isHarnessLine("run_started") }?["variant"]
        return descriptor.heartbeats.monitors(in: variant).compactMap { m in
            descriptor.heartbeats.writer(m.writer).map { judge(m, writer: $0, lifetime: descriptor.role($0.role)?.lifetime, events).verdict }
        }
    }

    /// Device time of the run's start and end (`run_started`, `run_finished`; else the first and last lines).
    public static func span(_ events: [HistoryEvent]) -> (start: Double, end: Double) {
        let start = events.first { $0.isHarnessLine("run_started") }?.t ?? events.first?.t ?? 0
        let end = events.last { $0.isHarnessLine("run_finished") }?.t ?? events.last?.t ?? start
        return (start, max(start, end))
    }

    /// The subjects `monitor` watched, with their beats.
    public static func watches(_ monitor: HeartbeatMonitorModel, writer: HeartbeatWriterModel, _ events: [HistoryEvent]) -> [Watch] {
        let (start, _) = span(events)
        func subject(_ e: HistoryEvent) -> String? { writer.subjectField.flatMap { e[$0] } }
        var order: [String?] = []
        var opened: [String?: (t: Double, mono: Int64)] = [:]
        if writer.subjectField == nil && monitor.opens == nil, let first = events.first {
            // One series for the whole run, watched from its start (seed 004's key).
            order = [nil]
            opened[nil] = (start, first.mono)
        }
        for e in events {
            let isOpen = monitor.opens?.matches(e) == true
            let isBeat = writer.beat.matches(e)
            guard isOpen || (monitor.opens == nil && (isBeat || monitor.decision.matches(e))) else { continue }
            let s = subject(e)
            if writer.subjectField != nil && s == nil { continue }
            if opened[s] == nil {
                order.append(s)
                opened[s] = isOpen ? (monitor.opens!.time(of: e), e.mono) : (start, events.first?.mono ?? e.mono)
            }
        }
        return order.map { s in
            let open = opened[s]!
            let close = events.lazy.compactMap { e in
                monitor.closes.first { e.mono >= open.mono && $0.matches(e) && subject(e) == s }.map { (e, $0) }
            }.first
            let closeT = close.map { $0.1.time(of: $0.0) }
            var beats = events.filter { writer.beat.matches($0) && subject($0) == s }.map { writer.beat.time(of: $0) }
                .filter { $0 >= open.t && $0 <= (closeT ?? .infinity) }
            if monitor.opens != nil { beats.insert(open.t, at: 0) }
            return Watch(subject: s, openT: open.t, closeT: closeT, beats: beats.sorted())
        }
    }

    public static func judge(
        _ monitor: HeartbeatMonitorModel, writer: HeartbeatWriterModel, lifetime: ProcessRole.Lifetime?, _ events: [HistoryEvent]
    ) -> Judged {
        let timeline = WriterTimeline(role: writer.role, lifetime: lifetime, events: events)
        let monitorTimeline = WriterTimeline(role: monitor.role, lifetime: nil, events: events)
        let threshold = monitor.threshold(in: events)
        let (_, end) = span(events)
        let deaths = timeline.deaths
        let watches = watches(monitor, writer: writer, events)
        var v = HeartbeatVerdict(
            monitor: monitor.name, writer: writer.name, monitorRole: monitor.role, writerRole: writer.role, rule: monitor.rule,
            thresholdSeconds: threshold, decisions: 0, trueAlarms: 0, falseAlarms: 0, falseAlarmStates: [:], falseAlarmsMonitorDown: 0, deaths: 0, detected: 0,
            missed: 0, mustNotMisfire: monitor.mustNotMisfire, findings: [], findingsOmitted: 0)
        var findings: [HeartbeatVerdict.Finding] = []
        var falseLines: [(HistoryEvent, HistoryEvent?, HeartbeatVerdict.Finding)] = []
        let decisions = events.filter { monitor.decision.matches($0) }
        for d in decisions {
            v.decisions += 1
            let seg = timeline.state(atMono: d.mono)
            let subject = writer.subjectField.flatMap { d[$0] }
            if seg.state.isDead {
                v.trueAlarms += 1
                let death = deaths.last { $0.start.mono <= d.mono }
                findings.append(.init(
                    kind: .trueAlarm, t: d.t, subject: subject, writerState: seg.state.rawValue, detail: seg.detail,
                    latencySeconds: death.map { d.t - $0.start.t }))
            } else {
                v.falseAlarms += 1
                let lastBeat = watches.first { $0.subject == subject }?.beats.last { $0 <= d.t }
                let down = monitor.receivesBeats(from: writer) && (lastBeat.map { monitorTimeline.wasDown(from: $0, to: d.t) } ?? false)
                v.falseAlarmStates[seg.state.rawValue, default: 0] += 1
                if down { v.falseAlarmsMonitorDown += 1 }
                let f = HeartbeatVerdict.Finding(
                    kind: .falseAlarm, t: d.t, subject: subject, writerState: seg.state.rawValue,
                    detail: seg.detail + (down ? " (and \(monitor.role) itself was down or stopped after the last beat: beats could not reach it)" : ""))
                findings.append(f)
                falseLines.append((d, seg.line, f))
            }
        }
        var latencies: [Double] = []
        for death in deaths {
            let deathEnd = death.endT ?? end
            let watched = watches.filter { $0.openT <= deathEnd && ($0.closeT ?? end) >= death.start.t }
            guard !watched.isEmpty else { continue }
            v.deaths += 1
            if let first = decisions.first(where: { death.contains(mono: $0.mono) }) {
                v.detected += 1
                latencies.append(first.t - death.start.t)
                continue
            }
            guard let threshold else { continue }
            // Dead past the rule's own bound, for a subject still watched then: missed.
            for w in watched {
                let last = w.beats.last { $0 <= death.start.t } ?? w.openT
                // Already overdue when it died (silent while alive): due at once, within tolerance.
                let bound = max(max(last, w.openT) + threshold, death.start.t) + monitor.toleranceSeconds
                guard bound < min(deathEnd, w.closeT ?? end) else { continue }
                v.missed += 1
                findings.append(.init(
                    kind: .missedDeath, t: bound, subject: w.subject, writerState: death.start.state.rawValue,
                    detail: "\(death.start.detail) at t=\(death.start.t); its last beat t=\(last), the rule's bound t=\(bound) passed "
                        + (death.endT.map { "before it came back at t=\($0)" } ?? "and it never came back")))
                break
            }
        }
        v.detectionLatencyP50Seconds = nearestRank(latencies, 50)
        v.detectionLatencyP99Seconds = nearestRank(latencies, 99)
        v.detectionLatencyMaxSeconds = latencies.max()
        let rank: [HeartbeatVerdict.Kind: Int] = [.falseAlarm: 0, .missedDeath: 1, .trueAlarm: 2]
        let sorted = findings.enumerated().sorted { (rank[$0.element.kind]!, $0.offset) < (rank[$1.element.kind]!, $1.offset) }.map(\.element)
        v.findings = Array(sorted.prefix(HeartbeatVerdict.maxFindings))
        v.findingsOmitted = sorted.count - v.findings.count
        return Judged(
            verdict: v, falseAlarmLines: falseLines.map { (decision: $0.0, state: $0.1, finding: $0.2) },
            detectionSamplesNanos: latencies.map { Int64(($0 * 1e9).rounded()) })
    }
}
