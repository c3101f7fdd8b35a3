import HarnessKit
import Testing

/// `harness merge` of run shards: the unsharded run's cases, each exactly once.
@Suite(.timeLimit(.minutes(1))) struct RunMergeTests {
    static func run(_ seed: UInt64, shard k: Int? = nil, of n: Int = 3, plan: String = "p", total: Int = 3, dir: String? = nil) -> RunMerge.Run {
        var r = RunMerge.Run(directory: dir ?? "/r/\(seed)", scenario: "s", variant: "hardened", seed: seed, report: nil, wallSeconds: 0, faults: 0)
        if let k { (r.shard, r.planIndex, r.planRuns, r.plan) = ("\(k)/\(n)", Int(seed) - 1, total, plan) }
        return r
    }

    static func failure(_ runs: [RunMerge.Run]) -> String? {
        do {
            try RunMerge.checkComplete(runs)
            return nil
        } catch { return error.description }
    }

    @Test func everyShardOnceIsComplete() {
        #expect(Self.failure([Self.run(1, shard: 1), Self.run(2, shard: 2), Self.run(3, shard: 3)]) == nil)
        #expect(Self.failure([Self.run(1), Self.run(2)]) == nil, "runs of no sharded suite: only repeats are checked")
    }

    @Test func aMissingShardIsNamed() {
        #expect(Self.failure([Self.run(1, shard: 1), Self.run(3, shard: 3)])?.contains("1 of the suite's 3 runs are missing: shard 2/3") == true)
    }

    @Test func aShardGivenTwiceIsRefused() {
        let twice = Self.failure([Self.run(1, shard: 1), Self.run(1, shard: 1, dir: "/copy/1"), Self.run(2, shard: 2), Self.run(3, shard: 3)])
        #expect(twice?.contains("s hardened seed 1 is here twice (/r/1 and /copy/1)") == true)
    }

    @Test func runsOfAnotherPlanAreRefused() {
        let mixed = Self.failure([Self.run(1, shard: 1), Self.run(2, shard: 2, plan: "other"), Self.run(3, shard: 3)])
        #expect(mixed?.contains("not a run of the same sharded suite") == true)
        #expect(Self.failure([Self.run(1, shard: 1), Self.run(2), Self.run(3, shard: 3)])?.contains("not a run of the same sharded suite") == true)
    }
}
