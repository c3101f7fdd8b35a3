import Foundation
import HarnessKit
import History
import Testing

@Suite(.timeLimit(.minutes(1))) struct HistoryMergeTests {
    func line(_ mono: Int64, _ process: String, _ event: String) -> String {
        HistoryEvent(mono: mono, t: 0, process: process, pid: 1, event: event).jsonLine()
    }

    @Test func tracesMergeByMonoAndATornLastLineIsCountedNotKept() {
        let a = Data((line(3, "a", "x") + "\n" + line(1, "a", "y") + "\n" + "{\"mono\":9,\"t\":0,\"proc").utf8)
        let b = Data((line(2, "b", "z") + "\n").utf8)
        let merged = HistoryMerge.merge([a, b])
        #expect(merged.events.map(\.event) == ["y", "z", "x"])
        #expect(merged.tornLines == 1)
        #expect(HistoryMerge.merge([b, a]).jsonl == merged.jsonl, "the order of the files does not matter")
    }

    /// Two processes of one role (an extension's calls, a relaunched app) at one mono: by pid,
    /// whatever order their trace files come in.
    @Test func equalMonosAndProcessNamesAreOrderedByPid() {
        let high = Data((HistoryEvent(mono: 5, t: 0, process: "monitor", pid: 20, event: "second").jsonLine() + "\n").utf8)
        let low = Data((HistoryEvent(mono: 5, t: 0, process: "monitor", pid: 7, event: "first").jsonLine() + "\n").utf8)
        #expect(HistoryMerge.merge([high, low]).events.map(\.event) == ["first", "second"])
        #expect(HistoryMerge.merge([low, high]).events.map(\.event) == ["first", "second"])
    }

    @Test func equalMonosAreOrderedByProcessThenKeepTheirFileOrder() {
        let a = Data((line(5, "b", "first") + "\n" + line(5, "b", "second") + "\n").utf8)
        let b = Data((line(5, "a", "other") + "\n").utf8)
        #expect(HistoryMerge.merge([a, b]).events.map(\.event) == ["other", "first", "second"])
    }
}
