import Foundation
@testable import HarnessKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The history streamed while a run goes: whole trace lines only, each exactly once, whatever
/// moment a pump lands in — what a killed harness leaves for `harness check`.
@Suite(.timeLimit(.minutes(1))) struct HistoryStreamTests {
    final class RunDirectory {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "sth-stream-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: path + "/trace", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func append(_ trace: String, _ text: String) throws {
            let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "/trace/" + trace))
            defer { try? h.close() }
            h.seekToEndOfFile()
            h.write(Data(text.utf8))
        }
        func create(_ trace: String) { FileManager.default.createFile(atPath: path + "/trace/" + trace, contents: nil) }
        var history: String { (try? String(contentsOfFile: path + "/" + HistoryStream.fileName, encoding: .utf8)) ?? "" }
    }

    @Test func wholeLinesOnceEachAndATornTailWaitsForItsNewline() throws {
        let d = try RunDirectory()
        d.create("a.jsonl")
        d.create("b.jsonl")
        let stream = HistoryStream(runDirectory: d.path)
        stream.stop()  // the pumps below are the test's own
        try d.append("a.jsonl", "a1\na2\na3-part")
        try d.append("b.jsonl", "b1\n")
        stream.pump()
        #expect(d.history == "a1\na2\nb1\n")
        stream.pump()
        #expect(d.history == "a1\na2\nb1\n", "nothing new: nothing copied again")
        try d.append("a.jsonl", "-rest\na4\n")
        try d.append("b.jsonl", "b2")
        stream.pump()
        #expect(d.history == "a1\na2\nb1\na3-part-rest\na4\n")
        // Hidden and foreign files are not traces.
        try "x\n".write(toFile: d.path + "/trace/.c.jsonl", atomically: false, encoding: .utf8)
        try "y\n".write(toFile: d.path + "/trace/notes.txt", atomically: false, encoding: .utf8)
        try d.append("b.jsonl", "\n")
        stream.pump()
        #expect(d.history == "a1\na2\nb1\na3-part-rest\na4\nb2\n")
    }

    /// The thread copies on its own while the run goes, and `stop` copies what is left.
    @Test func theThreadPumpsAndStopCopiesTheRest() throws {
        let d = try RunDirectory()
        d.create("h.jsonl")
        let stream = HistoryStream(runDirectory: d.path)
        try d.append("h.jsonl", "one\n")
        let deadline = ContinuousClock.now + .seconds(10)
        while d.history != "one\n" && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(d.history == "one\n")
        try d.append("h.jsonl", "two\n")
        stream.stop()
        #expect(d.history == "one\ntwo\n")
    }
}
