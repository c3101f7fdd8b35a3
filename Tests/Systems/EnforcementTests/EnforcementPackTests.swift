import Enforcement
@testable import EnforcementPack
import Foundation
import HarnessKit
import History
import Supervision
import Testing

/// The pack as the harness uses it: its scenario keys, its plan, and the bundled checklist as real
/// processes in both variants.
@Suite(.timeLimit(.minutes(5))) struct EnforcementPackTests {
    static let catalog = SystemCatalog([AnySystemPack(EnforcementPack())])

    static func run(_ file: String, variant: ScenarioVariant, seed: UInt64) throws -> ScenarioRunner.Outcome {
        let scenario = try Scenario.load(path: "Sources/Systems/Enforcement/scenarios/\(file)", systems: catalog)
        let out = NSTemporaryDirectory() + "sth-enforcement-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        return ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: file, variant: variant, seed: seed, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in })).run()
    }

    static let configuration = EnforcementConfiguration(
        apps: ["a", "b", "c"], pick: 1...2, modeHours: 3...6, secondModeProbability: 0.5, grantMinutes: [5, 15], everyMinutes: 10...40,
        overrunSeconds: 30...300, openBlockedProbability: 0.5, hostVisitProbability: 0.3, forceQuitProbability: 0.2, checklist: false)

    @Test func thePlanIsTheSeedsAndEveryGrantIsUsedPastItsEnd() throws {
        var g1 = SeededGenerator(seed: 7, stream: 1)
        var g2 = SeededGenerator(seed: 7, stream: 1)
        let p1 = EnforcementPlanner.plan(Self.configuration, deviceMillis: 6 * 3_600_000, generator: &g1)
        #expect(p1 == EnforcementPlanner.plan(Self.configuration, deviceMillis: 6 * 3_600_000, generator: &g2))
        #expect(p1.summary.grants >= 5)
        #expect(p1.actions.allSatisfy { $0.atDeviceOffsetSeconds <= 6 * 3_600 })
        for (i, a) in p1.actions.enumerated() where a.action.kind == .createGrant {
            let use = try #require(p1.actions[(i + 1)...].first { $0.action.kind == .openApp })
            #expect(use.action.app == a.action.app)
            let end = a.atDeviceOffsetSeconds + Double(a.action.minutes! * 60)
            #expect(use.atDeviceOffsetSeconds < end && use.atDeviceOffsetSeconds + use.action.seconds! > end, "in use across the grant's end")
        }
    }

    @Test func overridesAreDrawnOnlyWhenTheScenarioHasThemAndEachEndsWithTheHostAway() throws {
        var g0 = SeededGenerator(seed: 7, stream: 1)
        let without = EnforcementPlanner.plan(Self.configuration, deviceMillis: 6 * 3_600_000, generator: &g0)
        #expect(!without.actions.contains { $0.action.kind == .setOverride } && without.summary.overrides == nil)
        var c = Self.configuration
        c.overrides = .init(probability: 0.5, minutes: [10, 30], offProbability: 0.5, openAfterSeconds: 120...600)
        var g = SeededGenerator(seed: 7, stream: 1)
        let p = EnforcementPlanner.plan(c, deviceMillis: 6 * 3_600_000, generator: &g)
        let sets = p.actions.enumerated().filter { $0.element.action.kind == .setOverride }
        #expect(sets.count >= 2 && p.summary.overrides == sets.count && p.summary.grants + sets.count == p.summary.episodes)
        #expect(Set(sets.map { $0.element.action.on }) == [true, false], "on and off")
        for (i, a) in sets {
            let end = a.atDeviceOffsetSeconds + Double(a.action.minutes! * 60)
            let rest = p.actions[(i + 1)...]
            // The host is left at once and not opened again before the end; a mode's app is opened after it.
            #expect(rest.first?.action.kind == .leaveHost)
            #expect(!rest.contains { $0.action.kind == .openHost && $0.atDeviceOffsetSeconds < end })
            let open = try #require(rest.first { $0.action.kind == .openApp && $0.atDeviceOffsetSeconds > end })
            #expect(open.atDeviceOffsetSeconds - end >= 120)
        }
        #expect(p.actions.allSatisfy { $0.atDeviceOffsetSeconds <= 6 * 3_600 })
    }

    @Test func theChecklistIsTheSpecsSevenSteps() {
        var c = Self.configuration
        c.checklist = true
        var g = SeededGenerator(seed: 1, stream: 1)
        let steps = EnforcementPlanner.plan(c, deviceMillis: 900_000, generator: &g).actions.map { $0.action.step.prefix(1) }
        #expect(Array(Set(steps)).sorted() == ["1", "2", "3", "4", "5", "7"], "step 6 is step 5's app left in the foreground")
    }

    @Test func badScenarioKeysAreOneLineErrors() throws {
        for (body, key) in [
            ("enforcement: { apps: [a], pick: [1, 2] }", "pick"), ("enforcement: { apps: [a], grantMinutes: [0] }", "grantMinutes"),
            ("enforcement: { apps: [a], colour: red }", "colour"), ("enforcement: { apps: [a], overrides: { minutes: [0] } }", "overrides.minutes"),
            ("enforcement: { apps: [a], overrides: { colour: red } }", "colour"),
        ] {
            let path = NSTemporaryDirectory() + "enforcement-bad-\(getpid()).yaml"
            try "name: x\nsystem: enforcement\nduration: 1h\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                _ = try Scenario.load(path: path, systems: Self.catalog)
                Issue.record("\(body) was accepted")
            } catch { #expect("\(error)".contains(key), "\(error)") }
        }
    }

    @Test func theChecklistHoldsHardenedAndCatchesAsWritten() throws {
        let hardened = try Self.run("enforcement-checklist.yaml", variant: .hardened, seed: 1)
        #expect(hardened.exitCode == 0, "\(hardened.setupError ?? hardened.report?.humanSummary() ?? "")")
        #expect(hardened.killsAndStops > 0, "the nemesis was on")
        for rule in ["shields-match-formula", "grant-end-reshields", "grant-app-usable", "sqlite-mirror-agrees", "shield-content"] {
            #expect((hardened.report?.result(rule)?.checkedCount ?? 0) > 0, "\(rule) judged something")
        }
        let asWritten = try Self.run("enforcement-checklist.yaml", variant: .asWritten, seed: 1)
        #expect(asWritten.exitCode == 1)
        // The 5-minute one-off schedule is shorter than Apple's 15-minute minimum: no callback at its end.
        let v = try #require(asWritten.report?.violations.first { $0.invariant == "grant-end-reshields" })
        #expect(v.explanation.contains("intervalTooShort"), "\(v.explanation)")
    }

    @Test func theOverridesScenarioHoldsHardenedAndCatchesAsWrittenAtAnOverridesEnd() throws {
        let hardened = try Self.run("enforcement-overrides.yaml", variant: .hardened, seed: 1)
        #expect(hardened.exitCode == 0, "\(hardened.setupError ?? hardened.report?.humanSummary() ?? "")")
        #expect((hardened.report?.result("override-end-applied")?.checkedCount ?? 0) > 0, "an override's end judged")
        let asWritten = try Self.run("enforcement-overrides.yaml", variant: .asWritten, seed: 1)
        #expect(asWritten.exitCode == 1)
        // Nothing is scheduled at the override's end: the shields wait for the host's foreground or a shield press.
        let v = try #require(asWritten.report?.violations.first { $0.invariant == "override-end-applied" })
        #expect(v.explanation.contains("ended at"), "\(v.explanation)")
    }
}
