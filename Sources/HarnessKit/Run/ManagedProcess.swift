import Foundation
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// A long-lived stand-in the harness keeps alive (host app, settlement server): its current
/// child, whether the nemesis holds it down or stopped, and when it comes back.
final class ManagedProcess {
    let name: String
    var child: ChildProcess?
    /// CLOCK_MONOTONIC ns at which to (re)start it; nil = not scheduled.
    var restartAtNanos: Int64?
    /// When SIGSTOPped: the time to SIGCONT.
    var resumeAtNanos: Int64?
    /// Restarts after exits the nemesis did not cause (crashes): bounded.
    var unexpectedExits = 0
    static let maxUnexpectedExits = 50
    /// True while the harness expects it to be gone (nemesis kill/term, final shutdown).
    var expectedExit = false

    init(name: String) { self.name = name }

    var isRunning: Bool { child != nil }
    var isStopped: Bool { resumeAtNanos != nil }
}
