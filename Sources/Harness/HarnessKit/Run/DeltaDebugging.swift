/// Zeller and Hildebrandt's ddmin ("Simplifying and Isolating Failure-Inducing Input", TSE 2002)
/// over the indices of a failing run's steps: the smallest subset it finds still fails, and
/// removing any single step of it makes the failure go away (1-minimal) unless the test budget ran
/// out first. Written here rather than taken from a library: no Swift package on the approved list
/// implements it, and the algorithm is a page; what it needs from us — a bound on the tests, a
/// cache, an "undecided" answer that counts as "passes" — is specific to runs.
package struct DeltaDebugging {
    /// At most this many calls of `fails` (each one is a whole run of the system).
    package var maximumTests: Int

    package init(maximumTests: Int) { self.maximumTests = max(1, maximumTests) }

    package struct Outcome: Equatable, Sendable {
        /// The smallest failing subset found (indices into the original steps, ascending).
        package var kept: [Int]
        /// Calls of `fails` made (cache hits not counted).
        package var tests: Int
        /// False when the budget ran out before `kept` was shown 1-minimal.
        package var minimal: Bool
    }

    /// `fails(subset)`: true when a run with exactly those steps still fails the same way; false
    /// when it passes or fails otherwise; nil when it could not be decided (treated as "does not
    /// fail": only a decided, same failure may replace the current subset).
    /// `groups` are tried first, each as one removal (e.g. every fault at once), since a failure
    /// caused by one kind of step sheds the other kinds in a single run.
    package func minimize(count: Int, groups: [[Int]] = [], fails: ([Int]) -> Bool?) -> Outcome {
        var tests = 0
        var cache: [[Int]: Bool] = [:]
        var exhausted = false
        func test(_ subset: [Int]) -> Bool {
            if let known = cache[subset] { return known }
            guard tests < maximumTests else {
                exhausted = true
                return false
            }
            tests += 1
            let result = fails(subset) == true
            cache[subset] = result
            return result
        }

        var current = Array(0..<count)
        // Nothing at all may already fail (the bug needs no step): the smallest answer there is.
        if test([]) { return Outcome(kept: [], tests: tests, minimal: true) }
        for group in groups where !group.isEmpty {
            let drop = Set(group)
            let without = current.filter { !drop.contains($0) }
            if without.count < current.count, test(without) { current = without }
        }

        var n = 2
        while current.count >= 2 && !exhausted {
            let chunks = Self.split(current, into: n)
            var reduced = false
            for chunk in chunks where test(chunk) {
                current = chunk
                n = 2
                reduced = true
                break
            }
            if !reduced {
                // Complements of two chunks are the chunks themselves: the cache answers those.
                for chunk in chunks {
                    let complement = current.filter { !chunk.contains($0) }
                    if test(complement) {
                        current = complement
                        n = max(n - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                if n >= current.count { break }
                n = min(current.count, 2 * n)
            }
        }
        // One step left: it is minimal if the empty run passed (tested first).
        return Outcome(kept: current, tests: tests, minimal: !exhausted)
    }

    /// `items` in `n` contiguous chunks of near-equal size (the first ones one longer).
    static func split(_ items: [Int], into n: Int) -> [[Int]] {
        let n = max(1, min(n, items.count))
        var out: [[Int]] = []
        var start = 0
        for i in 0..<n {
            let size = items.count / n + (i < items.count % n ? 1 : 0)
            out.append(Array(items[start..<(start + size)]))
            start += size
        }
        return out
    }
}
