import AppGroup
import Foundation
import HarnessKit
import History
import Seed003
import Supervision
import Testing
import Until
@testable import UntilPack

/// The pack as a whole: its plan, the door into the seed's own Swift, and the bundled scenarios as
/// real processes — the guide's Testing steps hold in both variants, the user who leaves the host
/// alone for days shows the as-written single slot losing reports and hardened keeping them.
@Suite(.timeLimit(.minutes(5))) struct UntilPackTests {
    static let catalog = SystemCatalog([AnySystemPack(UntilPack())])

    @Test func thePlanSetsUpFirstAndEndsWithTheHostOpen() throws {
        let c = UntilPack.Configuration(
            apps: ["com.a", "com.b"], opensPerDay: 1...4, useSeconds: 2...120, hostVisitsPerDay: 0...2, visitSeconds: 20...300,
            forceQuitProbability: 0.3, fromHostProbability: 0.5)
        var generator = SeededGenerator(seed: 3, stream: 1)
        let plan = UntilPack().plan(c, seed: 3, deviceMillis: 3 * 86_400_000, generator: &generator)
        let kinds = plan.actions.map(\.action.kind)
        #expect(Array(kinds.prefix(4)) == [.createReminder, .selectApps, .saveReminder, .leaveHost])
        #expect(kinds.last == .openHost)
        #expect(plan.actions.last?.atDeviceOffsetSeconds == Double(3 * 86_400 - UntilPack.finalVisitSeconds))
        #expect(kinds.filter { $0 == .openApp }.count >= 3, "at least one opening a day over three days")
        #expect(plan.actions.map(\.atDeviceOffsetSeconds) == plan.actions.map(\.atDeviceOffsetSeconds).sorted())
        var again = SeededGenerator(seed: 3, stream: 1)
        #expect(UntilPack().plan(c, seed: 3, deviceMillis: 3 * 86_400_000, generator: &again) == plan)
    }

    @Test func theSeedsOwnModuleRejectsAnEmptySelection() {
        // Seed lines 189-192, run as written: no device is needed to reject.
        let module = UntilNativeModule()
        let settled = module.startMonitoring()
        #expect(settled.rejected?.code == "NO_APPS")
        #expect(settled.emitted.isEmpty)
    }

    static func run(
        _ file: String, variant: ScenarioVariant, seed: UInt64, failpoints: [String] = [],
        inspect: ([HistoryEvent]) throws -> Void = { _ in }
    ) throws -> ScenarioRunner.Outcome {
        let scenario = try Scenario.load(path: "Sources/Systems/Until/scenarios/\(file)", systems: catalog)
        let out = NSTemporaryDirectory() + "sth-until-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        var options = ScenarioRunner.Options(
            scenario: scenario, scenarioPath: file, variant: variant, seed: seed, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in })
        options.failpoints = try failpoints.map { try Failpoint.parse($0) }
        let outcome = ScenarioRunner(options: options).run()
        try inspect(HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: outcome.runDirectory + "/history.jsonl"))).events)
        return outcome
    }

    /// A tap the host dies in (EMULATED-IOS.md §7.7): killed inside "save reminder", before its
    /// startMonitoring, the host loses the tap with itself; the user taps again once iOS has
    /// relaunched it (`user_retry`), and monitoring starts — in both variants, since the repeat is
    /// the user's, not the app's. Killed in the repeat too, the tap is lost (`user_tap_lost`) and
    /// the checker lists it (`lostByOS`): monitoring never started, and no process could have started it.
    @Test func aTapTheHostDiesInIsTappedAgainOnceAndALostOneIsReported() throws {
        let point = "host-app:monitoring.start:untilMonitoring"
        for variant in [ScenarioVariant.asWritten, .hardened] {
            let outcome = try Self.run("until-testing.yaml", variant: variant, seed: 1, failpoints: [point + "#1=kill"]) { events in
                let killed = try #require(events.firstIndex { $0.event == "failpoint" && $0["label"] == point + "#1" }, "\(variant)")
                let retry = try #require(events.firstIndex { $0.event == "user_retry" }, "\(variant): no user_retry")
                #expect(retry > killed)
                #expect(events[retry]["action"] == UntilActions.saveReminder && events[retry]["target"] == "host-app")
                #expect(events[retry]["how"] == "taken in, not finished")
                // The picked apps died with the module: the user goes through the screen again.
                #expect(events[retry]["taps"] == [UntilActions.appTrigger, UntilActions.selectApps, UntilActions.saveReminder].joined(separator: ","))
                let again = try #require(events[retry]["retrySeq"]?.split(separator: ",").map(String.init))
                #expect(again.count == 3)
                for seq in again {
                    #expect(events[(retry + 1)...].contains { $0.event == "user_input_done" && $0["seq"] == seq }, "the relaunched host handled repeat \(seq)")
                }
                #expect(!events.contains { $0.event == "user_tap_lost" })
            }
            #expect(outcome.exitCode == 0, "\(variant): \(outcome.report?.humanSummary() ?? outcome.setupError ?? "")")
        }
        let lost = try Self.run("until-testing.yaml", variant: .hardened, seed: 1, failpoints: [point + "=2*kill"]) { events in
            #expect(events.filter { $0.event == "user_retry" }.count == 1, "the user taps again once")
            let line = try #require(events.first { $0.event == "user_tap_lost" })
            #expect(line["action"] == UntilActions.saveReminder && line["why"] == "the app died in the repeated tap too")
        }
        // Both times before anything came of the save: no process could have registered it — not
        // the app's to answer for, and listed beside the verdict, never passed in silence.
        #expect(lost.exitCode == 0, "\(lost.report?.humanSummary() ?? "")")
        #expect(lost.report?.result("monitoring-started")?.passed == true)
        #expect(lost.report?.lostByOS?.contains {
            $0.invariant == LostWork.tapLostWithTheApp && $0.explanation.contains("save_reminder tap") && $0.explanation.contains("the app died in the repeated tap too")
        } == true, "\(lost.report?.lostByOS?.map(\.explanation) ?? [])")
    }

    @Test func theGuidesTestingStepsHoldInBothVariants() throws {
        for variant in [ScenarioVariant.asWritten, .hardened] {
            let outcome = try Self.run("until-testing.yaml", variant: variant, seed: 1)
            #expect(outcome.exitCode == 0, "\(variant): \(outcome.setupError ?? outcome.report?.humanSummary() ?? "")")
            #expect((outcome.report?.result("reminder-within-bound")?.checkedCount ?? 0) >= 1, "\(variant): the opening was judged at once")
        }
    }

    @Test func aHostLeftAloneLosesReportsAsWrittenAndNotHardened() throws {
        let asWritten = try Self.run("until-away.yaml", variant: .asWritten, seed: 2)
        #expect(asWritten.exitCode == 1)
        #expect(Set(asWritten.report?.violations.map(\.invariant) ?? []) == ["every-report-reminds"])
        let hardened = try Self.run("until-away.yaml", variant: .hardened, seed: 2)
        #expect(hardened.exitCode == 0, "\(hardened.report?.humanSummary() ?? "")")
        #expect((hardened.report?.result("every-report-reminds")?.checkedCount ?? 0) >= 2)
    }
}
