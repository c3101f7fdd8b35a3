import Foundation
import History

/// What a report page is built from: `history.jsonl` (every line, with its 1-based line number so
/// the page can point at it) and, when present, the verdicts of `report.json` (docs/REPORT.md).
/// Read here without the checker: a report of an old or interrupted run needs only its files.
public struct RunRecord: Sendable {
    public struct Line: Sendable {
        /// 1-based line number in history.jsonl.
        public var number: Int
        public var event: HistoryEvent
    }

    public var name: String
    public var lines: [Line]
    /// Lines that did not parse (a process killed mid-append): counted and shown, never dropped silently.
    public var badLineNumbers: [Int]
    public var verdicts: Verdicts?
    /// What reruns proved of the violations' causes (`why.json`: `harness run`, `harness why`), by
    /// violation number (1-based).
    public var proven: [Int: Proven] = [:]

    /// The run's identity from its `run_started` line (written by the core for every run).
    public var started: HistoryEvent? { lines.first { $0.event.event == "run_started" && $0.event.process == "harness" }?.event }
    public var scenario: String { started?["scenario"] ?? "?" }
    public var variant: String { started?["variant"] ?? "?" }
    public var seed: String { started?["seed"] ?? "?" }
    public var system: String { started?["system"] ?? "?" }
    public var rerunCommand: String? { started?["command"] }

    /// Bounds: a history is at most this big (a 24-device-hour run with the nemesis is ~10 MB).
    public static let maxHistoryBytes = 512 * 1024 * 1024

    public init(name: String, history: Data, report: Data?) throws(RunReportError) {
        self.name = name
        var lines: [Line] = []
        var bad: [Int] = []
        let dec = JSONDecoder()
        var number = 0
        // Split by hand (not split(separator:)): empty lines still count, so numbers match `sed -n Np`.
        var start = history.startIndex
        while start < history.endIndex {
            let end = history[start...].firstIndex(of: UInt8(ascii: "\n")) ?? history.endIndex
            number += 1
            let slice = history[start..<end]
            if !slice.isEmpty {
                if let e = try? dec.decode(HistoryEvent.self, from: Data(slice)) { lines.append(Line(number: number, event: e)) } else { bad.append(number) }
            }
            start = end == history.endIndex ? end : history.index(after: end)
        }
        self.lines = lines
        badLineNumbers = bad
        if let report {
            do { verdicts = try dec.decode(Verdicts.self, from: report) } catch {
                throw RunReportError("report.json of \(name) is not a report (docs/REPORT.md): \(error); run `harness check \(name)` to judge the history again")
            }
        }
    }

    /// The record of a history already in memory: `events` are history.jsonl's lines, in order
    /// (the harness holds them when it has just written the file: reading it back was ~40 % of a
    /// 24 h run's page).
    public init(name: String, events: [HistoryEvent], report: Data?) throws(RunReportError) {
        try self.init(name: name, history: Data(), report: report)
        lines = events.enumerated().map { Line(number: $0.offset + 1, event: $0.element) }
    }

    /// Reads `RUN_DIR/history.jsonl` and `RUN_DIR/report.json` (optional).
    public static func load(runDirectory dir: String) throws(RunReportError) -> RunRecord {
        let historyPath = dir + "/history.jsonl"
        var st = stat()
        guard lstat(dir, &st) == 0 else { throw RunReportError("\(dir): no such directory (pass a run directory `harness run` wrote under runs/)") }
        guard (st.st_mode & S_IFMT) == S_IFDIR || (st.st_mode & S_IFMT) == S_IFLNK else { throw RunReportError("\(dir): not a directory (pass a run directory)") }
        guard stat(historyPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw RunReportError("\(dir): no history.jsonl (not a run directory; pass a directory `harness run` wrote under runs/)")
        }
        guard Int(st.st_size) <= maxHistoryBytes else {
            throw RunReportError("\(historyPath): \(st.st_size) bytes, more than the \(maxHistoryBytes) a report reads")
        }
        guard let history = FileManager.default.contents(atPath: historyPath) else { throw RunReportError("\(historyPath): cannot read it") }
        let report = FileManager.default.contents(atPath: dir + "/report.json")
        var record = try RunRecord(name: (dir as NSString).lastPathComponent, history: history, report: report)
        if let data = FileManager.default.contents(atPath: dir + "/why.json") {
            do {
                for p in try JSONDecoder().decode(ProvenFile.self, from: data).explained { record.proven[p.violation] = p }
            } catch {
                throw RunReportError("\(dir)/why.json is not what `harness why` writes: \(error); remove it, or run `harness why \(dir)` again")
            }
        }
        // Lines, none of them a history event: not a run's history (a page of it would say nothing).
        if record.lines.isEmpty, let first = record.badLineNumbers.first {
            throw RunReportError("\(historyPath): none of its \(record.badLineNumbers.count) line(s) is a history event (line \(first) is not JSON of one): not a run's history")
        }
        // Every run's history starts with the harness's run_started line (an interrupted one too).
        if !record.lines.isEmpty, record.started == nil {
            throw RunReportError("\(historyPath): \(record.lines.count) history line(s) but no run_started line of the harness: not a run's history (pass a directory `harness run` wrote under runs/)")
        }
        return record
    }

