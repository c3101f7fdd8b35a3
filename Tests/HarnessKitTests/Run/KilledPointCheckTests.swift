import Foundation
import HarnessKit
import Testing

/// `harness explore --check-killed`: a killed point run inside the harness and with processes is
/// the same run only when the verdicts agree and the normalized histories are the same line for line.
@Suite(.timeLimit(.minutes(1))) struct KilledPointCheckTests {
    static func run(_ dir: String, _ lines: [String]) throws -> String {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/history.jsonl", atomically: true, encoding: .utf8)
        return dir
    }

    static func finding(_ dir: String, _ verdict: CrashPointExplorer.Verdict = .held, _ detail: [String] = []) -> CrashPointExplorer.Finding {
        CrashPointExplorer.Finding(crashPoint: "host-app:x#1", verdict: verdict, detail: detail, runDirectory: dir, wallSeconds: 0, rerunCommand: "")
    }

    @Test func theSameRunBothWaysAgreesAndAnyDifferenceIsNamed() throws {
        let root = NSTemporaryDirectory() + "sth-killed-check-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        func line(_ mono: Int, _ event: String, _ extra: String = "") -> String {
            #"{"mono":\#(mono),"t":1771315200.0,"process":"harness","pid":\#(mono),"event":"\#(event)"\#(extra)}"#
        }
        // The run_started lines differ (the command, the mode): not a difference of the run.
        let inside = try Self.run(root + "/inside", [line(1, "run_started", #","command":"a""#), line(2, "spawn", #","target":"host-app""#), line(3, "run_finished")])
        let processes = try Self.run(root + "/processes", [line(1, "run_started", #","command":"b""#), line(5, "spawn", #","target":"host-app""#), line(9, "run_finished")])
        #expect(CrashPointExplorer.sameKilledRun(inside: Self.finding(inside), processes: Self.finding(processes)) == nil)
        let other = try Self.run(root + "/other", [line(1, "run_started"), line(2, "spawn", #","target":"server""#), line(3, "run_finished")])
        #expect(CrashPointExplorer.sameKilledRun(inside: Self.finding(other), processes: Self.finding(processes))?.hasPrefix("history line 1 differs") == true)
        let verdict = CrashPointExplorer.sameKilledRun(inside: Self.finding(inside, .violated, ["a"]), processes: Self.finding(processes))
        #expect(verdict == "held with processes, violated (a) inside")
        #expect(CrashPointExplorer.sameKilledRun(inside: Self.finding(root + "/missing"), processes: Self.finding(processes))?.hasPrefix("a history could not be read (\(processes) against \(root)/missing)") == true)
    }

    /// A point's detail mixes the invariants it broke with notes; what it broke is the first
    /// (the suite's samples count a point "beyond the run" by it).
    @Test func aPointsInvariantsLeaveItsNotesOut() {
        let f = CrashPointExplorer.Finding(
            crashPoint: "p#1", verdict: .violated, detail: ["a", "b", "(only with --user-retry never; held with always)", "(the point was not reached)"],
            runDirectory: "", wallSeconds: 0, rerunCommand: "")
        #expect(f.invariants == ["a", "b"])
        let held = CrashPointExplorer.Finding(crashPoint: "p#1", verdict: .held, detail: ["(the same with --user-retry never)"], runDirectory: "", wallSeconds: 0, rerunCommand: "")
        #expect(held.invariants.isEmpty)
        // As a line: the invariants in parentheses, each note as it is ("held ((the same…))" before).
        #expect(f.detailText == "(a, b) (only with --user-retry never; held with always) (the point was not reached)")
        #expect(held.detailText == "(the same with --user-retry never)")
    }
}
