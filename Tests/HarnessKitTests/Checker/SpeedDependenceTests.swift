import HarnessKit
import History
import Testing

/// At a fixed clock rate a promise judged within B device seconds gives the app B / rate of wall
/// time: under the machine's jitter, its violation is the machine's — reported apart, undecided.
@Suite(.timeLimit(.minutes(1))) struct SpeedDependenceTests {
    static func descriptor(bound: Double?) -> SystemDescriptor {
        var d = CheckerKitTests.pack.descriptor
        d.invariants = d.invariants.map { i in
            var i = i
            if i.name == PingPongPack.everyServeReturned.name { i.boundSeconds = bound }
            return i
        }
        return d
    }

    /// A run of the ping-pong system with ball 2 served and never returned, at `clock`.
    static func history(clockMode: String, rate: String, alsoOverran: Bool = false) -> [HistoryEvent] {
        var h = CheckerKitTests.run(extra: [CheckerKitTests.harness(4, "user_action", ["action": "serve", "ball": "2"])]
            + (alsoOverran ? [CheckerKitTests.harness(90, "run_overran", ["why": "an extension call never ended"])] : []))
        h[0].fields = ["clockMode": clockMode, "rate": rate]
        return h
    }

    @Test func aBoundUnderTheJitterAtTheRunsRateIsSpeedDependent() {
        let d = Self.descriptor(bound: 2)
        let b = SpeedDependence.bounds(d, rate: 600)
        #expect(b.map(\.invariant) == [PingPongPack.everyServeReturned.name])
        #expect(b.first?.text == "every-serve-returned's 2 s bound is 3.3 ms of wall")
        // 2 s at 10x is 200 ms of wall: the app's own.
        #expect(SpeedDependence.bounds(d, rate: 10).isEmpty)
        #expect(SpeedDependence.bounds(Self.descriptor(bound: nil), rate: 600).isEmpty)
        #expect(SpeedDependence.warning(scenario: "s", rate: 600, bounds: b).hasPrefix("warning: s runs at clock.mode: fixed, 600x: every-serve-returned's 2 s bound"))
    }

    @Test func itsOnlyViolationMakesTheRunUndecidedNotAFailure() {
        var report = CheckerKitTests.pack.check(Self.history(clockMode: "fixed", rate: "600.0"))
        #expect(report.violations.count == 1)
        SpeedDependence.apply(to: &report, descriptor: Self.descriptor(bound: 2), events: Self.history(clockMode: "fixed", rate: "600.0"))
        #expect(!report.decided && report.violations.isEmpty)
        #expect(report.speedDependent?.map(\.invariant) == [PingPongPack.everyServeReturned.name])
        #expect(report.undecidedReason?.contains("speed-dependent: at clock.mode: fixed, 600x, every-serve-returned's 2 s bound is 3.3 ms of wall") == true)
        #expect(report.humanSummary().contains("speed-dependent (not blamed on the system): every-serve-returned"))
    }

    @Test func otherViolationsStayTheAppsAndVirtualTimeIsNeverSpeedDependent() {
        let fixed = Self.history(clockMode: "fixed", rate: "600.0", alsoOverran: true)
        var report = CheckerKitTests.pack.check(fixed)
        SpeedDependence.apply(to: &report, descriptor: Self.descriptor(bound: 2), events: fixed)
        #expect(report.decided && report.violations.map(\.invariant) == [CoreRules.runSettles.name])
        #expect(report.speedDependent?.count == 1)
        #expect(report.humanSummary().contains("  open every-serve-returned (checked 2); every violation speed-dependent"))
        #expect(report.humanSummary().contains("  FAIL run-settles"))
        let virtual = Self.history(clockMode: "virtual", rate: "600.0")
        var v = CheckerKitTests.pack.check(virtual)
        SpeedDependence.apply(to: &v, descriptor: Self.descriptor(bound: 2), events: virtual)
        #expect(v.decided && v.violations.count == 1 && v.speedDependent == nil)
    }
}
