import AppGroup
import Foundation
import History

/// Whether a role's trace says it is ready (`ProcessRole.Readiness.traceEvent`): a line whose
/// `event` is the one asked for, read as JSON (HISTORY.md §8). The runner matched the bytes
/// `"event":"launched"`, so a participant in another language writing `"event": "launched"` (Python's
/// `json.dumps` default) was never ready and the run failed to start.
enum TraceReadiness {
    /// A trace at startup is a few lines; a larger one is read up to this bound.
    static let maxBytes = 1 << 20

    static func hasEvent(_ event: String, inTraceAt path: String) -> Bool {
        guard let data = try? InputFile.read(path, limitBytes: maxBytes) else { return false }
        // Cheap first: no line can match without the event's name in it.
        guard data.range(of: Data(event.utf8)) != nil else { return false }
        return HistoryEvent.parse(jsonl: data).events.contains { $0.event == event }
    }
}
