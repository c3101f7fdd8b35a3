import AppGroup
import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A participant written in Python from docs/PROTOCOL.md alone (Tests/Conformance/participant.py,
/// standard library + ctypes for inotify) takes part beside Swift processes: read-modify-write on a
/// shared key under the suite lock, posts, observers, state. Skipped, saying so, without python3.
enum PythonParticipant {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"].first { access($0, X_OK) == 0 }
        ?? ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/python3" }.first { access($0, X_OK) == 0 }
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Conformance/participant.py").path
}

@Suite(.serialized, .enabled(if: PythonParticipant.python != nil, "python3 is not installed: the Python participant cannot run"), .timeLimit(.minutes(3)))
struct ConformanceTests {
    static func participant(_ args: [String]) throws -> ChildProcess {
        try ChildProcess.spawn(PythonParticipant.python!, [PythonParticipant.script] + args)
    }

    /// 3 Swift and 3 Python processes, 200 increments each, on one key: exactly 1200.
    @Test func pythonAndSwiftIncrementOneKeyWithoutLosingAnUpdate() throws {
        let t = try TestRoot()
        let per = 200
        var children: [ChildProcess] = []
        defer { for c in children { c.killAndReap() } }
        for i in 0..<6 {
            let args = ["increment", "--root", t.path, "--key", "k", "--count", String(per)]
            children.append(i % 2 == 0 ? try t.helper(args) : try Self.participant(args))
        }
        for c in children {
            let line = c.readLine(timeout: .seconds(120))
            #expect(line?.hasPrefix("done ") == true, "a participant said \(String(describing: line))")
            #expect(c.wait(timeout: .seconds(10)) == .exited(0))
        }
        #expect(try t.defaults().integer(forKey: "k") == 6 * per)
        // And the Python side reads what the Swift side wrote (and vice versa, above).
        try t.defaults().store("from swift", forKey: "s")
        let reader = try Self.participant(["read", "--root", t.path, "--key", "s"])
        #expect(reader.readLine(timeout: .seconds(10)) == "from swift")
        #expect(t.root.quarantineRecords().isEmpty)
    }

    /// Posts from both languages at once; observers in both languages end on the final generation.
    @Test func pythonAndSwiftPostAndObserveEachOther() throws {
        let t = try TestRoot()
        let center = try DarwinNotificationCenter(deviceRoot: t.root)
        defer { center.shutdown() }
        let got = Box<String>()
        try center.addObserver("x") { got.append($0) }
        let observer = try Self.participant(["observe", "--root", t.path, "--name", "x", "--stop", "stop"])
        defer { observer.killAndReap() }
        #expect(observer.readLine(timeout: .seconds(10)) == "ready")
        let per = 100
        var posters: [ChildProcess] = []
        defer { for p in posters { p.killAndReap() } }
        for i in 0..<4 {
            let args = ["post", "--root", t.path, "--name", "x", "--count", String(per)]
            posters.append(i % 2 == 0 ? try t.helper(args) : try Self.participant(args))
        }
        for p in posters {
            #expect(p.readLine(timeout: .seconds(60))?.hasPrefix("done") == true)
            #expect(p.wait(timeout: .seconds(10)) == .exited(0))
        }
        // Only `x` was posted: each post is 1 + the high-water, so exactly 4 × per.
        #expect(try center.generation("x") == UInt64(4 * per))
        #expect(eventually(timeout: .seconds(5)) { center.lastDelivered("x") == UInt64(4 * per) })
        // The Python observer: at least one callback, and it has seen the final generation.
        try center.post("stop")
        var lines: [String] = []
        while let l = observer.readLine(timeout: .seconds(10)) { lines.append(l) }
        #expect(lines.contains { $0.hasPrefix("cb x ") }, "\(lines.suffix(3))")
        #expect(lines.last == "last x \(4 * per)", "\(lines.suffix(3))")
        let lastCallback = lines.last { $0.hasPrefix("cb x ") }
        #expect(lastCallback == "cb x \(4 * per)", "the last callback should be for the final post: \(lines.suffix(3))")
        #expect(observer.wait(timeout: .seconds(5)) == .exited(0))
    }

    /// PROTOCOL.md §3: what one implementation writes, the other reads. The Swift
    /// writer wrote a control character as `&#1;`, which Python's XML parser refuses (it then
    /// quarantined the whole suite); it now refuses such a string, and writes tab, newline and
    /// carriage return as they are. Integers are signed 64-bit: the Python participant refuses
    /// 2^64-1, and a suite holding one (plistlib writes it) is reported by `harness defaults read`
    /// as moved aside — exit 2, never `{}` and exit 0.
    @Test func integersAndCharactersAgreeAcrossLanguages() throws {
        let t = try TestRoot()
        let d = try t.defaults()
        #expect(throws: AppGroupError.notXMLText(key: "ctl", scalar: 1)) { try d.update { $0["ctl"] = .string("a\u{1}b") } }
        try d.update { $0["text"] = .string("tab\tline\ncr\r<&>é😀") }
        let read = try Self.participant(["read", "--root", t.path, "--key", "text"])
        var lines: [String] = []
        while let l = read.readLine(timeout: .seconds(10)) { lines.append(l) }
        // Python read a carriage return (written `&#13;`), not a line end: it prints within the line.
        #expect(lines == ["tab\tline", "cr\r<&>é😀"], "\(lines)")
        #expect(try d.string(forKey: "text") == "tab\tline\ncr\r<&>é😀")
        #expect(read.wait(timeout: .seconds(10)) == .exited(0))
        #expect(t.root.quarantineRecords().isEmpty, "Python quarantined what Swift wrote: \(t.root.quarantineRecords())")

        let big = try Self.participant(["set-int", "--root", t.path, "--key", "big", "--state", "18446744073709551615"])
        #expect(big.readLine(timeout: .seconds(10)) == nil)
        #expect(big.wait(timeout: .seconds(10)) == .exited(2))
        #expect(try t.defaults().object(forKey: "big") == nil)

        // A writer that does not follow PROTOCOL.md §3 (plistlib alone writes 2^64-1).
        let python = try ChildProcess.spawn(PythonParticipant.python!, [
            "-c", "import plistlib,sys; sys.stdout.buffer.write(plistlib.dumps({'big': 2**64 - 1, 'kept': 'x'}))",
        ])
        var plist = ""
        while let l = python.readLine(timeout: .seconds(10)) { plist += l + "\n" }
        #expect(python.wait(timeout: .seconds(10)) == .exited(0))
        try plist.write(toFile: t.suitePath, atomically: false, encoding: .utf8)
        let errPath = t.path + "/stderr"
        let fd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let harness = try ChildProcess.spawn(try Executables.path(of: "harness"), ["defaults", "read", TestRoot.group, "--device-root", t.path], stderrTo: fd)
        close(fd)
        var out: [String] = []
        while let l = harness.readLine(timeout: .seconds(10)) { out.append(l) }
        // The out-of-range key is left out alone (PROTOCOL.md §3), said on stderr; the rest reads.
        #expect(harness.wait(timeout: .seconds(10)) == .exited(0), "stdout: \(out)")
        #expect(out.contains { $0.contains("kept") && $0.contains("x") } && !out.contains { $0.contains("big") }, "\(out)")
        let err = try String(contentsOfFile: errPath, encoding: .utf8)
        #expect(err.contains("note: suite \(TestRoot.group): key left out of the suite: \"big\": bad integer"), "\(err)")
        // Python reads it the same way: the rest of the suite, the bad key recorded.
        let pyRead = try Self.participant(["read", "--root", t.path, "--key", "kept"])
        #expect(pyRead.readLine(timeout: .seconds(10)) == "x")
        #expect(pyRead.wait(timeout: .seconds(10)) == .exited(0))
        let pyBig = try Self.participant(["read", "--root", t.path, "--key", "big"])
        #expect(pyBig.readLine(timeout: .seconds(10)) == "absent")
        #expect(pyBig.wait(timeout: .seconds(10)) == .exited(0))
        #expect(t.root.quarantineRecords().filter { $0.contains("key left out of the suite: \\\"big\\\": bad integer") }.count >= 2, "\(t.root.quarantineRecords())")
        #expect(t.root.quarantineRecords().allSatisfy { $0.contains("key left out of the suite") }, "nothing moved aside: \(t.root.quarantineRecords())")
    }

    /// One date rule in both languages (PROTOCOL.md §3): proleptic Gregorian, 0001…9999, whole
    /// seconds. Swift writes, Python reads the same day (a Julian reading shifted 1582-10-10 by ten
    /// days); Python writes, Swift reads it back unchanged; a date Python cannot hold is refused
    /// by the Swift writer, never written to make the suite corrupt for the other.
    @Test func datesAgreeAcrossLanguages() throws {
        let t = try TestRoot()
        let texts = ["0001-01-01T00:00:00Z", "1000-06-01T00:00:00Z", "1582-10-10T00:00:00Z", "2026-02-17T08:00:00Z", "9999-12-31T23:59:59Z"]
        let d = try t.defaults()
        try d.update { s in for (i, text) in texts.enumerated() { s["d\(i)"] = .date(try! ISO8601Date.parse(text).get()) } }
        for (i, text) in texts.enumerated() {
            let read = try Self.participant(["read", "--root", t.path, "--key", "d\(i)"])
            let line = read.readLine(timeout: .seconds(10))
            #expect(line == text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: ""), "Python read \(text) as \(line ?? "nothing")")
            #expect(read.wait(timeout: .seconds(10)) == .exited(0))
        }
        #expect(t.root.quarantineRecords().isEmpty, "\(t.root.quarantineRecords())")
        for out in [Date(timeIntervalSince1970: ISO8601Date.range.lowerBound - 1), Date(timeIntervalSince1970: ISO8601Date.range.upperBound + 1)] {
            #expect(throws: AppGroupError.dateOutOfRange(key: "far")) { try d.update { $0["far"] = .date(out) } }
        }
        let python = try ChildProcess.spawn(PythonParticipant.python!, [
            "-c", "import plistlib,sys,datetime; sys.stdout.buffer.write(plistlib.dumps({'a': datetime.datetime(1000, 6, 1), 'b': datetime.datetime(1, 1, 1)}))",
        ])
        var plist = ""
        while let l = python.readLine(timeout: .seconds(10)) { plist += l + "\n" }
        #expect(python.wait(timeout: .seconds(10)) == .exited(0))
        try plist.write(toFile: t.suitePath, atomically: false, encoding: .utf8)
        let back = try t.defaults()
        for (key, text) in [("a", "1000-06-01T00:00:00Z"), ("b", "0001-01-01T00:00:00Z")] {
            guard case .date(let x)? = try back.value(forKey: key) else {
                Issue.record("\(key): not a date")
                continue
            }
            #expect(ISO8601Date.format(x) == text)
        }
        // A date outside 0001…9999 (another writer's) is left out alone by both readers.
        let far = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>far</key><date>10000-01-01T00:00:00Z</date><key>near</key><string>y</string></dict></plist>"#
        try far.write(toFile: t.suitePath, atomically: false, encoding: .utf8)
        let swiftView = try t.defaults()
        #expect(swiftView.object(forKey: "far") == nil && swiftView.string(forKey: "near") == "y")
        for (key, expected) in [("near", "y"), ("far", "absent")] {
            let read = try Self.participant(["read", "--root", t.path, "--key", key])
            #expect(read.readLine(timeout: .seconds(10)) == expected, "Python, \(key)")
            #expect(read.wait(timeout: .seconds(10)) == .exited(0))
        }
    }

    /// State and quarantine rules in both directions.
    @Test func stateAndQuarantineAgreeAcrossLanguages() throws {
        let t = try TestRoot()
        let center = try DarwinNotificationCenter(deviceRoot: t.root)
        let set = try Self.participant(["set-state", "--root", t.path, "--name", "s", "--state", "18446744073709551615"])
        #expect(set.readLine(timeout: .seconds(10)) == "done")
        #expect(try center.state("s") == UInt64.max)
        #expect(try center.generation("s") == 0)  // a setState does not post
        try center.post("q")
        try Data("v1 007 3\n".utf8).write(to: URL(fileURLWithPath: t.path + "/notify/q"))  // not canonical: corrupt
        let post = try Self.participant(["post", "--root", t.path, "--name", "q"])
        #expect(post.readLine(timeout: .seconds(10)) == "done 2")  // never 1 again
        #expect(t.root.quarantineRecords().count == 1)
        let state = try Self.participant(["state", "--root", t.path, "--name", "q"])
        #expect(state.readLine(timeout: .seconds(10)) == "2 0")
        // A Swift center that knows "k" (it posted it), then Python's set-state: the state epoch
        // it raised makes the next Swift post read the record and keep that state (PROTOCOL.md §4.2).
        try center.post("k")
        let setK = try Self.participant(["set-state", "--root", t.path, "--name", "k", "--state", "5"])
        #expect(setK.readLine(timeout: .seconds(10)) == "done")
        try center.post("k")
        #expect(try center.state("k") == 5)
        #expect(try center.generation("k") == 4)
    }
}
