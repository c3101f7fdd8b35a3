@testable import HarnessKit
import Testing

/// The nemesis's schedule as the run consumes it: each planned fault comes out once, in plan
/// order, and only once it is due.
@Suite(.timeLimit(.minutes(1))) struct NemesisTests {
    func fault(at millis: Int, _ target: String) -> PlannedFault {
        PlannedFault(timeBase: .device, atOffsetMillis: millis, target: target, kind: .kill, holdMillis: 10)
    }

    @Test func plannedFaultsComeOutOnceInPlanOrderWhenDue() {
        var n = Nemesis(planned: [fault(at: 100, "a"), fault(at: 100, "b"), fault(at: 250, "c")])
        #expect(n.takeNext(ifDue: { $0.atOffsetMillis <= 99 }) == nil)
        #expect(n.takeNext(ifDue: { $0.atOffsetMillis <= 100 })?.target == "a")
        #expect(n.takeNext(ifDue: { $0.atOffsetMillis <= 100 })?.target == "b")
        #expect(n.takeNext(ifDue: { $0.atOffsetMillis <= 100 }) == nil, "c is not due at 100")
        #expect(n.pending.map(\.target) == ["c"])
        #expect(n.takeNext(ifDue: { $0.atOffsetMillis <= 1000 })?.target == "c")
        #expect(n.takeNext(ifDue: { _ in true }) == nil, "each fault once")
    }

    @Test func aFaultNotDueHoldsBackTheLaterOnes() {
        // The plan is in time order: the first fault not yet due is where the run waits.
        var n = Nemesis(planned: [fault(at: 300, "late"), fault(at: 100, "early")])
        #expect(n.takeNext(ifDue: { $0.atOffsetMillis <= 200 }) == nil)
        #expect(n.pending.count == 2)
    }
}
