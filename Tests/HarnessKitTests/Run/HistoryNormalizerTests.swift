import Foundation
import HarnessKit
import History
import Testing

@Suite(.timeLimit(.minutes(1))) struct HistoryNormalizerTests {
    /// `harness normalize RUN/` and `RUN` (and any spelling of the same directory) print the
    /// same bytes: the history's paths are absolute, the argument is made so first (issue 19).
    @Test func everySpellingOfTheRunDirectoryGivesTheSameBytes() throws {
        let parent = NSTemporaryDirectory() + "sth-normalize-\(getpid())-\(UUID().uuidString.prefix(8))"
        let run = parent + "/run-1"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let line = HistoryEvent(mono: 1, t: 5, process: "server", pid: 9, event: "started",
                                fields: ["detail": "journal \(run)/server/ledger.jsonl"]).jsonLine()
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: run + "/history.jsonl"))

        let plain = try HistoryNormalizer.normalize(runDirectory: run)
        #expect(plain.count == 1)
        #expect(plain.first?.contains("journal <run-dir>/server/ledger.jsonl") == true, "\(plain)")
        for spelling in [run + "/", run + "//", run + "/.", parent + "/../" + (parent as NSString).lastPathComponent + "/run-1/"] {
            #expect(try HistoryNormalizer.normalize(runDirectory: spelling) == plain, "\(spelling)")
        }
    }
}
