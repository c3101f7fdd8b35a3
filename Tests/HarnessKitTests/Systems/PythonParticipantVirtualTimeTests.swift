import Foundation
import HarnessKit
import History
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The Python participant written from docs/PROTOCOL.md alone took part only
/// in posts and defaults. Here it plays the ping-pong system's pong in a stepped virtual-time run
/// (no FocusPledge): it reports idle on the scheduler FIFO (PROTOCOL.md §9.1), so the clock moves without a
/// `quiescence_timeout`, the rally holds, its as-written bug is caught, and two runs give the same
/// normalized history. Skipped, saying so, without python3.
enum PythonPong {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"].first { access($0, X_OK) == 0 }
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Conformance/participant.py").path
}

@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: PythonPong.python != nil, "python3 is not installed: the Python participant cannot run"))
struct PythonParticipantVirtualTimeTests {
    /// Where the runs go. The roles are found as any team's are: ping beside the harness's own
    /// executables, pong by its absolute path — `participant.py` itself, a program that speaks
    /// docs/PROTOCOL.md and was never built by this package ("bring a binary").
    final class Bin {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "sth-python-pong-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let pack = PingPongPack(
        pongRole: ProcessRole(name: "pong", lifetime: .app, executable: PythonPong.script, arguments: ["pong"], summary: "returns (Python)"))
    static let catalog = SystemCatalog([AnySystemPack(pack)])

    static func run(_ variant: ScenarioVariant, bin: Bin) throws -> (ScenarioRunner.Outcome, [HistoryEvent]) {
        let scenario = try Scenario.parse(yaml: """
            name: rally
            system: pingpong
            clock: { mode: virtual, rate: 600 }
            duration: 10m
            settle: 5m
            rally: { serves: 8, everySeconds: 60 }
            """, systems: catalog)
        let out = bin.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let runner = ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: "rally.yaml", variant: variant, seed: 1, durationOverride: nil,
            outputDirectory: out, binDirectory: Executables.directory, progress: { _ in }))
        let outcome = runner.run()
        let history = HistoryEvent.parse(jsonl: FileManager.default.contents(atPath: outcome.runDirectory + "/history.jsonl") ?? Data()).events
        return (outcome, history)
    }

    @Test func aPythonPongTakesPartInVirtualTime() throws {
        let bin = try Bin()
        let (outcome, history) = try Self.run(.hardened, bin: bin)
        #expect(outcome.exitCode == 0, "\(outcome.setupError ?? outcome.report?.humanSummary() ?? "")")
        #expect(history.first { $0.isHarnessLine("run_started") }?["clockMode"] == "virtual")
        #expect(!history.contains { $0.event == "quiescence_timeout" }, "\(history.filter { $0.event == "quiescence_timeout" }.map(\.fields))")
        #expect(history.contains { $0.isLine(of: "pong", "acknowledged") && $0["ball"] == "8" })
        #expect(outcome.report?.result("every-serve-returned")?.checkedCount == 8)
        // Device time moved in steps, ball by ball: pong's lines carry the stepped clock's time.
        let acks = history.filter { $0.isLine(of: "pong", "acknowledged") }.map(\.t)
        #expect(acks == acks.sorted() && Set(acks).count >= 8, "\(acks)")

        let (again, _) = try Self.run(.hardened, bin: bin)
        #expect(try HistoryNormalizer.normalize(runDirectory: again.runDirectory) == HistoryNormalizer.normalize(runDirectory: outcome.runDirectory),
            "two runs with the Python participant differ")
    }

    @Test func itsAsWrittenBugIsCaught() throws {
        let bin = try Bin()
        let (outcome, _) = try Self.run(.asWritten, bin: bin)
        #expect(outcome.exitCode == 1)
        #expect(outcome.report?.violations.map(\.invariant) == ["every-serve-returned"])
    }
}
