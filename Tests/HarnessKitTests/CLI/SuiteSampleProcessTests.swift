import Foundation
import Supervision
import Testing

@testable import HarnessKit

/// harness/suite.yaml's crash-point samples (`explore: each-label-once`): after the suite's runs,
/// each scenario x variant x seed explored at each label's first pass — the real harness, real
/// processes — its table, its points in the JUnit, and the gate deciding the exit code.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SuiteSampleProcessTests {
    /// Until's testing scenario: as-written's run without a kill holds, and a kill at two of its
    /// eight labels loses a reminder.
    static func suite(in dir: String, gate: String) throws -> String {
        let path = dir + "/suite.yaml"
        try """
            runs:
              - scenarios: \(FileManager.default.currentDirectoryPath)/Sources/Systems/Until/scenarios/until-testing.yaml
                variants: [as-written]
                explore: each-label-once
                budget: 2m
            gate: [\(gate)]
            """.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test func aSampleExploresEachLabelOnceListsWhatViolatedAndTheGateDecides() throws {
        let dir = NSTemporaryDirectory() + "sth-samples-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let findings = try OutputTargetTests.harness([
            "run", "--suite", try Self.suite(in: dir, gate: "hardened"), "--why-budget", "0", "--out", dir + "/runs", "--junit", dir + "/j.xml",
        ])
        // Not gated: findings, exit 0.
        #expect(findings.status == .exited(0), "\(findings.stderr)")
        let lines = findings.stdout.split(separator: "\n").map(String.init)
        let row = try #require(lines.first { $0.hasPrefix("until-testing ") }, "\(findings.stdout)")
        let cells = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // sample variant seed labels explored held violated beyond not-reached undecided budget-left wall
        #expect(cells[1] == "as-written" && cells[3] == cells[4], "\(row)")
        let explored = try #require(Int(cells[4]))
        let violated = try #require(Int(cells[6]))
        #expect(explored > 0 && violated > 0 && cells[8] == "0" && cells[9] == "0" && cells[10] == "-", "\(row)")
        // Each violating point listed with its rerun line, which arms that point.
        let listed = lines.filter { $0.hasPrefix("   ── ") && $0.contains(": violated — ") }
        #expect(listed.count == violated, "\(findings.stdout)")
        for point in listed {
            let name = String(point.dropFirst("   ── ".count)).components(separatedBy: ": violated")[0]
            #expect(lines.contains { $0.contains("rerun: ") && $0.contains("--failpoint '\(name)=kill'") }, "\(name)")
        }
        #expect(findings.stdout.contains("1 crash-point sample(s) of the other variants have violations"))
        // Every explored point is a testcase; the violated ones failures.
        let junit = try String(contentsOfFile: dir + "/j.xml", encoding: .utf8)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == explored)
        #expect(junit.components(separatedBy: "<failure ").count - 1 == violated)
        // The sample's record: `harness explore --resume` goes on from it.
        let records = try FileManager.default.contentsOfDirectory(atPath: dir + "/runs").filter { $0.hasPrefix("explore-until-testing-as-written-seed1-") }
        #expect(records.count == 1 && FileManager.default.fileExists(atPath: "\(dir)/runs/\(records[0])/explore.json"))

        // Gated: the same violations fail the job.
        let gated = try OutputTargetTests.harness([
            "run", "--suite", try Self.suite(in: dir, gate: "as-written"), "--why-budget", "0", "--out", dir + "/gated", "--quiet",
        ])
        #expect(gated.status == .exited(1), "\(gated.stdout)\n\(gated.stderr)")

        // A shard leaves the samples out, and says so (harness merge joins runs, not samples).
        let shard = try OutputTargetTests.harness([
            "run", "--suite", try Self.suite(in: dir, gate: "as-written"), "--why-budget", "0", "--out", dir + "/shard", "--shard", "1/2",
        ])
        #expect(shard.status == .exited(0), "\(shard.stderr)")
        #expect(shard.stderr.contains("--shard: the suite's 1 crash-point sample(s) (explore:) are left out"), "\(shard.stderr)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/shard")) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    /// A budget stops handing out points; the points it did not reach are said.
    @Test func noPointStartsOnceTheBudgetIsSpent() {
        let spent = CrashPointExplorer.WorkQueue(order: [0, 1, 2], deadlineNanos: LiveRun.now() - 1)
        #expect(spent.next() == nil && spent.outOfTime)
        let ample = CrashPointExplorer.WorkQueue(order: [2, 0, 1], deadlineNanos: LiveRun.now() + 60_000_000_000)
        #expect(ample.next() == 2 && ample.next() == 0 && !ample.outOfTime)
        let none = CrashPointExplorer.WorkQueue(order: [0])
        #expect(none.next() == 0 && none.next() == nil && !none.outOfTime)
    }
}
