@testable import FocusPledgePack
import Foundation
import HarnessKit
import History
import Testing

@Suite("FocusPledgeChecker: whole runs", .timeLimit(.minutes(1)))
struct FocusPledgeCheckerTests {
    @Test func cleanHardenedRunPasses() {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanHardenedRun())
        #expect(report.decided)
        #expect(report.violations.isEmpty, "\(report.humanSummary())")
        #expect(report.passed)
        #expect(report.results.map(\.name) == FocusPledgePack().descriptor.invariants.map(\.name))
        #expect(report.results.allSatisfy { $0.passed })
        // Every rule actually looked at something it should have.
        #expect(report.checked(.violationSettlesFailure) == 1)
        #expect(report.checked(.cleanSessionSettlesSuccess) == 1)
        #expect(report.checked(.noDoubleSettlement) == 2)
        #expect(report.checked(.noShieldAfterSettlement) == 2)
        #expect(report.checked(.failureWhileHostDeadSettledAfterRelaunch) == 0)
        #expect(report.result(CoreRules.noStoreCorrupt.name)?.checkedCount == 1)
        #expect(report.result(CoreRules.runSettles.name)?.checkedCount == 1)
    }

    @Test func historyOrderDoesNotMatter() {
        let history = CheckerFixture.cleanHardenedRun()
        #expect(FocusPledgeChecker.check(history.reversed()) == FocusPledgeChecker.check(history))
    }

    @Test func missingRunFinishedIsUndecided() {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.startSession("s1", host: host)
        b.violation("s1")
        let report = FocusPledgeChecker.check(b.finish(runFinished: false))
        #expect(!report.decided)
        #expect(!report.passed)
        #expect(report.violations.isEmpty)
        #expect(report.undecidedReason?.contains("run_finished") == true)
        #expect(report.humanSummary().contains("could not decide"))
    }

    @Test func missingRunStartedIsUndecided() {
        var b = HistoryBuilder(runStarted: false)
        _ = b.spawnHost()
        let report = FocusPledgeChecker.check(b.finish())
        #expect(!report.decided)
        #expect(report.undecidedReason?.contains("run_started") == true)
    }

    @Test func reportRoundTripsThroughJSON() throws {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, _ in
            b.settle("s1", "SUCCESS")
            b.settle("s1", "FAILURE")
        })
        let data = try JSONEncoder().encode(report)
        #expect(try JSONDecoder().decode(CheckReport.self, from: data) == report)
        #expect(!report.violations.isEmpty)
    }

    @Test func humanSummaryNamesInvariantSessionAndHistoryLines() throws {
        let report = FocusPledgeChecker.check(CheckerFixture.cleanSession { b, host in b.hostSettles("s1", "FAILURE", host: host) })
        let violation = try #require(report.violations.first)
        #expect((3...CheckReport.maxRelevantEvents).contains(violation.relevantEvents.count))
        let summary = report.humanSummary()
        #expect(summary.contains("FAIL"))
        #expect(summary.contains("clean-session-settles-success — session s1"))
        let jsonLines = summary.split(separator: "\n").filter { $0.hasPrefix("    {") }
        #expect(jsonLines.count == violation.relevantEvents.count)
        for line in jsonLines {
            #expect(HistoryEvent.parse(jsonl: Data(line.dropFirst(4).utf8)).events.count == 1)
        }
    }
}
