import Foundation
import HarnessKit
import History
import RunReport
import Supervision
import Testing

/// The pack interface, proven by a system the core has never heard of.
@Suite(.serialized, .timeLimit(.minutes(3))) struct PingPongPackTests {
    static let catalog = SystemCatalog([AnySystemPack(PingPongPack())])

    static func scenario(_ extra: String = "") throws -> Scenario {
        try Scenario.parse(yaml: """
            name: rally
            system: pingpong
            clock: { rate: 600 }
            duration: 10m
            settle: 5m
            rally: { serves: 8, everySeconds: 60 }
            \(extra)
            """, systems: catalog)
    }

    static func run(_ scenario: Scenario, variant: ScenarioVariant, seed: UInt64 = 1) throws -> (ScenarioRunner.Outcome, [HistoryEvent]) {
        let out = NSTemporaryDirectory() + "sth-pingpong-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }  // the suite leaves nothing in the temp dir
        let runner = ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: "rally.yaml", variant: variant, seed: seed, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in }))
        let outcome = runner.run()
        let history = HistoryEvent.parse(jsonl: FileManager.default.contents(atPath: outcome.runDirectory + "/history.jsonl") ?? Data()).events
        // The page is rendered from the merged history in memory: it must be the page of the files.
        let written = try String(contentsOfFile: outcome.runDirectory + "/" + RunReportPage.fileName, encoding: .utf8)
        #expect(written == RunReportPage.render(try RunRecord.load(runDirectory: outcome.runDirectory)), "report.html differs from the page of history.jsonl")
        return (outcome, history)
    }

    /// A system without extensions: a callback fault could never fire, so it is refused.
    @Test func aCallbackFaultOnASystemWithoutExtensionsIsRefused() {
        let e = #expect(throws: ScenarioError.self) { try Self.scenario("os: { faults: [{ kind: drop, callbacks: [intervalDidEnd] }] }") }
        #expect(e?.description.contains("os.faults[0]: this system has no extension that receives intervalDidEnd, so this rule can never fire") == true,
                "\(e?.description ?? "")")
        #expect(throws: Never.self) { try Self.scenario("os: { faults: [{ kind: torn_write }] }") }
    }

    @Test func theScenarioSchemaIsThePacksPlusTheCommonKeys() throws {
        let s = try Self.scenario()
        #expect(s.system.id == "pingpong")
        #expect(s.configuration == AnyConfiguration(PingPongPack.Configuration(serves: 8, everySeconds: 60)))
        #expect(s.settleSeconds == 300)
        #expect(s.nemesis.targets == ["ping", "pong"])
        // A key of another system is a typo here.
        let error = #expect(throws: ScenarioError.self) { try Self.scenario("workload: { blockedApps: [x] }") }
        #expect(error?.message.contains("unknown key 'workload'") == true)
        let target = #expect(throws: ScenarioError.self) { try Self.scenario("nemesis: { targets: [host-app] }") }
        #expect(target?.message.contains("unknown target 'host-app'; this system's targets: ping, pong") == true)
    }

    @Test func planFlattensThePacksKeysIntoScheduleJSON() throws {
        let plan = ScenarioPlan.make(scenario: try Self.scenario(), seed: 1)
        let json = try #require(try JSONSerialization.jsonObject(with: plan.jsonData()) as? [String: Any])
        #expect(Set(json.keys) == ["scenarioName", "seed", "deviceDurationSeconds", "wallSpanMillis", "faults", "userActions", "balls"])
        #expect(json["balls"] as? Int == 8)
        let first = try #require((json["userActions"] as? [[String: Any]])?.first?["action"] as? [String: Any])
        #expect(first["kind"] as? String == "serve" && first["ball"] as? Int == 1)
    }

    @Test func aForeignSystemRunsEndToEndAndHolds() throws {
        let (outcome, history) = try Self.run(try Self.scenario(), variant: .hardened)
        #expect(outcome.exitCode == 0, "\(outcome.setupError ?? outcome.report?.humanSummary() ?? "")")
        #expect(outcome.report?.result("every-serve-returned")?.checkedCount == 8)
        #expect(history.contains { $0.isLine(of: "pong", "acknowledged") && $0["ball"] == "8" })
        #expect(history.first { $0.isHarnessLine("run_started") }?["system"] == "pingpong")
    }

    @Test func itsInvariantCatchesItsAsWrittenBug() throws {
        let (outcome, _) = try Self.run(try Self.scenario(), variant: .asWritten)
        #expect(outcome.exitCode == 1)
        #expect(outcome.report?.violations.map(\.invariant) == ["every-serve-returned"])
        #expect(outcome.report?.violations.first?.explanation.contains("ball 8 was served and never returned") == true)
    }

    @Test func theNemesisTargetsItsRolesAndItStillHolds() throws {
        let scenario = try Self.scenario("""
            nemesis: { intervalMillis: [30, 60], actions: { kill: 1 }, restartDelayMillis: [5, 40], targets: [ping, pong] }
            """)
        let (outcome, history) = try Self.run(scenario, variant: .hardened, seed: 3)
        #expect(outcome.exitCode == 0, "\(outcome.setupError ?? outcome.report?.humanSummary() ?? "")")
        let kills = history.filter { $0.isHarnessLine("signal") && $0["by"] == "nemesis" && $0["signal"] == "KILL" }
        #expect(Set(kills.compactMap { $0["target"] }) == ["ping", "pong"])
        #expect(history.filter { $0.isHarnessLine("spawn") }.count > 2, "killed roles are relaunched")
    }
}

extension PingPongPackTests {
    /// The ping-pong processes take part in virtual time through the FIFO alone (PROTOCOL.md §9)
    /// — and the same system runs at a fixed rate too.
    @Test func itRunsUnderBothClockModes() throws {
        for mode in ["virtual", "fixed"] {
            let scenario = try Scenario.parse(yaml: """
                name: rally
                system: pingpong
                clock: { mode: \(mode), rate: 600 }
                duration: 10m
                settle: 5m
                rally: { serves: 8, everySeconds: 60 }
                """, systems: Self.catalog)
            let (outcome, history) = try Self.run(scenario, variant: .hardened)
            #expect(outcome.exitCode == 0, "\(mode): \(outcome.setupError ?? outcome.report?.humanSummary() ?? "")")
            #expect(!history.contains { $0.event == "quiescence_timeout" }, "\(mode)")
            #expect(history.first { $0.isHarnessLine("run_started") }?["clockMode"] == mode)
        }
    }
}
