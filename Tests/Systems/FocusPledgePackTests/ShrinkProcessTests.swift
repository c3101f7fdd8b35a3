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

        let shrunk = d.path + "/shrunk.yaml"
        let (status, out) = try harness(["shrink", run, "--invariant", "no-shield-after-settlement", "--holds", "hardened", "--out", shrunk, "--runs", d.path + "/trials"])
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
    }
}
