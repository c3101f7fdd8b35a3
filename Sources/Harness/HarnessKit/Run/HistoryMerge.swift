import AppGroup
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
        return Merged(events: sorted(all), tornLines: torn)
    }

    /// History order: by `mono`, ties by process then pid; stable (within one process equal monos
    /// keep their file order). A history streamed during the run is in arrival order until then.
    public static func sorted(_ events: [HistoryEvent]) -> [HistoryEvent] {
        events.enumerated().sorted {
            ($0.element.mono, $0.element.process, $0.element.pid, $0.offset) < ($1.element.mono, $1.element.process, $1.element.pid, $1.offset)
        }.map(\.element)
    }

    /// Bound on one history or trace file a verb reads (a 24 h run's history is tens of MB).
    public static let maxFileBytes = 1 << 30

    /// Reads `<runDirectory>/trace/*.jsonl` and merges them; a trace that is not a regular file
    /// (a FIFO would block the read forever) is skipped.
    public static func merge(runDirectory: String) throws -> Merged {
        let dir = runDirectory + "/trace"
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jsonl") }.sorted()
        return merge(names.compactMap { try? InputFile.read(dir + "/" + $0, limitBytes: maxFileBytes) })
    }
}
