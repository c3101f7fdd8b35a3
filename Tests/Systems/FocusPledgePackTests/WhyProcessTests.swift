import Foundation
import Supervision
import Testing

/// `harness why` with real processes: each step before a violation's evidence is left out in a
/// rerun of the same seed and plan; the ones without which it holds are the proven causes, named
/// with what the process they acted on was doing. Steps after the evidence are never listed.
@Suite(.serialized, .timeLimit(.minutes(5))) struct WhyProcessTests {
    func harness(_ args: [String]) throws -> (ChildProcess.ExitStatus?, String) {
        try ShrinkProcessTests().harness(args)
    }

    /// A shrunk regression scenario: the kill that left the session unsettled is proven — though
    /// it comes after the last line the checker cites (the session's start) — with what the host
    /// was doing; the session's start is proven too; the app selection is not needed.
    @Test func theKillBehindANeverSettledSessionIsProven() throws {
        let d = try HarnessRunProcessTests.Dir()
        let scenario = FindingRegressionProcessTests.directory + "/clean-session-never-settled.yaml"
        let (recorded, recOut) = try harness(["run", scenario, "--variant", "as-written", "--seed", "4", "--out", d.path + "/rec"])
        #expect(recorded == .exited(1), "\(recOut)")
        let run = try ShrinkProcessTests().onlyRun(d.path + "/rec")
        let (status, out) = try harness(["why", run, "--runs", d.path + "/trials"])
        #expect(status == .exited(0), "\(out)")
        #expect(out.contains("violation 1: clean-session-settles-success (session s-4-4)"), "\(out)")
        #expect(out.contains("proven causes (without each, it holds; every other step kept):"), "\(out)")
        let causes = out.split(separator: "\n").filter { $0.hasPrefix("  at +") }
        #expect(causes.count == 2, "\(out)")
        #expect(
            causes.contains { $0.contains("nemesis kill host-app") && $0.contains("host-app's last line before it: ") && $0.hasSuffix("(after the last line the checker cites)") },
            "\(out)")
        #expect(causes.contains { $0.contains("\"kind\":\"startSession\"") }, "\(out)")
        #expect(out.contains("not needed: 1 step(s)"), "\(out)")
        #expect(out.contains("6 runs in "), "the repeat, one run per step (stand-ins inside the harness), each proven cause again with processes: \(out)")
    }

    /// A failpoint kill among a whole run's steps: the kill is proven, steps it does not depend on
    /// are not needed.
    @Test func aFailpointKillIsProvenAndTheStepsItDoesNotDependOnAreNot() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", FailpointProcessTests.scenario)
        let failpoint = FailpointProcessTests.settleAnswer + "#1=kill"
        let (recorded, recOut) = try harness(["run", file, "--variant", "as-written", "--seed", "1", "--out", d.path + "/rec", "--failpoint", failpoint])
        #expect(recorded == .exited(1), "\(recOut)")
        let run = try ShrinkProcessTests().onlyRun(d.path + "/rec")
        let violations = try FindingRegressionProcessTests.violations(inRun: run)
        let number = try #require(violations.firstIndex { $0.invariant == "no-shield-after-settlement" }) + 1
        let (status, out) = try harness(["why", run, "--violation", String(number), "--runs", d.path + "/trials"])
        #expect(status == .exited(0), "\(out)")
        let causes = out.split(separator: "\n").filter { $0.hasPrefix("  failpoint ") || $0.hasPrefix("  at +") }
        #expect(causes.contains { $0.contains("failpoint " + failpoint) && $0.contains("host-app's last line before it") }, "\(out)")
        #expect(out.range(of: #"not needed: [1-9][0-9]* step\(s\)"#, options: .regularExpression) != nil, "\(out)")
    }

    /// `harness run` proves the causes of its first violation of each invariant by reruns, and prints
    /// them before the evidence: the failpoint kill the run was given is a proven cause of the
    /// unlifted shield; why.json keeps it with the history line where it fired, and report.html
    /// marks that line as a proven cause. With --why-budget 0 nothing is rerun.
    @Test func runProvesTheCausesOfItsFirstViolationBeforeItsEvidence() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", FailpointProcessTests.scenario)
        let failpoint = FailpointProcessTests.settleAnswer + "#1=kill"
        let (status, out) = try harness(["run", file, "--variant", "as-written", "--seed", "1", "--out", d.path + "/rec", "--failpoint", failpoint, "--why-budget", "3m"])
        #expect(status == .exited(1), "\(out)")
        let run = try ShrinkProcessTests().onlyRun(d.path + "/rec")
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("no-shield-after-settlement — ") }, "\(out)")
        let section = Array(lines[header...].prefix { !$0.isEmpty })
        let proven = try #require(section.firstIndex { $0.hasPrefix("  proven cause") }, "\(section)")
        let evidence = try #require(section.firstIndex { $0 == "  evidence:" }, "\(section)")
        #expect(proven < evidence, "proven causes come first: \(section)")
        let causes = section[(proven + 1)..<evidence].filter { $0.hasPrefix("    ") && !$0.hasPrefix("      and") }
        #expect(causes.contains { $0.contains("failpoint " + failpoint) && $0.contains("host-app's last line before it") }, "\(section)")
        #expect(section.contains { $0.hasPrefix("    before #") }, "the disturbances before it are evidence, not causes: \(section)")

        let why = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/why.json"))) as? [String: Any])
        let explained = try #require(why["explained"] as? [[String: Any]])
        let entry = try #require(explained.first { $0["invariant"] as? String == "no-shield-after-settlement" })
        let cause = try #require((entry["proven"] as? [[String: Any]])?.first { ($0["step"] as? String)?.hasPrefix("failpoint ") == true }, "\(entry)")
        let line = try #require(cause["line"] as? Int, "\(cause)")
        let history = try String(contentsOfFile: run + "/history.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(history[line - 1].contains("\"event\":\"failpoint\""), "\(history[line - 1])")
        let page = try String(contentsOfFile: run + "/report.html", encoding: .utf8)
        let number = try #require(entry["violation"] as? Int)
        let marker = #"proven( v[0-9]+)* v\#(number)( v[0-9]+)*" x="[^"]*" y="[^"]*" width="3" height="10" fill="[^"]*" data-t="[^"]*" data-line="\#(line)""#
        #expect(page.range(of: marker, options: .regularExpression) != nil, "the line is marked a proven cause on the timeline")
        #expect(page.contains("<div class=\"proven-causes\">"), "and listed above the violation's evidence")

        let (quiet, quietOut) = try harness(["run", file, "--variant", "as-written", "--seed", "1", "--out", d.path + "/none", "--failpoint", failpoint, "--why-budget", "0"])
        #expect(quiet == .exited(1), "\(quietOut)")
        #expect(!quietOut.contains("proven cause") && !quietOut.contains("  evidence:"), "\(quietOut)")
        #expect(!FileManager.default.fileExists(atPath: try ShrinkProcessTests().onlyRun(d.path + "/none") + "/why.json"))
    }

    /// With no --why-budget, HARNESS_WHY_BUDGET sets it (CI's way to turn the reruns off or up); a
    /// value it cannot read is named with where it came from, before anything runs.
    @Test func theBudgetComesFromTheEnvironmentWhenNotGiven() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", FailpointProcessTests.scenario)
        var env = ProcessInfo.processInfo.environment
        env["HARNESS_WHY_BUDGET"] = "soon"
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), ["run", file, "--variant", "as-written", "--out", d.path + "/rec"], environment: env)
        var out: [String] = []
        while let l = p.readLine(timeout: .seconds(60)) { out.append(l) }
        #expect((p.wait(timeout: .seconds(30)) ?? p.killAndReap()) == .exited(2))
        #expect(!FileManager.default.fileExists(atPath: d.path + "/rec"), "nothing ran: \(out)")
        env["HARNESS_WHY_BUDGET"] = "2m"
        let q = try ChildProcess.spawn(
            try Executables.path(of: "harness"), ["run", file, "--variant", "as-written", "--seed", "1", "--out", d.path + "/env", "--failpoint", FailpointProcessTests.settleAnswer + "#1=kill"],
            environment: env)
        var text: [String] = []
        while let l = q.readLine(timeout: .seconds(240)) { text.append(l) }
        #expect((q.wait(timeout: .seconds(30)) ?? q.killAndReap()) == .exited(1))
        #expect(text.contains { $0.contains("failpoint " + FailpointProcessTests.settleAnswer + "#1=kill — host-app's last line before it") }, "\(text.joined(separator: "\n"))")
    }

    /// Refusals exit 2 (their one-line messages are BadInputTests' rows).
    @Test func aRunThatHeldOrANumberItDoesNotHaveIsRefused() throws {
        let d = try HarnessRunProcessTests.Dir()
        let scenario = FindingRegressionProcessTests.directory + "/clean-session-never-settled.yaml"
        let (held, heldOut) = try harness(["run", scenario, "--variant", "hardened", "--seed", "4", "--out", d.path + "/held"])
        #expect(held == .exited(0), "\(heldOut)")
        #expect(try harness(["why", try ShrinkProcessTests().onlyRun(d.path + "/held")]).0 == .exited(2))
        _ = try harness(["run", scenario, "--variant", "as-written", "--seed", "4", "--out", d.path + "/rec"])
        #expect(try harness(["why", try ShrinkProcessTests().onlyRun(d.path + "/rec"), "--violation", "9"]).0 == .exited(2))
    }
}
