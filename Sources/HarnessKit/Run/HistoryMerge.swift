import Foundation
import History

/// Every trace of a run merged into one history: sorted by CLOCK_MONOTONIC (`mono`), ties by
/// process then pid, so the merge of the same traces is always the same bytes. Torn last lines of
/// killed processes are counted and left out.
public enum HistoryMerge {
    public struct Merged: Sendable {
        public var events: [HistoryEvent]
        public var tornLines: Int
        public var jsonl: Data {
            var out = Data()
            for e in events { out.append(Data((e.jsonLine() + "\n").utf8)) }
            return out
        }
    }

    /// `traces`: the contents of every `trace/*.jsonl`, in any order.
    public static func merge(_ traces: [Data]) -> Merged {
        var all: [HistoryEvent] = []
        var torn = 0
        for data in traces {
            let parsed = HistoryEvent.parse(jsonl: data)
            all += parsed.events
            torn += parsed.badLines.count
        }
        // Stable: within one process equal monos keep their file order.
        let ordered = all.enumerated().sorted {
            ($0.element.mono, $0.element.process, $0.element.pid, $0.offset) < ($1.element.mono, $1.element.process, $1.element.pid, $1.offset)
        }
        return Merged(events: ordered.map(\.element), tornLines: torn)
    }

    /// Reads `<runDirectory>/trace/*.jsonl` and merges them.
    public static func merge(runDirectory: String) throws -> Merged {
        let dir = runDirectory + "/trace"
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jsonl") }.sorted()
        return merge(names.compactMap { FileManager.default.contents(atPath: dir + "/" + $0) })
    }
}
