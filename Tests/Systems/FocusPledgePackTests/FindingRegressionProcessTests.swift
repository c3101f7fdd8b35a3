import Foundation
import HarnessKit
import Supervision
import Testing

/// The bundled scenario's as-written findings, every class shrunk by `scripts/findings` to at most
/// 5 steps and kept as a scenario (`Sources/Systems/FocusPledge/scenarios/regress/`, the pack
/// README's "Each finding shrunk"): run from its file on its seed, as-written still fails each one
/// the same way (the invariant, with an explanation equal but for its numbers, as `harness shrink`
/// compares), and hardened holds on each — so a change to the core that loses a finding, or breaks
/// hardened on one, shows here.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FindingRegressionProcessTests {
    struct Finding: Sendable, CustomTestStringConvertible {
        var file: String
        var seed: Int
        var invariant: String
        /// The explanation with its numbers as `#` (`ShrinkInput.signature`).
        var signature: String
        var testDescription: String { file }
    }

    static let directory = "Sources/Systems/FocusPledge/scenarios/regress"

    static let findings: [Finding] = [
        Finding(
            file: "clean-session-never-settled.yaml", seed: 4, invariant: "clean-session-settles-success",
            signature: "clean session (no violation) ended at t=#, never settled"),
        Finding(
            file: "maybe-violation-session-never-settled.yaml", seed: 51, invariant: "clean-session-settles-success",
            signature: "session with only maybe-violations ended at t=#, never settled"),
        Finding(
            file: "failure-while-host-dead.yaml", seed: 8, invariant: "failure-while-host-dead-settled-after-relaunch",
            signature: "violation at t=# while the host was dead; relaunched (pid #), but the session was never settled"),
        Finding(
            file: "monitoring-stopped-after-settlement.yaml", seed: 55, invariant: "monitoring-stopped-after-settlement",
            signature: "settled ## FAILURE reason=no_heartbeat origin=staleJob key=server_stale_s-#-# previousStatus=ACTIVE, but focuspledge_s-#-# was still monitored at t=#, # s of host running time later"),
        Finding(
            file: "double-settlement-failure-twice.yaml", seed: 27, invariant: "no-double-settlement",
            signature: "settled # times: ## FAILURE reason=no_heartbeat origin=staleJob key=server_stale_s-#-# previousStatus=ACTIVE; ## FAILURE reason=app_opened origin=client key=flutter_s-#-#_# previousStatus=FAILURE"),
        Finding(
            file: "double-settlement-failure-then-success.yaml", seed: 74, invariant: "no-double-settlement",
            signature: "settled # times: ## FAILURE reason=no_heartbeat origin=staleJob key=server_stale_s-#-# previousStatus=ACTIVE; ## SUCCESS reason=completed origin=client key=flutter_s-#-#_# previousStatus=FAILURE"),
        Finding(
            file: "no-shield-after-settlement.yaml", seed: 55, invariant: "no-shield-after-settlement",
            signature: "settled ## FAILURE reason=no_heartbeat origin=staleJob key=server_stale_s-#-# previousStatus=ACTIVE, but shields {com.social.feed,com.video.shorts} were still up at t=#, # s of host running time later"),
        Finding(
            file: "violation-settled-success.yaml", seed: 97, invariant: "violation-settles-failure",
            signature: "# completed violation(s), first shieldConfiguration at t=#, but settled ## SUCCESS reason=completed origin=client key=flutter_s-#-#_# previousStatus=ACTIVE"),
        Finding(
            file: "violation-never-settled.yaml", seed: 71, invariant: "violation-settles-failure",
            signature: "# completed violation(s), first shieldConfiguration at t=#, but the session was never settled"),
    ]

    func run(_ f: Finding, _ variant: String, in d: HarnessRunProcessTests.Dir) throws -> (ChildProcess.ExitStatus?, [[String: Any]], String) {
        let out = d.path + "/\(variant)"
        let p = try ChildProcess.spawn(
            try Executables.path(of: "harness"),
            ["run", Self.directory + "/" + f.file, "--variant", variant, "--seed", String(f.seed), "--out", out, "--quiet"])
        var lines: [String] = []
        while let l = p.readLine(timeout: .seconds(120)) { lines.append(l) }
        let status = p.wait(timeout: .seconds(30)) ?? p.killAndReap()
        let runs = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter { !$0.hasSuffix(".html") }
        let run = try #require(runs.first.map { out + "/" + $0 }, "no run directory in \(out): \(lines)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/report.json"))) as? [String: Any])
        return (status, report["violations"] as? [[String: Any]] ?? [], lines.joined(separator: "\n"))
    }

    @Test func everyShrunkFindingIsThereAndNoOtherFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files == Self.findings.map(\.file).sorted())
        for f in Self.findings {
            let text = try String(contentsOfFile: Self.directory + "/" + f.file, encoding: .utf8)
            // At most 5 steps (the bound), as the file's own plan lists them.
            let steps = text.split(separator: "\n").filter { $0.hasPrefix("    - {") }.count
            #expect((1...5).contains(steps), "\(f.file): \(steps) steps")
            #expect(text.contains("--seed \(f.seed)\n") || text.contains("--seed \(f.seed) "), "\(f.file): its Run it line names seed \(f.seed)")
        }
    }

    @Test(arguments: findings) func asWrittenFailsTheSameWayAndHardenedHolds(_ f: Finding) throws {
        let d = try HarnessRunProcessTests.Dir()
        let (failed, violations, out) = try run(f, "as-written", in: d)
        #expect(failed == .exited(1), "\(out)")
        let ways = violations.filter { $0["invariant"] as? String == f.invariant }.map { ShrinkInput.signature($0["explanation"] as? String ?? "") }
        #expect(ways.contains(f.signature), "\(f.file): \(f.invariant) broken as \(ways)")
        let (held, hardenedViolations, hardenedOut) = try run(f, "hardened", in: d)
        #expect(held == .exited(0) && hardenedViolations.isEmpty, "\(f.file): \(hardenedViolations) \(hardenedOut)")
    }
}
