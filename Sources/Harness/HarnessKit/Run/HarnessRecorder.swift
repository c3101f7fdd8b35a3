import AppGroup
import Foundation
import History

/// The harness's own trace (`trace/harness.jsonl`): every action it takes as iOS, the user and
/// the nemesis, in the same line format as the stand-ins' traces.
final class HarnessRecorder: @unchecked Sendable {
    let log: TraceLog
    private(set) var counts: [String: Int] = [:]

    init(runDirectory: String, clock: HarnessClock) throws {
        log = try TraceLog(runDirectory: runDirectory, process: "harness", deviceTime: { clock.nowUnixSeconds() })
    }

    /// One of the harness's own lines (`HarnessLine`: the whole vocabulary, documented).
    @discardableResult
    func record(_ line: HarnessLine, _ fields: [String: String] = [:]) -> HistoryEvent {
        counts[line.rawValue, default: 0] += 1
        return log.log(line.rawValue, fields)
    }

    /// A line a pack adds after the run (`SystemPack.evidence`): its own, documented in its README.
    @discardableResult
    func recordEvidence(_ event: String, _ fields: [String: String]) -> HistoryEvent {
        counts[event, default: 0] += 1
        return log.log(event, fields)
    }
}
