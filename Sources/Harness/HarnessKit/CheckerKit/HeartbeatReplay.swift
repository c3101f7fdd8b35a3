import AppGroup
import History

/// `harness heartbeats`: the recorded beats of runs replayed offline through the core's detectors
/// (`HeartbeatClassifier`: fixed threshold, phi accrual), each decision judged against the
/// writer's real state as in `HeartbeatJudge`. A replayed monitor judges continuously — it decides
/// the instant its detector crosses "dead" — where a real one decides when it polls, so a real
/// monitor's latency is this plus up to one poll.
public enum HeartbeatReplay {
    /// One detector setting.
    public struct Setting: Sendable, Equatable, Codable {
        /// `seed's rule (fixed 900 s)`, `fixed 300 s`, `phi 8`.
        public var name: String
        public var detector: Detector
        /// The setting is the monitor's own rule.
        public var isSeedRule: Bool

        public enum Detector: Sendable, Equatable, Codable {
            case fixed(thresholdSeconds: Double)
            case phi(threshold: Double)
        }

        var core: HeartbeatDetector {
            switch detector {
            case .fixed(let t): .fixed(thresholdSeconds: t)
            case .phi(let t): .phiAccrual(threshold: t)
            }
        }
    }

    /// A setting's figures over every replayed run.
    public struct Row: Sendable, Equatable, Codable {
        public var setting: String
        public var isSeedRule: Bool
        public var alarms: Int
        public var falseAlarms: Int
        public var falseAlarmsPerDeviceHour: Double
        public var falseAlarmStates: [String: Int]
        /// Of the false alarms, those whose silence the monitor was down for part of.
        public var falseAlarmsMonitorDown: Int
        public var deaths: Int
        public var detected: Int
        public var latencyP50Seconds: Double?
        public var latencyP99Seconds: Double?
    }

    /// One monitor's table over the runs.
    public struct Table: Sendable, Equatable, Codable {
        public var system: String
        public var monitor: String
        public var writer: String
        public var rule: String
        public var runs: Int
        public var deviceHours: Double
        /// Beats replayed (over every subject and run).
        public var beats: Int
        public var rows: [Row]
        /// The target `--max-false-alarms-per-day`, and the setting that meets it with the most
        /// deaths detected, then the lowest p99 (nil: none meets it, or no target).
        public var maxFalseAlarmsPerDay: Double?
        public var meetsTarget: String?
        /// Runs that were interrupted or whose history stops before `run_finished`: their beats
        /// count up to where they stop, and a death after that is not seen.
        public var partialRuns: Int = 0
    }

    /// One run's material for a monitor.
    public struct RunInput: Sendable {
        public var events: [HistoryEvent]
        public var monitor: HeartbeatMonitorModel
        public var writer: HeartbeatWriterModel
        public var lifetime: ProcessRole.Lifetime?

        public init(events: [HistoryEvent], monitor: HeartbeatMonitorModel, writer: HeartbeatWriterModel, lifetime: ProcessRole.Lifetime?) {
            self.events = events
            self.monitor = monitor
            self.writer = writer
            self.lifetime = lifetime
        }
    }

    public static let fixedSweepSeconds: [Double] = [60, 120, 300, 600, 900, 1800, 3600]
    public static let phiThresholds: [Double] = [1, 2, 4, 8, 12, 16]

    /// The seed's rule (its threshold in the first run), the fixed sweep, phi at several thresholds.
    public static func settings(seedThreshold: Double?, fixed: [Double] = fixedSweepSeconds, phi: [Double] = phiThresholds) -> [Setting] {
        var out: [Setting] = []
        if let s = seedThreshold { out.append(Setting(name: "seed's rule (fixed \(HeartbeatVerdict.seconds(s)) s)", detector: .fixed(thresholdSeconds: s), isSeedRule: true)) }
        for f in fixed where f != seedThreshold { out.append(Setting(name: "fixed \(HeartbeatVerdict.seconds(f)) s", detector: .fixed(thresholdSeconds: f), isSeedRule: false)) }
        for p in phi { out.append(Setting(name: "phi \(HeartbeatVerdict.seconds(p))", detector: .phi(threshold: p), isSeedRule: false)) }
        return out
    }

