/// `harness why`'s search, pure: which steps a violation depends on, by reruns that leave steps
/// out (`stillFails(left out)`: true when the violation comes back the same way, false when it goes
/// away, nil when the rerun could not decide).
///
/// First each candidate alone, in the order given: one whose absence makes the violation go away
/// is a proven (but-for) cause. Then, when no single step is, pairs of the candidates whose rerun
/// said "still fails" — nearest first — for causes that are only needed together ("A and B
/// together": without both it holds, without either one it still fails). Every rerun counts
/// against the budget (runs, and an optional wall-time `deadline` the caller checks through
/// `outOfTime`); what the budget did not reach is listed, never called not needed.
package enum CauseSearch {
    package struct Outcome: Equatable {
        package var proven: [Int] = []
        /// Pairs needed together, each step of which alone is not needed.
        package var together: [[Int]] = []
        package var notNeeded: [Int] = []
        /// Candidates whose rerun was undecided.
        package var undecided: [Int] = []
        /// Candidates the budget did not reach.
        package var untried: [Int] = []
        /// Whether the pairs were all tried (false: the budget ran out first, or pairs were not
        /// looked for because a single cause was proven).
        package var pairsComplete = false
        package var runs = 0
        /// Reruns whose verdict was read: those made here and those `known` already.
        package var read = 0
    }

    /// At most this many candidates take part in the pairs (nearest first): 45 pairs.
    package static let maxPairCandidates = 10

    /// `known(left out)`: a rerun already made (for another violation of the run): read even when
    /// the budget is spent, and not counted against it.
    package static func run(
        candidates: [Int], maximumRuns: Int, outOfTime: () -> Bool = { false }, known: ([Int]) -> Bool = { _ in false }, stillFails: ([Int]) -> Bool?
    ) -> Outcome {
        var out = Outcome()
        func budgetLeft() -> Bool { out.runs < maximumRuns && !outOfTime() }
        for c in candidates {
            if known([c]) {
                out.read += 1
                switch stillFails([c]) {
                case false?: out.proven.append(c)
                case true?: out.notNeeded.append(c)
                case nil: out.undecided.append(c)
                }
                continue
            }
            guard budgetLeft() else {
                out.untried.append(c)
                continue
            }
            out.runs += 1
            out.read += 1
            switch stillFails([c]) {
            case false?: out.proven.append(c)
            case true?: out.notNeeded.append(c)
            case nil: out.undecided.append(c)
            }
        }
        guard out.proven.isEmpty, out.untried.isEmpty else { return out }
        let pool = Array(out.notNeeded.prefix(maxPairCandidates))
        var complete = true
        pairs: for i in pool.indices {
            for j in pool.indices where j > i {
                let pair = [pool[i], pool[j]]
                if !known(pair) {
                    guard budgetLeft() else {
                        complete = false
                        break pairs
                    }
                    out.runs += 1
                }
                out.read += 1
                if stillFails(pair) == false { out.together.append(pair) }
            }
        }
        out.pairsComplete = complete && out.notNeeded.count <= maxPairCandidates
        return out
    }
}
