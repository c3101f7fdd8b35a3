import AppGroup
import Foundation
import History

/// A history with everything that legitimately differs between two runs of the same scenario,
/// seed and build taken out — wall-clock stamps, pids, the run's own paths — and its lines in an
/// order that does not depend on which of two processes acting at the same device instant wrote
/// first: by device time, then process, then each process's own order. Loopback ports, which the
/// kernel picks, become `127.0.0.1:<port>`. UUIDs, which apps and the frameworks draw at random
/// (`UUID().uuidString` in a seed's code, a prompt's request id), become `<uuid-N>`, numbered by
/// first appearance. Under virtual time two runs give byte-identical normalized histories
/// (`harness normalize`, and a test).
public enum HistoryNormalizer {
    /// Fields that carry wall time, process ids or the CPU a run was pinned to.
    public static let droppedFields: Set<String> = ["childPid", "cpu", "spawnMono"]
    /// Lines that say how the harness looked, not what happened: the tamper watch's full looks
    /// (`tamper_scan`, after an inotify queue overflow) depend on the machine's speed.
    public static let droppedEvents: Set<String> = ["tamper_scan"]

    /// The indices of `events` (a merged history) in the normalized order: device time, then
    /// process, then the merge's order within one (t, process) — each process's own. A violation's
    /// chain is ordered by it too (`CauseChain`), so it reads the same in every run.
    public static func order(_ events: [HistoryEvent]) -> [Int] {
        events.indices.sorted { (events[$0].t, events[$0].process, $0) < (events[$1].t, events[$1].process, $1) }
    }

    public static func normalize(_ events: [HistoryEvent], runDirectory: String?, deviceRoot: String?) -> [String] {
        let kept = events.filter { !droppedEvents.contains($0.event) }
        var uuids = UUIDNumbering()
        return order(kept).map { kept[$0] }.map { e in
            var fields = e.fields
            for k in droppedFields { fields[k] = nil }
            for (k, v) in fields {
                var v = v
                if let runDirectory, !runDirectory.isEmpty { v = v.replacingOccurrences(of: runDirectory, with: "<run-dir>") }
                if let deviceRoot, !deviceRoot.isEmpty { v = v.replacingOccurrences(of: deviceRoot, with: "<device-root>") }
                v = v.replacingOccurrences(of: #"127\.0\.0\.1:[0-9]+"#, with: "127.0.0.1:<port>", options: .regularExpression)
                fields[k] = v
            }
            var parts = ["\"t\":\(e.t)", "\"process\":\(HistoryEvent.quote(e.process))", "\"event\":\(HistoryEvent.quote(e.event))"]
            for (k, v) in fields.sorted(by: { $0.key < $1.key }) { parts.append("\(HistoryEvent.quote(k)):\(HistoryEvent.quote(uuids.replace(in: v)))") }
            return "{" + parts.joined(separator: ",") + "}"
        }
    }

    /// Each distinct UUID (8-4-4-4-12 hex digits, any case) becomes `<uuid-N>`, N counting from 1 in
    /// order of first appearance: the same line order gives the same numbers in every run.
    struct UUIDNumbering {
        var numbers: [String: Int] = [:]
        static let pattern = try! NSRegularExpression(
            pattern: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")

        mutating func replace(in value: String) -> String {
            guard value.utf8.count >= 36 else { return value }
            let ns = value as NSString
            let matches = Self.pattern.matches(in: value, range: NSRange(location: 0, length: ns.length))
            guard !matches.isEmpty else { return value }
            var out = ""
            var last = 0
            for m in matches {
                let key = ns.substring(with: m.range).uppercased()
                let n = numbers[key] ?? (numbers.count + 1)
                numbers[key] = n
                out += ns.substring(with: NSRange(location: last, length: m.range.location - last)) + "<uuid-\(n)>"
                last = m.range.location + m.range.length
            }
            return out + ns.substring(from: last)
        }
    }

    /// The normalized `history.jsonl` of a run directory.
    /// `runDirectory` may be relative or end in `/`: the run's paths in the history are absolute,
    /// so it is made absolute and standard first (`RUN` and `RUN/` give the same bytes).
    public static func normalize(runDirectory: String) throws -> [String] {
        try normalizeCountingSkipped(runDirectory: runDirectory).lines
    }

    /// `normalize(runDirectory:)`, and how many lines of the history were not history events
    /// (skipped; a cut-short last line of an interrupted run is one).
    public static func normalizeCountingSkipped(runDirectory: String) throws -> (lines: [String], skipped: Int) {
        let dir = absoluteStandardPath(runDirectory)
        let data = try InputFile.read(dir + "/history.jsonl", limitBytes: HistoryMerge.maxFileBytes)
        let parsed = HistoryEvent.parse(jsonl: data)
        let started = parsed.events.first { $0.isHarnessLine("run_started") }
        return (normalize(parsed.events, runDirectory: dir, deviceRoot: started?["deviceRoot"]), parsed.badLines.count)
    }

    /// Absolute, without `.`/`..` components or a trailing slash.
    static func absoluteStandardPath(_ path: String) -> String {
        let url = path.hasPrefix("/")
            ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        var p = url.standardizedFileURL.path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }
}