    /// Device times at which `detector` declares the writer of `beats` dead, one per silence, in
    /// `[beats[0], until]`. Through the core's `HeartbeatClassifier`: each silence is probed at
    /// its end, and a crossing found by bisection (both detectors only grow more certain as the
    /// silence goes on).
    public static func alarms(beats: [Double], until: Double, detector: HeartbeatDetector, declaredIntervalSeconds: Double) -> [Double] {
        guard let origin = beats.first else { return [] }
        var classifier = HeartbeatClassifier(detector: detector)
        var out: [Double] = []
        let interval = min(max(declaredIntervalSeconds, 0.001), HeartbeatRecord.maxIntervalSeconds)
        func record(_ seq: Int, _ t: Double) -> HeartbeatRecord {
            HeartbeatRecord(writer: "replay", pid: 1, launchId: "replay", sequence: UInt64(seq), wallTime: t, monotonicTime: t - origin, intervalSeconds: interval)
        }
        func dead(_ c: HeartbeatClassifier, at t: Double) -> Bool {
            var probe = c
            return probe.evaluate(wallTime: t, monotonicTime: t - origin).contains { $0.to == .dead }
        }
        for (i, b) in beats.enumerated() {
            _ = classifier.observe(record(i, b), wallTime: b, monotonicTime: b - origin)
            let end = i + 1 < beats.count ? beats[i + 1] : until
            guard end > b, dead(classifier, at: end) else { continue }
            var lo = b
            var hi = end
            for _ in 0..<48 where hi - lo > 1e-3 {
                let mid = (lo + hi) / 2
                if dead(classifier, at: mid) { hi = mid } else { lo = mid }
            }
            // The next beat came first at the same instant: not a decision.
            if i + 1 < beats.count && hi >= beats[i + 1] { continue }
            out.append(hi)
        }
        return out
    }

    /// The table of one monitor over `runs`.
    public static func table(system: String, _ runs: [RunInput], settings: [Setting], maxFalseAlarmsPerDay: Double?) -> Table {
        struct Acc {
            var alarms = 0, falseAlarms = 0, monitorDown = 0, deaths = 0, detected = 0
            var states: [String: Int] = [:]
            var latencies: [Double] = []
        }
        var acc = Array(repeating: Acc(), count: settings.count)
        var deviceSeconds = 0.0
        var beats = 0
        for run in runs {
            let (start, end) = HeartbeatJudge.span(run.events)
            deviceSeconds += end - start
            let timeline = WriterTimeline(role: run.writer.role, lifetime: run.lifetime, events: run.events)
            // Apps and servers: a monitor is long-lived.
            let monitorTimeline = WriterTimeline(role: run.monitor.role, lifetime: nil, events: run.events)
            let receives = run.monitor.receivesBeats(from: run.writer)
            let watches = HeartbeatJudge.watches(run.monitor, writer: run.writer, run.events)
            beats += watches.reduce(0) { $0 + $1.beats.count }
            let deaths = timeline.deaths.filter { d in
                watches.contains { $0.openT <= (d.endT ?? end) && ($0.closeT ?? end) >= d.start.t }
            }
            let threshold = run.monitor.threshold(in: run.events)
            for (k, setting) in settings.enumerated() {
                var times: [Double] = []
                for w in watches {
                    let declared = run.writer.intervalSeconds ?? threshold ?? 60
                    for t in alarms(beats: w.beats, until: w.closeT ?? end, detector: setting.core, declaredIntervalSeconds: declared) {
                        times.append(t)
                        let seg = timeline.state(atT: t)
                        guard !seg.state.isDead else { continue }
                        acc[k].falseAlarms += 1
                        let down = receives && (w.beats.last { $0 <= t }.map { monitorTimeline.wasDown(from: $0, to: t) } ?? false)
                        acc[k].states[seg.state.rawValue, default: 0] += 1
                        if down { acc[k].monitorDown += 1 }
                    }
                }
                times.sort()
                acc[k].alarms += times.count
                for d in deaths {
                    acc[k].deaths += 1
                    if let first = times.first(where: { d.contains(t: $0) }) {
                        acc[k].detected += 1
                        acc[k].latencies.append(first - d.start.t)
                    }
                }
            }
        }
        let hours = deviceSeconds / 3600
        let rows = settings.enumerated().map { k, s in
            Row(
                setting: s.name, isSeedRule: s.isSeedRule, alarms: acc[k].alarms, falseAlarms: acc[k].falseAlarms,
                falseAlarmsPerDeviceHour: hours > 0 ? Double(acc[k].falseAlarms) / hours : 0, falseAlarmStates: acc[k].states, falseAlarmsMonitorDown: acc[k].monitorDown,
                deaths: acc[k].deaths, detected: acc[k].detected,
                latencyP50Seconds: nearestRank(acc[k].latencies, 50), latencyP99Seconds: nearestRank(acc[k].latencies, 99))
        }
        let first = runs.first
        var table = Table(
            system: system, monitor: first?.monitor.name ?? "", writer: first?.writer.name ?? "", rule: first?.monitor.rule ?? "",
            runs: runs.count, deviceHours: hours, beats: beats, rows: rows, maxFalseAlarmsPerDay: maxFalseAlarmsPerDay, meetsTarget: nil)
        if let target = maxFalseAlarmsPerDay {
            table.meetsTarget = rows.filter { $0.falseAlarmsPerDeviceHour * 24 <= target }
                .min { a, b in
                    (-a.detected, a.latencyP99Seconds ?? .infinity, a.falseAlarms) < (-b.detected, b.latencyP99Seconds ?? .infinity, b.falseAlarms)
                }?.setting
        }
        return table
    }

