import AppGroup
import Foundation
import History
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `harness watch`: a live feed of a device root in the system's terms, beside a real run (followed
/// by its run directory, each writer named from the run's traces, ended when the run removes its
/// root) and beside a participant written in another language.
@Suite(.serialized, .timeLimit(.minutes(3))) struct WatchProcessTests {
    typealias Dir = HarnessRunProcessTests.Dir

    struct Line: Decodable {
        var t: Double
        var time: String
        var area: String
        var subject: String
        var file: String
        var change: String
        var writerPid: Int32?
        var writer: String?
    }

    static func lines(_ p: ChildProcess, timeout: Duration = .seconds(60)) -> [Line] {
        var out: [Line] = []
        while let l = p.readLine(timeout: timeout) {
            if let line = try? JSONDecoder().decode(Line.self, from: Data(l.utf8)) { out.append(line) }
        }
        return out
    }

    @Test func aRunIsFollowedByItsRunDirectoryInTheSystemsTerms() throws {
        let d = try Dir()
        let (h, run, root) = try HarnessReliabilityProcessTests.startLongRun(d)
        defer { h.killAndReap() }
        let harness = try Executables.path(of: "harness")
        let counted = try ChildProcess.spawn(harness, ["watch", run, "--json", "--count", "25"])
        defer { counted.killAndReap() }
        let got = Self.lines(counted)
        #expect(counted.wait(timeout: .seconds(30)) == .exited(0))
        #expect(got.count == 25, "\(got.map(\.change))")
        #expect(got.contains { $0.area == "notify" && $0.change.contains("generation") }, "\(got.map { "\($0.area) \($0.change)" })")
        // Every line written by a process of the run names it.
        let named = got.filter { $0.writerPid != nil }
        #expect(!named.isEmpty)
        #expect(named.allSatisfy { $0.writer != nil }, "\(named.map { "\($0.file) pid \($0.writerPid!) \($0.writer ?? "?")" })")
        #expect(got.allSatisfy { !$0.file.isEmpty && !$0.time.isEmpty })

        // Followed to its end: the run stops (SIGTERM), removes its device root, and the watch ends.
        let following = try ChildProcess.spawn(harness, ["watch", run, "--json"])
        defer { following.killAndReap() }
        usleep(300_000)
        #expect(h.signal(SIGTERM))
        while h.readLine(timeout: .seconds(60)) != nil {}
        _ = h.wait(timeout: .seconds(30))
        #expect(!FileManager.default.fileExists(atPath: root), "the run removed its device root")
        let tail = Self.lines(following, timeout: .seconds(20))
        #expect(following.wait(timeout: .seconds(10)) == .exited(0), "the watch ends with its run")
        #expect(tail.last?.area == "watch" && tail.last?.change.contains("removed") == true, "\(tail.suffix(3).map(\.change))")
    }

    /// A participant written from the protocol's documents alone (Python): its suite writes, posts
    /// and states are decoded the same, its pid taken from its temp files' names.
    @Test func aForeignParticipantsWritesAreDecoded() throws {
        let d = try Dir()
        let root = d.path + "/root"
        // The suite's directories made first: a file renamed into a directory the watch has not
        // followed yet is found by a walk, without the rename that names its writer.
        for dir in ["containers/group.test/Library/Preferences", "notify"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        let watch = try ChildProcess.spawn(try Executables.path(of: "harness"), ["watch", root, "--json", "--for", "120s"])
        defer { watch.killAndReap() }
        // Watching once a file written is said (its start may take a while on a loaded machine).
        var ready = false
        for i in 0..<60 where !ready {
            try Data("\(i)".utf8).write(to: URL(fileURLWithPath: root + "/containers/probe"))
            ready = watch.readLine(timeout: .milliseconds(500)) != nil
        }
        #expect(ready, "harness watch said nothing of a file written for 30 s")
        while watch.readLine(timeout: .milliseconds(200)) != nil {}
        let participant = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Conformance/participant.py").path
        // One write at a time, each line read before the next write (two writes closer together
        // than the watch reads may show as one change: it reads the file as it is then).
        let steps: [(args: [String], line: String)] = [
            (["increment", "--root", root, "--group", "group.test", "--suite", "group.test", "--key", "n", "--count", "1"], "defaults group.test: n = 1"),
            (["increment", "--root", root, "--group", "group.test", "--suite", "group.test", "--key", "n", "--count", "1"], "defaults group.test: n: 1 → 2"),
            (["post", "--root", root, "--name", "hello"], "notify hello: posted, generation 1, state 0"),
            (["set-state", "--root", root, "--name", "hello", "--state", "7"], "notify hello: state 0 → 7 (generation 1)"),
        ]
        var got: [Line] = []
        for step in steps {
            let p = try ChildProcess.spawn("/usr/bin/env", ["python3", participant] + step.args)
            while p.readLine(timeout: .seconds(30)) != nil {}
            #expect(p.wait(timeout: .seconds(30)) == .exited(0), "participant.py \(step.args[0])")
            guard let l = watch.readLine(timeout: .seconds(30)), let line = try? JSONDecoder().decode(Line.self, from: Data(l.utf8)) else {
                Issue.record("no line for \(step.line)")
                return
            }
            got.append(line)
            #expect("\(line.area) \(line.subject): \(line.change)" == step.line)
        }
        #expect(mkfifo(root + "/containers/group.test/planted", 0o600) == 0)
        if let l = watch.readLine(timeout: .seconds(30)), let line = try? JSONDecoder().decode(Line.self, from: Data(l.utf8)) { got.append(line) }
        #expect(got.last.map { "\($0.area) \($0.subject): \($0.change)" } == "file containers/group.test/planted: a FIFO appeared (no participant makes one)")
        #expect(got.prefix(4).allSatisfy { $0.writerPid != nil && $0.writer == nil }, "a bare device root: pids, no names: \(got.map { "\($0.file) \($0.writerPid.map(String.init) ?? "-") \($0.writer ?? "-")" })")
    }
}
