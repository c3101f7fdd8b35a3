import Foundation
import HarnessKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How a stopped run reports itself (docs/CI.md "Exit codes"): 128 + the signal, named as a shell
/// would. (Requesting a stop is process-wide, so it is exercised by the process tests only.)
@Suite(.timeLimit(.minutes(1))) struct RunInterruptionTests {
    @Test func aStoppedRunExitsWith128PlusTheSignalAndNamesIt() {
        #expect(RunInterruption.exitCode(for: SIGINT) == 130)
        #expect(RunInterruption.exitCode(for: SIGTERM) == 143)
        #expect(RunInterruption.exitCode(for: SIGHUP) == 129)
        #expect(RunInterruption.name(of: SIGINT) == "SIGINT")
        #expect(RunInterruption.name(of: SIGTERM) == "SIGTERM")
        #expect(RunInterruption.name(of: 42) == "signal 42")
    }
}
