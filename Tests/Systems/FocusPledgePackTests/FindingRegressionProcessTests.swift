import Foundation
import HarnessKit
import Supervision
import Testing

/// The bundled scenario's as-written findings, every class shrunk by `scripts/findings` to at most
/// 5 steps and kept as a scenario (`Sources/Systems/FocusPledge/scenarios/regress/`, the pack
/// README's "Each finding shrunk"): run from its file on the seed its header names, as-written
/// still fails the way the header says (the invariant, with an explanation equal but for its
/// numbers, as `harness shrink` compares), and hardened holds on each — so a change to the core
/// that loses a finding, or breaks hardened on one, shows here. Each file's header (written by
/// `harness shrink --explanation`) is the one place its seed, invariant and explanation are kept.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FindingRegressionProcessTests {
    struct Finding: Sendable, CustomTestStringConvertible {
        var file: String
        /// What the header's first line claims; nil when it does not read as `harness shrink` wrote it.
        var claim: (seed: Int, invariant: String, signature: String)?
        var testDescription: String { file }
    }

    static let directory = "Sources/Systems/FocusPledge/scenarios/regress"

    /// Every scenario of the directory, with the claim of its header.
    static let findings: [Finding] = {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
        return files.map { file in
            let text = (try? String(contentsOfFile: directory + "/" + file, encoding: .utf8)) ?? ""
            let first = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
            guard let m = first.firstMatch(of: /, as-written, seed (\d+)\): (\S+) still fails the same way \((.*)\)\.$/), let seed = Int(m.1) else {
                return Finding(file: file, claim: nil)
            }
            return Finding(file: file, claim: (seed, String(m.2), String(m.3)))
        }
    }()

    /// The violations a run directory's report.json lists, as (invariant, explanation).
    static func violations(inRun run: String) throws -> [(invariant: String, explanation: String)] {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/report.json"))) as? [String: Any])
        return (report["violations"] as? [[String: Any]] ?? []).map { ($0["invariant"] as? String ?? "", $0["explanation"] as? String ?? "") }
    }

    func run(_ file: String, seed: Int, _ variant: String, in d: HarnessRunProcessTests.Dir) throws -> (ChildProcess.ExitStatus?, [(invariant: String, explanation: String)], String) {
        let out = d.path + "/\(variant)"
        let (status, lines) = try HarnessRunProcessTests().harness(
            ["run", Self.directory + "/" + file, "--variant", variant, "--seed", String(seed), "--out", out, "--quiet"])
        let runs = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter { !$0.hasSuffix(".html") }
        let run = try #require(runs.first.map { out + "/" + $0 }, "no run directory in \(out): \(lines)")
        return (status, try Self.violations(inRun: run), lines)
    }

    @Test func everyShrunkFindingIsThereWithItsClaim() throws {
        // The nine classes of the pack README's table; a new class adds its file and this count.
        #expect(Self.findings.count == 9, "\(Self.findings.map(\.file))")
        for f in Self.findings {
            #expect(f.claim != nil, "\(f.file): its first line does not say seed, invariant and explanation as harness shrink writes them")
            let text = try String(contentsOfFile: Self.directory + "/" + f.file, encoding: .utf8)
            // At most 5 steps (the bound), as the file's own plan lists them.
            let steps = text.split(separator: "\n").filter { $0.hasPrefix("    - {") }.count
            #expect((1...5).contains(steps), "\(f.file): \(steps) steps")
            if let seed = f.claim?.seed {
                #expect(text.contains("--seed \(seed)\n") || text.contains("--seed \(seed) "), "\(f.file): its Run it line names seed \(seed)")
            }
        }
    }

    @Test(arguments: findings) func asWrittenFailsTheSameWayAndHardenedHolds(_ f: Finding) throws {
        let claim = try #require(f.claim, "\(f.file): no claim in its header")
        let d = try HarnessRunProcessTests.Dir()
        let (failed, violations, out) = try run(f.file, seed: claim.seed, "as-written", in: d)
        #expect(failed == .exited(1), "\(out)")
        let ways = violations.filter { $0.invariant == claim.invariant }.map { ShrinkInput.signature($0.explanation) }
        #expect(ways.contains(claim.signature), "\(f.file): \(claim.invariant) broken as \(ways)")
        let (held, hardenedViolations, hardenedOut) = try run(f.file, seed: claim.seed, "hardened", in: d)
        #expect(held == .exited(0) && hardenedViolations.isEmpty, "\(f.file): \(hardenedViolations) \(hardenedOut)")
    }
}
