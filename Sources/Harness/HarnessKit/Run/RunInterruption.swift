import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM stop a run cleanly instead of losing it (docs/CI.md "Exit codes"): the first
/// one is only noted (a handler that stores the signal number, async-signal-safe); the runner sees
/// it within a tick, records `run_interrupted`, ends its children, merges the history and writes
/// `report.json` (undecided, `"interruption": "SIGINT"`); the suite runs no further case; `harness
/// run` prints its summary and exits 128 + the signal (130, 143). A second signal ends the harness
/// at once with the same code (its children die with it: PR_SET_PDEATHSIG).
package enum RunInterruption {
    static let caught = Atomic<Int32>(0)

    /// Installs the handlers (the CLI does; library users and tests keep the default actions).
    package static func install() {
        for sig in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = onStopSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(sig, &action, nil)
        }
    }

    /// The signal that asked the run to stop, or nil.
    package static var signal: Int32? {
        let s = caught.load(ordering: .relaxed)
        return s == 0 ? nil : s
    }

    /// Marks a stop request as if `signal` had arrived (tests, and the CLI's own deadline).
    package static func request(_ signal: Int32) { _ = caught.compareExchange(expected: 0, desired: signal, ordering: .relaxed) }

    package static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    /// The exit status of a run stopped by `signal` (the shell's convention, 128 + n).
    package static func exitCode(for signal: Int32) -> Int32 { 128 + signal }
}

private func onStopSignal(_ sig: Int32) {
    if !RunInterruption.caught.compareExchange(expected: 0, desired: sig, ordering: .relaxed).exchanged {
        _exit(RunInterruption.exitCode(for: sig))
    }
}

extension LiveRun {
    /// Checked once per turn of the main loop: a stop signal, or a device root that someone else
    /// changed. Records why (`run_interrupted` / `tamper`, HISTORY.md §8) and says stop.
    func stopRequested() -> Bool {
        if let signal = RunInterruption.signal {
            o.progress("\(RunInterruption.name(of: signal)): stopping the run (again to quit at once)")
            rec.record(.runInterrupted, ["signal": RunInterruption.name(of: signal)])
            return true
        }
        if let what = clock.tamper() {
            o.progress("device root tampered with: \(what); stopping the run (undecided)")
            rec.record(.tamper, ["file": "clock", "what": what])
            return true
        }
        if let found = deviceRootTamper() {
            o.progress("device root tampered with: \(found.what); stopping the run (undecided)")
            rec.record(.tamper, ["file": found.file, "what": found.what])
            return true
        }
        return false
    }
}
