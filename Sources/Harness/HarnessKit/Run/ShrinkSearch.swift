/// `harness shrink`'s search. ddmin (`DeltaDebugging`) only drops steps; a fault it cannot drop
/// may matter only because it held a process back while the user acted (a stopped extension
/// handles a shield press late, after the host was suspended). So, once ddmin is done, each
/// postponement (`ShrinkInput.postponements`: the fault gone, the actions inside its window moved
/// to its end) is tried as one run; the first that still fails the same way replaces the steps —
/// one fewer — and ddmin runs again on them. The result keeps ddmin's promise: dropping any one of
/// its steps makes the failure go away, unless the budget ran out (`minimal` false).
package enum ShrinkSearch {
    package struct Outcome {
        /// The steps `kept` indexes (the loaded input, or one with postponed actions).
        package var input: ShrinkInput
        package var kept: [Int]
        /// Calls of `fails` (each a run of the system; ddmin's cache hits not counted).
        package var tests: Int
        package var minimal: Bool
        /// Postponements that kept the failure (each removed a fault).
        package var postponed: Int
    }

    /// `fails(input, kept)`: as for `DeltaDebugging.minimize`, over `input`'s steps.
    package static func run(_ input: ShrinkInput, maximumTests: Int, fails: (ShrinkInput, [Int]) -> Bool?) -> Outcome {
        let first = DeltaDebugging(maximumTests: maximumTests).minimize(count: input.steps.count, groups: input.groups) { fails(input, $0) }
        var out = Outcome(input: input, kept: first.kept, tests: first.tests, minimal: first.minimal, postponed: 0)
        search: while out.tests < maximumTests {
            for c in out.input.postponements(of: out.kept) {
                guard out.tests < maximumTests else { break search }
                guard let candidate = out.input.postponing(c.actions, to: c.fault, keeping: out.kept) else { continue }
                out.tests += 1
                guard fails(candidate, Array(candidate.steps.indices)) == true else { continue }
                out.postponed += 1
                out.input = candidate
                out.kept = Array(candidate.steps.indices)
                guard out.tests < maximumTests else {
                    out.minimal = false
                    break search
                }
                let again = DeltaDebugging(maximumTests: maximumTests - out.tests).minimize(count: candidate.steps.count, groups: candidate.groups) {
                    fails(candidate, $0)
                }
                out.tests += again.tests
                out.kept = again.kept
                out.minimal = again.minimal
                continue search
            }
            break
        }
        return out
    }
}
