import Foundation
@testable import HarnessKit
import Testing

/// What `harness run` prints of a violation's proven causes, for each thing the reruns can say —
/// and why.json, read back as written.
@Suite(.timeLimit(.minutes(1))) struct ProvenCausesTests {
    func causes(_ edit: (inout ProvenCauses) -> Void) -> [String] {
        var p = ProvenCauses(violation: 2, invariant: "inv", subject: "session s-1", limit: "--why-budget 10s a run")
        edit(&p)
        return p.runLines(runDirectory: "runs/r", executable: "harness")
    }

    @Test func eachOutcomeOfTheRerunsReadsAsWhatItProves() {
        let kill = ProvenCauses.Cause(step: "at +0:10:00 nemesis kill host-app for 5000 ms", interrupted: "host-app's last line before it: x at +0:09:59", line: 40)
        let late = ProvenCauses.Cause(step: "at +0:20:00 user {\"kind\":\"openHost\"}", line: 90, afterEvidence: true)
        let one = causes { $0.proven = [kill]; $0.untried = ["a", "b"] }
        #expect(one == [
            "  proven cause (a rerun without it holds, every other step kept):",
            "    at +0:10:00 nemesis kill host-app for 5000 ms — host-app's last line before it: x at +0:09:59",
            "  candidates not proven (--why-budget 10s a run ran out): 2 — harness why runs/r --violation 2",
        ])
        #expect(causes { $0.proven = [kill, late] }[2].hasSuffix("(after the last line the checker cites)"))
        let pair = causes { $0.together = [[kill, late]]; $0.notNeeded = 3; $0.pairsComplete = true }
        #expect(pair.first == "  proven causes, needed together (a rerun without both holds, without either one it still fails):")
        #expect(pair.count == 2 && pair[1].contains("\n      and at +0:20:00"))
        #expect(causes { $0.notNeeded = 4; $0.pairsComplete = true } == ["  proven causes: none — no step left out makes it go away (it may come from the seed alone)"])
        #expect(causes { $0.notNeeded = 4 }.first?.hasPrefix("  proven causes: none alone — 4 step(s) not needed; not every pair") == true)
        #expect(causes { $0.notNeeded = 1; $0.untried = ["a"]; $0.disagreed = ["b"] }.first
            == "  proven causes: none yet — 1 step(s) not needed, 2 candidate(s) not proven within --why-budget 10s a run: harness why runs/r --violation 2")
        #expect(causes { $0.unprovable = "a clock.mode: fixed run does not rerun exactly" } == ["  causes not proven: a clock.mode: fixed run does not rerun exactly"])
        #expect(causes { $0.elsewhere = "runs/first" }.first?.contains("explained in runs/first; for this one: harness why runs/r --violation 2") == true)
    }

    @Test func whyJSONReadsBackAsWritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("proven-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var p = ProvenCauses(violation: 1, invariant: "inv", subject: nil, limit: "--max-runs 40")
        p.proven = [.init(step: "failpoint host-app:x#1=kill", interrupted: "host-app's last line before it: y", line: 7)]
        p.runs = 5
        let record = WhyRecord(explained: [p])
        try record.write(runDirectory: dir)
        let back = try JSONDecoder().decode(WhyRecord.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/why.json")))
        #expect(back == record)
    }
}
