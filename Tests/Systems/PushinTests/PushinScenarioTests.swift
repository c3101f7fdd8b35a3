import Foundation
import HarnessKit
import History
import Pushin
@testable import PushinPack
import Supervision
import Testing

/// The bundled scenarios as real processes (the stand-ins, the seed's own Swift in the as-written
/// shield extension, the emulated iOS): hardened holds, as-written shows the seed's findings.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PushinScenarioTests {
    static func run(_ name: String, variant: ScenarioVariant, seed: UInt64 = 1) throws -> (ScenarioRunner.Outcome, [HistoryEvent]) {
        let catalog = SystemCatalog([AnySystemPack(PushinPack())])
        let scenario = try Scenario.load(path: "Sources/Systems/Pushin/scenarios/\(name).yaml", systems: catalog)
        let out = NSTemporaryDirectory() + "sth-pushin-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let outcome = ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: "\(name).yaml", variant: variant, seed: seed, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in })).run()
        let text = (try? String(contentsOfFile: outcome.runDirectory + "/history.jsonl", encoding: .utf8)) ?? ""
        let history = text.split(separator: "\n").compactMap { try? JSONDecoder().decode(HistoryEvent.self, from: Data($0.utf8)) }
        return (outcome, history)
    }

    /// The run's history as `harness normalize` prints it (UUIDs numbered, wall stamps gone).
    static func normalized(_ name: String, variant: ScenarioVariant, seed: UInt64) throws -> [String] {
        let catalog = SystemCatalog([AnySystemPack(PushinPack())])
        let scenario = try Scenario.load(path: "Sources/Systems/Pushin/scenarios/\(name).yaml", systems: catalog)
        let out = NSTemporaryDirectory() + "sth-pushin-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let outcome = ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: "\(name).yaml", variant: variant, seed: seed, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in })).run()
        return try HistoryNormalizer.normalize(runDirectory: outcome.runDirectory)
    }

    static func summary(_ o: ScenarioRunner.Outcome) -> String { o.setupError ?? o.report?.humanSummary() ?? "no report" }

    /// testShieldActionTriggersNotification: every workout press brings its notification —
    /// hardened from the extension at once; as-written never, since iOS keeps the host suspended.
    @Test func aShieldPressTriggersTheNotificationOnlyWhenTheExtensionSchedulesIt() throws {
        let (hardened, h) = try Self.run("pushin-seed-shield-triggers-notification", variant: .hardened)
        #expect(hardened.exitCode == 0, "\(Self.summary(hardened))")
        #expect(hardened.report?.result("workout-press-prompted")?.checkedCount == 5)
        #expect(h.filter { $0.isHarnessLine("notification_delivered") }.count == 5)
        // The seed's own Swift ran in as-written: its four `set`s, in the seed's order, each a write.
        let (asWritten, a) = try Self.run("pushin-seed-shield-triggers-notification", variant: .asWritten)
        #expect(asWritten.exitCode == 1)
        #expect(asWritten.report?.violations(of: "workout-press-prompted").count == 5)
        let firstCall = a.filter { $0.process == "shield-action-extension" && $0.event == "defaults_set" }.prefix(4).map { $0["keys"] ?? "" }
        #expect(firstCall == [PushinKeys.shouldShowWorkout, PushinKeys.shieldActionTimestamp, PushinKeys.pendingNotificationId, PushinKeys.notificationExpiresAt])
        #expect(a.filter { $0.isHarnessLine("notification_delivered") }.isEmpty)
    }

    /// testNotificationTapOpensWorkoutScreen, cold and warm.
    @Test func aTapOnTheNotificationOpensTheWorkout() throws {
        let (o, h) = try Self.run("pushin-seed-tap-opens-workout", variant: .hardened)
        #expect(o.exitCode == 0, "\(Self.summary(o))")
        #expect((o.report?.result("tap-opens-workout")?.checkedCount ?? 0) >= 4)
        #expect(h.contains { $0.process == "host-app" && $0.event == "workout_screen_shown" && $0["source"] == "notification" })
        #expect(h.contains { $0.isHarnessLine("host_state") && $0["why"] == "force quit" }, "some taps find Pushin cold")
    }

    /// testEmergencyUnlockSkipsNotification: both variants spend the two unlocks, then none, and never notify.
    @Test func anEmergencyUnlockSkipsTheNotification() throws {
        for variant in [ScenarioVariant.asWritten, .hardened] {
            let (o, h) = try Self.run("pushin-seed-emergency-skips-notification", variant: variant)
            #expect(o.exitCode == 0, "\(variant): \(Self.summary(o))")
            #expect(o.report?.result("emergency-unlocks-counted")?.checkedCount == 5)
            #expect(h.filter { $0.process == "shield-action-extension" && $0.event == "emergency_unlock" }.map { $0["remaining"] } == ["1", "0"])
            #expect(!h.contains { $0.isHarnessLine("notification_delivered") })
        }
    }

    /// Virtual time replays a seed exactly, the random UUIDs of the seed's code included (the
    /// normalizer numbers them).
    @Test(arguments: [ScenarioVariant.asWritten, .hardened]) func twoRunsOfOneSeedGiveTheSameHistory(variant: ScenarioVariant) throws {
        let first = try Self.normalized("pushin", variant: variant, seed: 2)
        let again = try Self.normalized("pushin", variant: variant, seed: 2)
        let i = (0..<min(first.count, again.count)).first { first[$0] != again[$0] } ?? min(first.count, again.count)
        #expect(first.count > 100)
        #expect(again.count == first.count && i == first.count,
                "the runs differ at line \(i + 1): \(i < first.count ? first[i] : "(end)") / \(i < again.count ? again[i] : "(end)")")
    }

    @Test func theBundledNemesisScenarioHoldsHardened() throws {
        let (o, _) = try Self.run("pushin", variant: .hardened)
        #expect(o.exitCode == 0, "\(Self.summary(o))")
        #expect(o.killsAndStops > 0, "the nemesis was on")
        #expect((o.report?.result("workout-press-prompted")?.checkedCount ?? 0) > 5)
    }
}