    /// The table as people read it.
    public static func render(_ t: Table) -> String {
        var lines = [
            "\(t.system) \(t.monitor): \(t.writer) — rule \"\(t.rule)\"; \(t.runs) run\(t.runs == 1 ? "" : "s"), "
                + String(format: "%.2f", t.deviceHours) + " device hours, \(t.beats) beats replayed; each setting alarms at most once per silence"
                + " (a run's own summary counts the monitor's decisions, which may repeat within one)"
        ]
        let header = ["setting", "alarms", "false", "false/device h", "false while", "monitor down", "detected", "latency p50 s", "p99 s"]
        var cells: [[String]] = []
        for r in t.rows {
            let states = r.falseAlarmStates.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            cells.append([
                r.setting, String(r.alarms), String(r.falseAlarms), String(format: "%.2f", r.falseAlarmsPerDeviceHour), states.isEmpty ? "-" : states,
                String(r.falseAlarmsMonitorDown), "\(r.detected)/\(r.deaths)", r.latencyP50Seconds.map(HeartbeatVerdict.seconds) ?? "-",
                r.latencyP99Seconds.map(HeartbeatVerdict.seconds) ?? "-",
            ])
        }
        lines.append(TextTable.render(header, cells))
        if t.partialRuns > 0 {
            lines.append("partial: \(t.partialRuns) of \(t.runs) run(s) were interrupted or cut short; their beats count up to where they stop, a death after that is not seen")
        }
        if let target = t.maxFalseAlarmsPerDay {
            let n = HeartbeatVerdict.seconds(target)
            if let m = t.meetsTarget, let r = t.rows.first(where: { $0.setting == m }) {
                lines.append("at most \(n) false alarm(s) per device day: \(m) — " + String(format: "%.2f", r.falseAlarmsPerDeviceHour * 24)
                    + " per day, detected \(r.detected)/\(r.deaths)" + (r.latencyP99Seconds.map { ", p99 \(HeartbeatVerdict.seconds($0)) s" } ?? ""))
            } else {
                lines.append("at most \(n) false alarm(s) per device day: no setting above meets it")
            }
        }
        return lines.joined(separator: "\n")
    }
}
