/// `--shard K/N`: this runner's part of a deterministic split of the work (CI runners, a
/// Kubernetes Indexed Job). Item i (0-based, in the order the unsharded run would do it) belongs to
/// shard `i % N + 1`, so the shards are disjoint and their union is exactly the unsharded work,
/// and every shard gets a spread of seeds and crash points rather than one end of the list.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based.
    package var index: Int
    package var count: Int

    package static let maxCount = 10_000
    /// Kubernetes Indexed Jobs set it, 0-based, in each pod (`--shard auto/N`).
    package static let jobCompletionIndexVariable = "JOB_COMPLETION_INDEX"

    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    package var description: String { "\(index)/\(count)" }

    package struct ParseError: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    /// `K/N` with 1 <= K <= N <= 10000, or `auto/N` with K = $JOB_COMPLETION_INDEX + 1.
    package static func parse(_ text: String, environment: [String: String]) throws(ParseError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let n = Int(parts[1]), n >= 1, n <= maxCount else {
            throw ParseError(description: "--shard \(text): use K/N with whole numbers, 1 <= K <= N <= \(maxCount) (e.g. 2/4), or auto/N")
        }
        let k: Int
        if parts[0] == "auto" {
            guard let raw = environment[jobCompletionIndexVariable] else {
                throw ParseError(description: "--shard \(text): auto takes K from $\(jobCompletionIndexVariable) (a Kubernetes Indexed Job sets it), which is not set")
            }
            guard let i = Int(raw), i >= 0 else {
                throw ParseError(description: "--shard \(text): $\(jobCompletionIndexVariable) is \(String(reflecting: raw)), not a whole number >= 0")
            }
            k = i + 1
        } else {
            guard let i = Int(parts[0]) else {
                throw ParseError(description: "--shard \(text): use K/N with whole numbers, 1 <= K <= N <= \(maxCount) (e.g. 2/4), or auto/N")
            }
            k = i
        }
        guard k >= 1, k <= n else { throw ParseError(description: "--shard \(text): K is \(k); it must be 1...\(n)") }
        return Shard(index: k, count: n)
    }

    /// Whether item `i` (0-based) is this shard's.
    package func owns(_ i: Int) -> Bool { i % count == index - 1 }

    /// This shard's items, in order.
    package func part<T>(of items: [T]) -> [T] { items.enumerated().filter { owns($0.offset) }.map(\.element) }

    /// What each run of a sharded suite records (`run_started`): its shard, its place in the whole
    /// plan, the plan's size and a digest of the plan (`names`: each case's scenario, variant and
    /// seed, in the unsharded order), so a merge can check every case is there exactly once.
    package func facts(index i: Int, names: [String]) -> [String: String] {
        ["shard": description, "planIndex": String(i), "planRuns": String(names.count), "plan": Self.digest(names)]
    }

    /// FNV-1a of the plan's names, hex: the same list gives the same digest in every shard.
    package static func digest(_ names: [String]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in names.joined(separator: "\n").utf8 {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }
}
