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

    @discardableResult
    func record(_ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        counts[event, default: 0] += 1
        return log.log(event, fields)
    }
}
