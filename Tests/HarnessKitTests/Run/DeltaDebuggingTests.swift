import HarnessKit
import Testing

/// ddmin over step indices, with a failure predicate standing in for a run.
@Suite(.timeLimit(.minutes(1))) struct DeltaDebuggingTests {
    /// Fails when every step of `cause` is present (a bug that needs all of them).
    static func needs(_ cause: Set<Int>) -> ([Int]) -> Bool? { { cause.isSubset(of: Set($0)) } }

    @Test func findsTheTwoStepsOfAHundredThatFailAndNothingElse() {
        var calls = 0
        let r = DeltaDebugging(maximumTests: 500).minimize(count: 100) { kept in
            calls += 1
            return Self.needs([17, 83])(kept)
        }
        #expect(r.kept == [17, 83])
        #expect(r.minimal)
        #expect(r.tests == calls, "every call counted, cached subsets not run again")
        #expect(r.tests < 60, "ddmin on 2 of 100 takes O(k log n) runs, took \(r.tests)")
    }

    @Test func theResultIsOneMinimalForAnInteractingCause() {
        // Fails when step 3 is present with either 10 or 20: {3, 10} or {3, 20} are both 1-minimal.
        let r = DeltaDebugging(maximumTests: 500).minimize(count: 30) { kept in
            let s = Set(kept)
            return s.contains(3) && (s.contains(10) || s.contains(20))
        }
        #expect(r.kept == [3, 10] || r.kept == [3, 20])
        for drop in r.kept {
            let s = Set(r.kept.filter { $0 != drop })
            #expect(!(s.contains(3) && (s.contains(10) || s.contains(20))), "dropping \(drop) must make it pass")
        }
    }

    @Test func aFailureThatNeedsNoStepShrinksToNothingInOneRun() {
        let r = DeltaDebugging(maximumTests: 10).minimize(count: 50) { _ in true }
        #expect(r.kept.isEmpty && r.tests == 1 && r.minimal)
    }

    @Test func undecidedRunsNeverReplaceTheCurrentSubset() {
        // Every subset smaller than the whole is undecided (nil): nothing may be dropped.
        let r = DeltaDebugging(maximumTests: 500).minimize(count: 8) { $0.count == 8 ? true : nil }
        #expect(r.kept == Array(0..<8))
    }

    @Test func theBudgetBoundsTheRunsAndSaysTheResultIsNotShownMinimal() {
        let r = DeltaDebugging(maximumTests: 5).minimize(count: 1000, fails: Self.needs([1, 500, 999]))
        #expect(r.tests <= 5)
        #expect(!r.minimal)
        #expect(Set([1, 500, 999]).isSubset(of: Set(r.kept)), "whatever is kept still fails")
    }

    @Test func groupsDropAWholeKindInOneRun() {
        // A run's shape: 12 actions, then 200 nemesis faults; the failure needs actions 3 and 9
        // only, so dropping every fault at once leaves ddmin 12 steps instead of 212.
        let plain = DeltaDebugging(maximumTests: 500).minimize(count: 212, fails: Self.needs([3, 9]))
        let grouped = DeltaDebugging(maximumTests: 500).minimize(
            count: 212, groups: [Array(0..<12), Array(12..<212)], fails: Self.needs([3, 9]))
        #expect(plain.kept == [3, 9] && grouped.kept == [3, 9])
        #expect(grouped.tests < plain.tests, "grouped \(grouped.tests) runs, plain \(plain.tests)")
    }
}