    /// One violation's entry of `why.json`, the parts a page shows (unknown fields ignored).
    public struct Proven: Decodable, Sendable {
        public struct Cause: Decodable, Sendable {
            public var step: String
            public var interrupted: String?
            /// 1-based history.jsonl line where the step shows.
            public var line: Int?
            public var afterEvidence: Bool?
        }
        public var violation: Int
        public var proven: [Cause]
        public var together: [[Cause]]?
        public var untried: [String]?
        public var undecided: [String]?
        public var disagreed: [String]?
        public var limit: String?
        public var unprovable: String?
    }

    struct ProvenFile: Decodable { var explained: [Proven] }

    /// `report.json`, the parts a page shows (docs/REPORT.md; unknown fields ignored).
    public struct Verdicts: Decodable, Sendable {
        public var checker: String?
        public var decided: Bool
        public var undecidedReason: String?
        public var interruption: String?
        public var tampered: String?
        public var results: [Result]?
        public var violations: [Violation]
        public var latencies: [Series]?
        public var lostByOS: [Violation]?
        /// Each heartbeat monitor's decisions judged (docs/REPORT.md "heartbeat").
        public var heartbeats: [Heartbeat]?

        public struct Heartbeat: Decodable, Sendable {
            public var monitor: String
            public var writer: String
            public var rule: String
            public var decisions: Int
            public var trueAlarms: Int
            public var falseAlarms: Int
            public var falseAlarmStates: [String: Int]?
            public var deaths: Int
            public var detected: Int
            public var missed: Int
            public var detectionLatencyP50Seconds: Double?
            public var detectionLatencyP99Seconds: Double?
            public var findings: [Finding]?
            public var findingsOmitted: Int?

            public struct Finding: Decodable, Sendable {
                public var kind: String
                public var t: Double
                public var subject: String?
                public var writerState: String
                public var detail: String
                public var latencySeconds: Double?
            }
        }

        public struct Result: Decodable, Sendable {
            public var name: String
            public var passed: Bool
            public var checkedCount: Int
        }

        public struct Subject: Decodable, Sendable {
            public var kind: String
            public var id: String
        }

        public struct Violation: Decodable, Sendable {
            public var invariant: String
            public var subject: Subject?
            public var explanation: String
            public var relevantEvents: [HistoryEvent]
            /// The cause chain (`CauseChain`): history.jsonl line numbers, cause or step, the line in short.
            public var chain: [ChainLine]?
        }

        public struct ChainLine: Decodable, Sendable {
            public var line: Int
            public var role: String
            public var text: String
        }

        public struct Series: Decodable, Sendable {
            public var name: String
            public var what: String?
            public var count: Int
            public var p50Micros: Double?
            public var p99Micros: Double?
            public var maxMicros: Double?
            /// `[valueMicros, count]` per non-empty bucket.
            public var buckets: [[Double]]?
        }

        /// The word `harness run` prints for the run.
        public var verdict: String {
            if interruption != nil { return "INTERRUPTED" }
            if tampered != nil { return "TAMPERED" }
            if !decided { return "UNDECIDED" }
            return violations.isEmpty ? "PASS" : "VIOLATION"
        }
    }
}

public struct RunReportError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ d: String) { description = d }
}
