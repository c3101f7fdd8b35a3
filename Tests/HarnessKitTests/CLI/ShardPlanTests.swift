import Foundation
import Supervision
import Testing

/// A sharded run's plan includes each scenario's text: shards of two scenarios that share a name
/// (a file edited between two CI jobs) are refused by `merge`, never merged as one suite.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ShardPlanTests {
    @Test func shardsOfAnEditedScenarioDoNotMerge() throws {
        let s = try OutputTargetTests.Scratch()
        let one = "name: s\nsystem: rally\nclock: { rate: 600 }\nduration: 4m\nrally: { serves: 2, everySeconds: 60 }\n"
        try one.write(toFile: s.path + "/a.yaml", atomically: false, encoding: .utf8)
        try one.replacingOccurrences(of: "serves: 2", with: "serves: 3").write(toFile: s.path + "/b.yaml", atomically: false, encoding: .utf8)
        func shard(_ file: String, _ k: Int) throws -> String {
            let out = s.path + "/\(file)-\(k)"
            let done = try OutputTargetTests.harness(["run", s.path + "/\(file).yaml", "--variant", "hardened", "--seeds", "1-2", "--shard", "\(k)/2", "--out", out])
            #expect(done.status == .exited(0), "\(done.stderr)")
            return out
        }
        let a1 = try shard("a", 1), a2 = try shard("a", 2), b2 = try shard("b", 2)
        let same = try OutputTargetTests.harness(["merge", a1, a2])
        #expect(same.status == .exited(0), "\(same.stderr)")
        let mixed = try OutputTargetTests.harness(["merge", a1, b2])
        #expect(mixed.status == .exited(2))
        #expect(mixed.lastErrorLine.contains("is not a run of the same sharded suite"), "\(mixed.stderr)")
    }
}
