import Exit
@testable import ExitPack
import Foundation
import HarnessKit
import History
import Supervision
import Testing

/// The pack as the harness uses it: its scenario keys, its plan, and the bundled scenarios as real
/// processes (the seed's own Swift in the as-written extensions).
@Suite(.timeLimit(.minutes(5))) struct ExitPackTests {
    static let catalog = SystemCatalog([AnySystemPack(ExitPack())])

    static func run(_ file: String, variant: ScenarioVariant, seed: UInt64) throws -> ScenarioRunner.Outcome {
        let scenario = try Scenario.load(path: "Sources/Systems/Exit/scenarios/\(file)", systems: catalog)
        let out = NSTemporaryDirectory() + "sth-exit-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        return ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: file, variant: variant, seed: seed, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in })).run()
    }

    @Test func thePlanIsTheSeedsAndEveryEpisodeFitsTheWorkload() throws {
        let c = ExitConfiguration(
            monitoredApps: ["a", "b"], everyMinutes: 5...15, breathingSeconds: 30...60, abandonProbability: 0.2,
            forceQuitMidBreathingProbability: 0.5, forceQuitAfterProbability: 0.2)
        var g1 = SeededGenerator(seed: 7, stream: 1)
        var g2 = SeededGenerator(seed: 7, stream: 1)
        let p1 = ExitPlanner.plan(c, deviceMillis: 3_600_000, generator: &g1)
        let p2 = ExitPlanner.plan(c, deviceMillis: 3_600_000, generator: &g2)
        #expect(p1 == p2)
        #expect(p1.summary.episodes >= 3)
        #expect(p1.actions.allSatisfy { $0.atDeviceOffsetSeconds <= 3_600 })
        #expect(p1.actions.first?.action.kind == .selectApps)
        // Every completed exercise is followed by a use of the app inside the 60 s window.
        for (i, a) in p1.actions.enumerated() where a.action.kind == .breathingDone {
            let use = try #require(p1.actions[(i + 1)...].first { $0.action.kind == .openUnlockedApp })
            #expect(use.atDeviceOffsetSeconds - a.atDeviceOffsetSeconds < ExitKeys.unlockWindowSeconds - ExitPlanner.unlockedUseSeconds)
        }
        #expect(p1.actions.contains { $0.action.kind == .forceQuitHost })
    }

    @Test func badScenarioKeysAreOneLineErrors() throws {
        let yaml = """
            name: x
            system: exit
            duration: 1h
            exit: { monitoredApps: [a], everyMinutes: [1, 2] }
            """
        let path = NSTemporaryDirectory() + "exit-bad-\(getpid()).yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ScenarioError.self) { try Scenario.load(path: path, systems: Self.catalog) }
        do { _ = try Scenario.load(path: path, systems: Self.catalog) } catch { #expect("\(error)".contains("everyMinutes")) }
    }

    @Test func theBundledScenarioHoldsHardenedAndCatchesAsWritten() throws {
        let hardened = try Self.run("exit.yaml", variant: .hardened, seed: 1)
        #expect(hardened.exitCode == 0, "\(hardened.setupError ?? hardened.report?.humanSummary() ?? "")")
        #expect(hardened.killsAndStops > 0, "the nemesis was on")
        for rule in ["key-registry", "tap-served", "unlock-in-window", "unlock-grants-access", "count-matches-day"] {
            #expect((hardened.report?.result(rule)?.checkedCount ?? 0) > 0, "\(rule) judged something")
        }
        let asWritten = try Self.run("exit.yaml", variant: .asWritten, seed: 1)
        #expect(asWritten.exitCode == 1)
        let broken = Set(asWritten.report?.violations.map(\.invariant) ?? [])
        // The seed's own code: the monitor and the host write outside the registry, the shield
        // only says "Access Granted", a force quit loses the exercise, the heartbeat misfires.
        #expect(broken.isSuperset(of: ["key-registry", "unlock-grants-access", "heartbeat-no-false-alarm"]), "\(broken)")
        let registry = asWritten.report?.violations.filter { $0.invariant == "key-registry" }.compactMap(\.subject?.id) ?? []
        #expect(registry.contains("last_activity_start by monitor-extension"), "the seed's monitor writes are traced: \(registry)")
    }

    @Test func midnightWithDSTAndAMoveWestHoldsHardened() throws {
        let hardened = try Self.run("exit-midnight.yaml", variant: .hardened, seed: 1)
        #expect(hardened.exitCode == 0, "\(hardened.setupError ?? hardened.report?.humanSummary() ?? "")")
        #expect((hardened.report?.result("daily-reset-once-per-day")?.checkedCount ?? 0) > 0)
        let asWritten = try Self.run("exit-midnight.yaml", variant: .asWritten, seed: 1)
        #expect(asWritten.report?.violations.contains { $0.invariant == "daily-reset-once-per-day" } == true)
    }
}
