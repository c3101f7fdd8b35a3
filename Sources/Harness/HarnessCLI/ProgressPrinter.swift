import Foundation
import HarnessKit

#if canImport(Glibc)
import Glibc
#endif

/// Prints `harness run`'s progress on stderr: on a terminal one live line (`ProgressLine`) redrawn
/// in place, with messages and each run's result line printed above it; elsewhere (CI logs) the
/// messages, the result lines and the same progress text as a plain line every
/// `ProgressLine.plainIntervalSeconds`; with `--quiet`, nothing (the table and the violations
/// still go to stdout).
final class ProgressPrinter: @unchecked Sendable {
    enum Mode { case live, plain, quiet }

    let mode: Mode
    private let lock = NSLock()
    private var line: ProgressLine
    private var lastDraw = 0.0
    private var shown = false

    init(total: Int, quiet: Bool) {
        mode = quiet ? .quiet : (isatty(STDERR_FILENO) == 1 ? .live : .plain)
        line = ProgressLine(total: total, startWall: Self.now())
    }

    static func now() -> Double { Date().timeIntervalSince1970 }

    static var columns: Int {
        var w = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0 { return Int(w.ws_col) }
        return 100
    }

    private func write(_ s: String) { FileHandle.standardError.write(Data(s.utf8)) }

    /// A message of the run (a note, a run starting, a result line).
    func message(_ text: String) {
        lock.withLock {
            switch mode {
            case .quiet: return
            case .plain: write(text + "\n")
            case .live:
                write(ProgressLine.clear + text + "\n")
                if shown { write(ProgressLine.redraw(line.text(now: Self.now()), columns: Self.columns)) }
            }
        }
    }

    func started(_ name: String) { lock.withLock { line.started(name) }; draw(force: true) }

    func tick(_ p: RunProgress) { lock.withLock { line.update(p) }; draw(force: false) }

    func finished(faults: Int, violated: Bool) { lock.withLock { line.finished(faults: faults, violated: violated) }; draw(force: true) }

    private func draw(force: Bool) {
        lock.withLock {
            let now = Self.now()
            switch mode {
            case .quiet: return
            case .live:
                guard force || now - lastDraw >= ProgressLine.ttyIntervalSeconds else { return }
                lastDraw = now
                shown = true
                write(ProgressLine.redraw(line.text(now: now), columns: Self.columns))
            case .plain:
                guard now - lastDraw >= ProgressLine.plainIntervalSeconds else { return }
                if lastDraw == 0 { lastDraw = now; return }  // the first line after the first interval
                lastDraw = now
                write("… progress: " + line.text(now: now) + "\n")
            }
        }
    }

    /// Takes the live line off the terminal before the summary is printed.
    func end() {
        lock.withLock {
            if mode == .live && shown { write(ProgressLine.clear) }
            shown = false
        }
    }
}
