@testable import HarnessKit
import Testing

/// The running clock counts the harness's own wall time: a step longer than half a second
/// (the harness was stopped or not scheduled) counts half a second, the rest is a gap.
@Suite(.timeLimit(.minutes(1))) struct RunningClockTests {
    @Test func aStopIsAGapNotRunningTime() {
        var c = RunningClock(monotonicNanos: 1_000)
        #expect(c.look(monotonicNanos: 1_000 + 50_000_000) == 50_000_000)
        #expect(c.look(monotonicNanos: 1_000 + 50_000_000 + 8_000_000_000) == 550_000_000)
        #expect(c.gapNanos == 7_500_000_000)
        // A clock read out of order never counts backwards.
        #expect(c.look(monotonicNanos: 1_000) == 550_000_000)
        #expect(c.look(monotonicNanos: 1_000 + 8_100_000_000) == 600_000_000)
    }
}
