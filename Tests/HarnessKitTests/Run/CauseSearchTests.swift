@testable import HarnessKit
import Testing

/// `harness why`'s search with a predicate for the system: a violation that needs one step, one
/// that needs two only together, and a budget that runs out.
@Suite(.timeLimit(.minutes(1))) struct CauseSearchTests {
    @Test func aSingleCauseIsProvenAndPairsAreNotTried() {
        var calls: [[Int]] = []
        let out = CauseSearch.run(candidates: [3, 1, 2], maximumRuns: 100) { left in
            calls.append(left)
            return !left.contains(1)
        }
        #expect(out.proven == [1])
        #expect(out.notNeeded == [3, 2])
        #expect(out.together.isEmpty && calls.allSatisfy { $0.count == 1 })
        #expect(out.runs == 3)
    }

    @Test func stepsNeededOnlyTogetherAreFoundAsAPair() {
        // The violation goes away only without both 4 and 7 (either one alone suffices for it).
        let out = CauseSearch.run(candidates: [4, 5, 7], maximumRuns: 100) { left in
            !(left.contains(4) && left.contains(7))
        }
        #expect(out.proven.isEmpty)
        #expect(out.together == [[4, 7]])
        #expect(out.pairsComplete)
        #expect(out.runs == 3 + 3)
    }

    @Test func theBudgetLeavesCandidatesUntriedNeverNotNeeded() {
        let out = CauseSearch.run(candidates: [1, 2, 3, 4], maximumRuns: 2) { _ in true }
        #expect(out.notNeeded == [1, 2])
        #expect(out.untried == [3, 4])
        #expect(!out.pairsComplete && out.together.isEmpty)
        var ticks = 0
        let timed = CauseSearch.run(candidates: [1, 2, 3], maximumRuns: 100, outOfTime: { ticks += 1; return ticks > 4 }) { _ in true }
        #expect(timed.notNeeded == [1, 2, 3])
        #expect(!timed.pairsComplete, "out of time before every pair")
        #expect(timed.runs == 4)
    }

    /// Reruns another violation of the run already made are read though the budget is spent, and
    /// cost nothing: a cause they prove is listed; only what no rerun answered is untried.
    @Test func rerunsAlreadyMadeAreReadPastTheBudget() {
        let made: Set<[Int]> = [[2], [3]]
        var fresh: [[Int]] = []
        let out = CauseSearch.run(candidates: [1, 2, 3, 4], maximumRuns: 1, known: { made.contains($0) }) { left in
            if !made.contains(left) { fresh.append(left) }
            return left != [3]
        }
        #expect(fresh == [[1]], "one new rerun, the budget's")
        #expect(out.proven == [3] && out.notNeeded == [1, 2] && out.untried == [4])
        #expect(out.runs == 1 && out.read == 3)
    }

    @Test func anUndecidedRerunIsNeitherProvenNorNotNeeded() {
        let out = CauseSearch.run(candidates: [1, 2], maximumRuns: 100) { left in left == [2] ? nil : true }
        #expect(out.undecided == [2] && out.notNeeded == [1] && out.proven.isEmpty)
    }
}
