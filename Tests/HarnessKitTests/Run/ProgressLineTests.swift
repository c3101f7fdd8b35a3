import Foundation
import HarnessKit
import Testing

@Suite(.timeLimit(.minutes(1))) struct ProgressLineTests {
    /// Runs done of total, device time and faults summed over finished runs and the current one,
    /// violations counted per run, the run in progress named.
    @Test func sumsFinishedRunsAndTheCurrentOne() {
        var p = ProgressLine(total: 4, startWall: 1000)
        p.started("demo as-written seed 1")
        p.update(RunProgress(deviceSeconds: 3600, deviceTotalSeconds: 3600, faults: 7))
        p.finished(faults: 7, violated: true)
        p.started("demo as-written seed 2")
        p.update(RunProgress(deviceSeconds: 1800, deviceTotalSeconds: 3600, faults: 2))
        #expect(p.fraction == 0.375)
        #expect(p.text(now: 1030) == "[2/4] 37% · device 1:30:00 · 9 faults · 1 violation · ETA 0:50 · demo as-written seed 2")
    }

    /// The ETA is the wall time per unit of progress so far times what is left; none before there
    /// is a rate to go by.
    @Test func etaFromTheRateSoFar() {
        var p = ProgressLine(total: 2, startWall: 0)
        #expect(p.etaSeconds(now: 10) == nil)
        p.started("x")
        p.update(RunProgress(deviceSeconds: 50, deviceTotalSeconds: 100, faults: 0))
        #expect(p.etaSeconds(now: 10) == 30)
        p.finished(faults: 0, violated: false)
        #expect(p.etaSeconds(now: 20) == 20)
        #expect(p.text(now: 20).hasPrefix("[1/2] 50% · device 0:50 · 0 faults · 0 violations · ETA 0:20"))
    }

    /// A terminal line is redrawn in place and never wraps (a wrapped line cannot be redrawn).
    @Test func redrawCutsToTheTerminalWidth() {
        let long = String(repeating: "x", count: 200)
        let r = ProgressLine.redraw(long, columns: 80)
        #expect(r.hasPrefix("\r"))
        #expect(r.hasSuffix("\u{1B}[K"))
        #expect(r.dropFirst().dropLast(3).count == 79)
        #expect(ProgressLine.redraw("short", columns: 80) == "\rshort\u{1B}[K")
    }

    @Test func clockText() {
        #expect(ProgressLine.clock(59) == "0:59")
        #expect(ProgressLine.clock(3725) == "1:02:05")
    }
}
