import Foundation
@testable import HarnessKit
import History
import Testing

/// What the normalizer takes out of a history so two runs of one seed compare equal.
@Suite(.timeLimit(.minutes(1))) struct HistoryNormalizerTests {
    static func line(_ t: Double, _ process: String, _ event: String, _ fields: [String: String]) -> HistoryEvent {
        HistoryEvent(mono: Int64(t * 1e9), t: t, process: process, pid: 42, event: event, fields: fields)
    }

    @Test func uuidsAreNumberedByFirstAppearanceWhateverTheirValue() {
        func run(_ a: String, _ b: String) -> [String] {
            HistoryNormalizer.normalize([
                Self.line(1, "ext", "defaults_set", ["v.id": a]),
                Self.line(2, "harness", "notification_delivered", ["identifier": a.lowercased()]),
                Self.line(3, "ext", "defaults_set", ["v.id": b, "note": "replaced \(a) by \(b)"]),
            ], runDirectory: nil, deviceRoot: nil)
        }
        let first = run("2730A286-8B70-44F8-BFED-B6E07BE4EBFE", "8ACB6CEB-B92F-401D-B97B-C3FBD17AA51F")
        let second = run("1EDB7481-4E7D-4146-A5DF-1B8E95C21454", "4E291E8F-E115-4ED3-9C6F-49C60BB18427")
        #expect(first == second)
        #expect(first[1].contains("\"identifier\":\"<uuid-1>\""), "the same UUID in lower case is the same one")
        #expect(first[2].contains("\"note\":\"replaced <uuid-1> by <uuid-2>\""))
        #expect(!first.joined().contains("2730A286"))
    }

    @Test func textThatIsNotAUUIDStaysAsItIs() {
        let out = HistoryNormalizer.normalize(
            [Self.line(1, "host", "x", ["a": "2730A286-8B70-44F8-BFED", "b": "session s-1-2", "c": "zz30A286-8B70-44F8-BFED-B6E07BE4EBFE"])],
            runDirectory: nil, deviceRoot: nil)
        #expect(out == [#"{"t":1.0,"process":"host","event":"x","a":"2730A286-8B70-44F8-BFED","b":"session s-1-2","c":"zz30A286-8B70-44F8-BFED-B6E07BE4EBFE"}"#])
    }

    /// `harness normalize RUN/` and `RUN` (and any spelling of the same directory) print the
    /// same bytes: the history's paths are absolute, the argument is made so first.
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
