import Foundation
@testable import HarnessKit
import Testing

/// Two runs of one scenario × variant × seed that one process starts within the same second (a
/// benchmark's short runs) were given one run directory: the second run's traces and history went
/// into the first's, whose checker then saw every settlement twice. Each run now claims its own.
@Suite(.timeLimit(.minutes(1))) struct RunDirectoryClaimTests {
    @Test func twoRunsInOneSecondGetTwoDirectories() throws {
        let parent = NSTemporaryDirectory() + "sth-claim-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let base = parent + "/focuspledge-hardened-seed1-1796604139-11727"
        let first = RunSetup.claimRunDirectory(base)
        let second = RunSetup.claimRunDirectory(base)
        let third = RunSetup.claimRunDirectory(base)
        #expect(first == base)
        #expect(second == base + "-2" && third == base + "-3")
        for d in [first, second, third] { #expect(FileManager.default.fileExists(atPath: d)) }
    }
}
