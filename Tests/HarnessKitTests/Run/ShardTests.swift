import HarnessKit
import Testing

/// `--shard K/N`: the shards are disjoint, their union is the whole list in order, and K comes
/// from the command line or from a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`.
@Suite(.timeLimit(.minutes(1))) struct ShardTests {
    @Test(arguments: [1, 2, 3, 4, 7, 20])
    func theShardsPartitionTheWork(count: Int) throws {
        let items = Array(0..<13)
        let parts = try (1...count).map { k in try Shard.parse("\(k)/\(count)", environment: [:]).part(of: items) }
        #expect(parts.flatMap { $0 }.sorted() == items)
        #expect(parts.map(\.count).reduce(0, +) == items.count, "disjoint")
        #expect(parts.allSatisfy { $0 == $0.sorted() }, "each keeps the unsharded order")
    }

    @Test func autoTakesTheJobCompletionIndex() throws {
        #expect(try Shard.parse("auto/4", environment: ["JOB_COMPLETION_INDEX": "0"]) == Shard(index: 1, count: 4))
        #expect(try Shard.parse("auto/4", environment: ["JOB_COMPLETION_INDEX": "3"]) == Shard(index: 4, count: 4))
    }

    @Test(arguments: [
        ("0/4", [:], "K is 0; it must be 1...4"),
        ("5/4", [:], "K is 5; it must be 1...4"),
        ("2", [:], "use K/N"),
        ("a/b", [:], "use K/N"),
        ("1/0", [:], "use K/N"),
        ("auto/4", [:], "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it), which is not set"),
        ("auto/4", ["JOB_COMPLETION_INDEX": "x"], "not a whole number"),
        ("auto/4", ["JOB_COMPLETION_INDEX": "4"], "K is 5; it must be 1...4"),
    ] as [(String, [String: String], String)])
    func aBadShardSaysWhy(text: String, env: [String: String], words: String) {
        do {
            _ = try Shard.parse(text, environment: env)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description.contains(words), "\(error.description)")
            #expect(error.description.hasPrefix("--shard \(text): "))
        }
    }
}
