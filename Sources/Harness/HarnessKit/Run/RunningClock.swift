/// Wall time the harness itself was running. CLOCK_MONOTONIC keeps counting while the harness is
/// SIGSTOPped (a paused CI runner, a debugger) or simply not scheduled, so a bound measured with
/// it expired for that alone — and a bound whose expiry changes the run (a quiescence wait moving
/// device time on, an extension's watchdog kill) made the same seed on the same build give
/// another history. Each look counts at most `maxStepNanos` since the previous one; the rest is a
/// gap the harness did not run, and is not counted. The loops look far more often (every wait
/// is ≤ 50 ms), so a real stall is undercounted only beyond half a second: a bound can only
/// stretch by it, never expire sooner.
struct RunningClock {
    static let maxStepNanos: Int64 = 500_000_000
    private var last: Int64
    private(set) var nanos: Int64 = 0
    /// Wall time not counted: the harness was stopped or not scheduled.
    private(set) var gapNanos: Int64 = 0

    init(monotonicNanos: Int64) { last = monotonicNanos }

    /// The running time as of `monotonicNanos` (a CLOCK_MONOTONIC reading, never earlier than
    /// the last one given).
    mutating func look(monotonicNanos: Int64) -> Int64 {
        let step = max(0, monotonicNanos - last)
        last = max(last, monotonicNanos)
        if step > Self.maxStepNanos {
            gapNanos += step - Self.maxStepNanos
            nanos += Self.maxStepNanos
        } else {
            nanos += step
        }
        return nanos
    }
}
