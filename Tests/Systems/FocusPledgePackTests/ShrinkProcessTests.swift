import Foundation
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `harness shrink` with real processes: a run that failed because a failpoint killed the host
/// after the server settled and before it read the answer is cut down to the steps that matter, written as a scenario
/// file that fails again from the file and replays; bad inputs are refused before any run.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ShrinkProcessTests {
    func harness(_ args: [String]) throws -> (ChildProcess.ExitStatus?, String) {
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), args)
        var out: [String] = []
        while let l = p.readLine(timeout: .seconds(240)) { out.append(l) }
        return (p.wait(timeout: .seconds(30)) ?? p.killAndReap(), out.joined(separator: "\n"))
    }

    func onlyRun(_ dir: String) throws -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return try #require(names.filter { $0.hasPrefix("fp") }.first.map { dir + "/" + $0 }, "no run in \(dir): \(names)")
    }

    @Test func aFailpointFindingShrinksToAFewStepsThatFailAgainFromTheFileAndReplay() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", FailpointProcessTests.scenario)
        let failpoint = FailpointProcessTests.settleAnswer + "#1=kill"
        let (recorded, recOut) = try harness(["run", file, "--variant", "as-written", "--seed", "1", "--out", d.path + "/rec", "--failpoint", failpoint])
        #expect(recorded == .exited(1), "\(recOut)")
        let run = try onlyRun(d.path + "/rec")
        let schedule = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/schedule.json"))) as? [String: Any])
        let before = (schedule["userActions"] as? [Any] ?? []).count + (schedule["faults"] as? [Any] ?? []).count + 1

        // The class to keep, named by a part of the run's own explanation text (numbers and all),
        // as a user copies it from report.json; shrink matches it with its numbers left out.
        let explanation = try #require(
            try FindingRegressionProcessTests.violations(inRun: run).first { $0.invariant == "no-shield-after-settlement" }?.explanation)
        #expect(explanation.contains { $0.isNumber }, "\(explanation)")

        let shrunk = d.path + "/shrunk.yaml"
        let (status, out) = try harness([
            "shrink", run, "--invariant", "no-shield-after-settlement", "--explanation", String(explanation.dropFirst(explanation.count / 3)), "--holds", "hardened", "--out", shrunk, "--runs",
            d.path + "/trials",
        ])
        #expect(status == .exited(0), "\(out)")
        #expect(out.contains("steps: \(before) -> "), "\(out)")
        #expect(out.contains("1-minimal") && out.contains("confirmed: ") && out.contains("hardened on it: "), "\(out)")
        let text = try String(contentsOfFile: shrunk, encoding: .utf8)
        #expect(text.hasPrefix("# Shrunk by `harness shrink`"))
        #expect(text.contains("failpoints:") && text.contains(FailpointProcessTests.settleAnswer + "#1=kill"), "the kill is one of the steps that matter")
        #expect(text.contains("plan:") && !text.contains("nemesis:"))
        // The steps left: the app selection, the session whose settle answer the failpoint
        // swallows, and the kill; the later session and its violation do not matter.
        let kept = text.split(separator: "\n").filter { $0.hasPrefix("    - {") }.count + 1
        #expect(kept == 3, "\(kept) steps left of \(before):\n\(text)")
        #expect(text.contains("\"kind\":\"selectApps\"") && text.contains("\"kind\":\"startSession\""), "\(text)")

        // From the file, as a committed regression scenario: as-written fails again, hardened holds.
        let (again, againOut) = try harness(["run", shrunk, "--variant", "as-written", "--seed", "1", "--out", d.path + "/again"])
        #expect(again == .exited(1), "\(againOut)")
        let (hardened, hardenedOut) = try harness(["run", shrunk, "--variant", "hardened", "--seed", "1", "--out", d.path + "/hard"])
        #expect(hardened == .exited(0), "\(hardenedOut)")
        let (replayed, replayOut) = try harness(["replay", try onlyRun(d.path + "/again"), "--out", d.path + "/rep"])
        #expect(replayed == .exited(0) && replayOut.contains("reproduced"), "\(replayOut)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/trials")) ?? []).allSatisfy { !$0.hasPrefix("shrink-") },
                "the trials' work directory is removed")

        // Shrinking again may replace its own file, never another one.
        let foreign = d.path + "/notes.yaml"
        try "my notes\n".write(toFile: foreign, atomically: true, encoding: .utf8)
        let (refused, refusedOut) = try harness(["shrink", run, "--out", foreign, "--runs", d.path + "/trials2"])
        #expect(refused == .exited(2) && refusedOut.isEmpty, "\(refusedOut)")
        #expect(try String(contentsOfFile: foreign, encoding: .utf8) == "my notes\n")
        // A symlink, even to a file shrink wrote, is refused (OutputFile's rule): the link stays.
        let link = d.path + "/link.yaml"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: shrunk)
        let (linked, linkedOut) = try harness(["shrink", run, "--out", link, "--runs", d.path + "/trials2"])
        #expect(linked == .exited(2) && linkedOut.isEmpty, "\(linkedOut)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == shrunk)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/trials2")) ?? []).isEmpty, "nothing ran")
        // An invariant the run did not violate: nothing to keep failing.
        let (other, otherOut) = try harness(["shrink", run, "--invariant", "no-such-invariant", "--runs", d.path + "/trials3"])
        #expect(other == .exited(2) && otherOut.isEmpty, "\(otherOut)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/trials3")) ?? []).isEmpty, "nothing ran")
        // A way it did not fail, or an explanation with --match invariant: refused before any run.
        for extra in [["--explanation", "shields were never up"], ["--explanation", explanation, "--match", "invariant"]] {
            let (way, wayOut) = try harness(["shrink", run, "--invariant", "no-shield-after-settlement", "--runs", d.path + "/trials4"] + extra)
            #expect(way == .exited(2) && wayOut.isEmpty, "\(extra): \(wayOut)")
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/trials4")) ?? []).isEmpty, "nothing ran")
    }

    @Test func aRunThatHeldOrAnInvariantItDidNotViolateIsRefusedWithOneLine() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", FailpointProcessTests.scenario)
        let (held, heldOut) = try harness(["run", file, "--variant", "hardened", "--seed", "1", "--out", d.path + "/held"])
        #expect(held == .exited(0), "\(heldOut)")
        let run = try onlyRun(d.path + "/held")
        // One line on stderr, exit 2, nothing run.
        func refused(_ args: [String]) throws -> [String] {
            let errFile = d.path + "/stderr-" + UUID().uuidString
            let fd = open(errFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { close(fd) }
            let p = try ChildProcess.spawn(try Executables.path(of: "harness"), args, stderrTo: fd)
            var out: [String] = []
            while let l = p.readLine(timeout: .seconds(30)) { out.append(l) }
            #expect(p.wait(timeout: .seconds(30)) == .exited(2))
            #expect(out.isEmpty, "\(out)")
            return try String(contentsOfFile: errFile, encoding: .utf8).split(separator: "\n").map(String.init)
        }
        let heldLines = try refused(["shrink", run, "--runs", d.path + "/t"])
        #expect(heldLines.count == 1 && heldLines[0].contains("held every invariant: there is no failure to shrink"), "\(heldLines)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/t")) ?? []).isEmpty, "nothing ran")

        // The same recording, cut off by a signal: its history says so, and its report.json still
        // claims a verdict. Shrink refuses it before any run; replay runs it again but has nothing to
        // compare with (it said "recorded: held … reproduced").
        var history = try String(contentsOfFile: run + "/history.jsonl", encoding: .utf8)
        history += #"{"mono":1,"t":1.0,"process":"harness","pid":1,"event":"run_interrupted","signal":"TERM"}"# + "\n"
        try history.write(toFile: run + "/history.jsonl", atomically: true, encoding: .utf8)
        let cutLines = try refused(["shrink", run, "--runs", d.path + "/t"])
        #expect(cutLines.count == 1 && cutLines[0].contains("is undecided (") && cutLines[0].contains("there is no failure to shrink"), "\(cutLines)")
        try "{\"edited\": true}".write(toFile: run + "/schedule.json", atomically: true, encoding: .utf8)
        let (replayed, replayOut) = try harness(["replay", run, "--out", d.path + "/r"])
        #expect(replayOut.contains("schedule.json is not the plan seed 1 makes"), "an edited plan is said, not ignored: \(replayOut)")
        #expect(replayed == .exited(2), "\(replayOut)")
        #expect(replayOut.contains("recorded: undecided"), "\(replayOut)")
        #expect(replayOut.contains("replayed: held"), "\(replayOut)")
        #expect(!replayOut.contains("reproduced"), "\(replayOut)")
    }

    /// The bundled scenario's as-written seed 97 breaks `violation-settles-failure` two ways (one
    /// session settled SUCCESS, another never settled): `--explanation` picks one — the shrunk file
    /// names it — and a part both ways share is refused as ambiguous, before any run.
    @Test func aRunThatBrokeAnInvariantTwoWaysShrinksTheWayItIsTold() throws {
        let d = try HarnessRunProcessTests.Dir()
        let scenario = "Sources/Systems/FocusPledge/scenarios/focuspledge.yaml"
        let (recorded, recOut) = try harness(["run", scenario, "--variant", "as-written", "--seed", "97", "--out", d.path + "/rec", "--quiet"])
        #expect(recorded == .exited(1), "\(recOut)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: d.path + "/rec")) ?? []
        let run = try #require(names.first { $0.hasPrefix("focuspledge-") }.map { d.path + "/rec/" + $0 }, "\(names)")
        let ways = try FindingRegressionProcessTests.violations(inRun: run).filter { $0.invariant == "violation-settles-failure" }.map(\.explanation)
        #expect(ways.contains { $0.hasSuffix("but the session was never settled") } && ways.contains { $0.contains("but settled") }, "\(ways)")

        // Two runs: the recorded one pinned, one trial; the file is written all the same and says which way.
        let shrunk = d.path + "/never.yaml"
        let (status, out) = try harness([
            "shrink", run, "--invariant", "violation-settles-failure", "--explanation", "the session was never settled", "--max-runs", "2",
            "--out", shrunk, "--runs", d.path + "/trials",
        ])
        #expect(status == .exited(0) || status == .exited(1), "\(out)")
        let header = try String(contentsOfFile: shrunk, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.hasSuffix("still fails the same way (# completed violation(s), first shieldConfiguration at t=#, but the session was never settled)."), "\(header)")

        let (ambiguous, ambiguousOut) = try harness([
            "shrink", run, "--invariant", "violation-settles-failure", "--explanation", "first shieldConfiguration", "--max-runs", "2", "--runs", d.path + "/trials2",
        ])
        #expect(ambiguous == .exited(2) && ambiguousOut.isEmpty, "\(ambiguousOut)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/trials2")) ?? []).isEmpty, "nothing ran")
    }
}
