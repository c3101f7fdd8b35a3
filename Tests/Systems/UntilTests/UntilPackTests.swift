import AppGroup
import Foundation
import HarnessKit
import History
import Seed003
import Supervision
import Testing
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

    static func run(_ file: String, variant: ScenarioVariant, seed: UInt64) throws -> ScenarioRunner.Outcome {
        let scenario = try Scenario.load(path: "Sources/Systems/Until/scenarios/\(file)", systems: catalog)
        let out = NSTemporaryDirectory() + "sth-until-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        return ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: file, variant: variant, seed: seed, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in })).run()
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
