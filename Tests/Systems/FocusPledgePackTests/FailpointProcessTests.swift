import Foundation
import HarnessKit
import History
import Supervision
import SystemRegistry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Crash points, failpoints and `harness explore` with real processes: the harness arms a
/// failpoint, the stand-in SIGKILLs itself exactly there, iOS relaunches it, the run is judged.
@Suite(.serialized, .timeLimit(.minutes(3))) struct FailpointProcessTests {
    /// One session of 15 minutes with one violation, then a second one; no nemesis, so the only
    /// kill is the failpoint's.
    static let scenario = """
        name: fp
        system: focuspledge
        clock: { start: "2026-02-17T08:00:00Z", timeZone: "Europe/Berlin" }
        duration: 40m
        settle: 20m
        workload:
          blockedApps: [com.social.feed]
          sessions: { durationMinutes: [15, 15], gapMinutes: [2, 2] }
          violations: { probability: 1.0, kinds: [open_blocked_app], maxPerSession: 1 }
        """
    /// as-written's `setActiveSession` is four separate sets; this is the second.
    static let secondKey = "host-app:defaults:group.com.focuspledge.shared/focuspledge_session_start_time"
    static let firstKey = "host-app:defaults:group.com.focuspledge.shared/focuspledge_active_session_id"
    /// The server's answer to the host's settle, after the server committed it and before the
    /// host read it: as-written, relaunched, never removes the settled session's shields.
    static let settleAnswer = "host-app:http.reply:settlement-server POST /resolveSession"

    func harness(_ args: [String], stderrTo: Int32 = -1) throws -> (ChildProcess.ExitStatus?, String) {
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), args, stderrTo: stderrTo)
        var out: [String] = []
        while let l = p.readLine(timeout: .seconds(120)) { out.append(l) }
        return (p.wait(timeout: .seconds(30)) ?? p.killAndReap(), out.joined(separator: "\n"))
    }

    func history(_ run: String) throws -> [HistoryEvent] {
        HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: run + "/history.jsonl"))).events
    }

    func violated(_ run: String) throws -> Set<String> {
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/report.json"))) as? [String: Any]
        let violations = report?["violations"] as? [[String: Any]] ?? []
        return Set(violations.compactMap { $0["invariant"] as? String })
    }

    /// The issue's example: the as-written host killed between two single-key writes of a
    /// session start — the first key landed, the second never did — and relaunched. Recording the
    /// crash points twice gives the same list (reruns are identical); the kill is exactly there.
    @Test func aFailpointKillsTheHostBetweenTwoSingleKeyWrites() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        var baseline: [String] = []
        for i in 0..<2 {
            let (status, out) = try harness(["run", file, "--variant", "as-written", "--seed", "1", "--crash-points", "--out", d.path + "/base\(i)"])
            #expect(status == .exited(0) || status == .exited(1), "\(out)")
            let run = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/base\(i)")) ?? []).first.map { d.path + "/base\(i)/" + $0 })
            let points = try String(contentsOfFile: run + "/crashpoints.txt", encoding: .utf8).split(separator: "\n").map(String.init)
            if i == 0 { baseline = points } else { #expect(points == baseline, "two runs of one seed passed different crash points") }
            #expect(!(try violated(run)).contains("start-enforced"))
        }
        // The two keys are consecutive crash points of the host.
        let first = try #require(baseline.firstIndex(of: Self.firstKey + "#1"))
        #expect(baseline[first + 1] == Self.secondKey + "#1")

        let (status, out) = try harness([
            "run", file, "--variant", "as-written", "--seed", "1", "--out", d.path + "/fp", "--failpoint", Self.secondKey + "#1=kill",
        ])
        #expect(status == .exited(1), "\(out)")
        #expect(out.contains("--failpoint '\(Self.secondKey)#1=kill'"), "the rerun command names the failpoint")
        let run = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/fp")) ?? []).first.map { d.path + "/fp/" + $0 })
        let events = try history(run)
        let fired = try #require(events.firstIndex { $0.event == "failpoint" })
        #expect(events[fired].process == "host-app" && events[fired]["label"] == Self.secondKey + "#1" && events[fired]["action"] == "kill")
        // Nothing of the host after its failpoint line but its exit (signal 9), then iOS relaunches it.
        let after = events[(fired + 1)...]
        let exit = try #require(after.firstIndex { $0.event == "exit" && $0["target"] == "host-app" })
        #expect(events[exit]["status"] == "signal 9")
        #expect(!events[(fired + 1)..<exit].contains { $0.process == "host-app" })
        #expect(events[exit...].contains { $0.event == "spawn" && $0["target"] == "host-app" })
        // The host died inside the user's start tap; the user taps start again once it is back
        // (EMULATED-IOS.md §7.7), and the relaunched host starts the session.
        let retry = try #require(events[exit...].first { $0.event == "user_retry" }, "the user taps start again")
        #expect(retry["action"] == "start_session" && retry["sessionId"] == "s-1-1" && retry["how"] == "taken in, not finished")
        #expect(!(try violated(run)).contains("start-enforced"))
        #expect(events.first { $0.event == "run_started" }?["failpoints"] == Self.secondKey + "#1=kill")
        // Each violation's cause chain cites history.jsonl by line number, and
        // the failpoint's kill of the host is among the causes of one about the host.
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/report.json"))) as? [String: Any]
        let chains = (report?["violations"] as? [[String: Any]] ?? []).compactMap { $0["chain"] as? [[String: Any]] }
        #expect(!chains.isEmpty && chains.allSatisfy { !$0.isEmpty && $0.count <= 12 })
        let lines = try String(contentsOfFile: run + "/history.jsonl", encoding: .utf8).split(separator: "\n")
        for c in chains.joined() {
            let n = try #require(c["line"] as? Int)
            let e = try #require(HistoryEvent.parse(jsonl: Data(lines[n - 1].utf8)).events.first)
            #expect((c["text"] as? String)?.hasPrefix("t=" + String(format: "%.3f", e.t) + " ") == true && (c["text"] as? String)?.contains(" \(e.event)") == true)
        }
        let fpLine = try #require(lines.firstIndex { $0.contains("\"event\":\"failpoint\"") }) + 1
        #expect(chains.contains { $0.contains { ($0["line"] as? Int) == fpLine && ($0["role"] as? String) == "cause" } }, "\(chains)")
        #expect(out.contains("before #\(fpLine)  "), "the summary prints the chain")
    }

    /// `harness replay`: a run with a failpoint, replayed from its directory alone, fails the
    /// same invariants; a run whose recorded build differs is refused with one line, exit 2.
    @Test func replayReproducesARecordedRunAndRefusesAnotherBuild() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        _ = try harness(["run", file, "--variant", "as-written", "--seed", "1", "--out", d.path + "/rec", "--failpoint", Self.settleAnswer + "#1=kill"])
        let run = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/rec")) ?? []).first.map { d.path + "/rec/" + $0 })
        // The scenario file may change or go: the replay reads the run directory's copy.
        try FileManager.default.removeItem(atPath: file)
        let (status, out) = try harness(["replay", run, "--out", d.path + "/rep"])
        #expect(status == .exited(0), "\(out)")
        #expect(out.contains("recorded: violated: ") && out.contains("no-shield-after-settlement") && out.contains("reproduced"), "\(out)")
        let replayed = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/rep")) ?? []).first.map { d.path + "/rep/" + $0 })
        #expect(try history(replayed).contains { $0.event == "failpoint" && $0["label"] == Self.settleAnswer + "#1" })

        // Another build: the recorded ids no longer match this harness's.
        let historyPath = run + "/history.jsonl"
        let text = try String(contentsOfFile: historyPath, encoding: .utf8)
        let other = text.replacingOccurrences(of: #""build":"harness="#, with: #""build":"harness=00"#)
        #expect(other != text)
        try other.write(toFile: historyPath, atomically: true, encoding: .utf8)
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), ["replay", run, "--out", d.path + "/rep2"], captureStdout: true, stderrTo: -1)
        _ = p.readLine(timeout: .seconds(30))
        #expect(p.wait(timeout: .seconds(30)) == .exited(2))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/rep2")) ?? []).isEmpty, "nothing ran")
    }

    /// Four shards of `harness run --seeds 1-4`, as four harness processes at once (the last one's
    /// K from a Kubernetes Indexed Job's JOB_COMPLETION_INDEX), merged: the same testcases,
    /// verdicts and exit code as the unsharded run.
    @Test func fourShardsMergedEqualTheUnshardedRun() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let common = ["run", file, "--variant", "as-written", "--seeds", "1-4"]
        let (whole, wholeOut) = try harness(common + ["--out", d.path + "/whole", "--junit", d.path + "/whole.xml"])
        var shards: [ChildProcess] = []
        for k in 1...4 {
            var env = ProcessInfo.processInfo.environment
            env["JOB_COMPLETION_INDEX"] = String(k - 1)
            shards.append(try ChildProcess.spawn(
                try Executables.path(of: "harness"), common + ["--shard", k == 4 ? "auto/4" : "\(k)/4", "--out", d.path + "/shard\(k)"],
                environment: env))
        }
        for p in shards { while p.readLine(timeout: .seconds(120)) != nil {} ; _ = p.wait(timeout: .seconds(30)) ?? p.killAndReap() }
        for k in 1...4 {
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/shard\(k)")) ?? []).count == 1, "shard \(k) runs one seed")
        }
        let (merged, mergedOut) = try harness(["merge"] + (1...4).map { d.path + "/shard\($0)" } + ["--junit", d.path + "/merged.xml"])
        #expect(merged == whole, "unsharded:\n\(wholeOut)\nmerged:\n\(mergedOut)")
        let a = try Self.junitCases(d.path + "/whole.xml"), b = try Self.junitCases(d.path + "/merged.xml")
        #expect(a.count >= 4)
        #expect(a == b)
    }

    /// A JUnit file's testcases and failure messages, one line each, without times (the run
    /// directories differ between a sharded and an unsharded run; nothing else may).
    static func junitCases(_ path: String) throws -> [String] {
        let xml = try String(contentsOfFile: path, encoding: .utf8)
        return xml.split(separator: "\n").compactMap { line -> String? in
            let l = line.trimmingCharacters(in: .whitespaces)
            guard l.hasPrefix("<testcase") || l.hasPrefix("<failure") else { return nil }
            return l.replacingOccurrences(of: #" time="[^"]*""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #">.*"#, with: ">", options: .regularExpression)
        }
    }

    /// `harness explore` tries a point the other way when the user's retry choice came into play:
    /// the host killed inside the start tap is tapped again by default (`user_retry`), and run
    /// again with a user who does not tap again (`<i>-other-way`: the tap lost, `user_tap_lost`
    /// saying why, the run's `--user-retry never` on its rerun line). A point no tap is in is
    /// run once.
    @Test func explorationTriesAPointInTheUsersTapBothWays() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let sc = try ScenarioParser.load(path: file, systems: SystemRegistry.catalog)
        #expect(sc.retry == .always, "FocusPledge's user taps start again")
        let base = ScenarioRunner.Options(
            scenario: sc, scenarioPath: file, variant: .asWritten, seed: 1, durationOverride: nil, outputDirectory: d.path + "/explore",
            binDirectory: Executables.directory, progress: { _ in })
        let finding = try #require(CrashPointExplorer.explore(point: Self.secondKey + "#1", index: 0, base: base, keepPassingRuns: true))
        #expect(finding.detail.contains { $0.contains("--user-retry never") }, "\(finding.detail)")
        let first = try history(d.path + "/explore/1/" + (try FileManager.default.contentsOfDirectory(atPath: d.path + "/explore/1")).first { $0.hasPrefix("fp-") }!)
        #expect(first.first { $0.event == "run_started" }?["userRetry"] == "always")
        #expect(first.contains { $0.event == "user_retry" && $0["action"] == "start_session" })
        let otherDir = d.path + "/explore/1-other-way/"
        let other = try history(otherDir + (try FileManager.default.contentsOfDirectory(atPath: otherDir)).first { $0.hasPrefix("fp-") }!)
        let started = try #require(other.first { $0.event == "run_started" })
        #expect(started["userRetry"] == "never" && started["userRetryOverride"] == "never")
        #expect(started["command"]?.hasSuffix("--user-retry never") == true, "\(started["command"] ?? "")")
        #expect(!other.contains { $0.event == "user_retry" })
        let lost = try #require(other.first { $0.event == "user_tap_lost" })
        #expect(lost["action"] == "start_session" && lost["why"] == "the user does not tap again (user.retry: never)")
        // A kill in a heartbeat, no tap of the user's in it: one run.
        let beat = try #require(CrashPointExplorer.explore(
            point: "host-app:http.send:settlement-server POST /sessions/s-1-1/heartbeat#3", index: 1, base: base, keepPassingRuns: true))
        #expect(beat.verdict != .notReached && !beat.detail.contains { $0.contains("user-retry") }, "\(beat.verdict) \(beat.detail)")
        #expect(!FileManager.default.fileExists(atPath: d.path + "/explore/2-other-way"))
    }

    /// Four shards of `harness explore --max 8`, as four harness processes at once, merged from
    /// their records (the points that held left no run directory): the same crash-point rows,
    /// JUnit testcases and exit code as the unsharded explore. Three of the four shards, or the
    /// shards beside a run's output, are refused with one line (exit 2), nothing merged.
    @Test func fourExploreShardsMergedEqualTheUnshardedExplore() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let common = ["explore", file, "--variant", "as-written", "--max", "8"]
        let (whole, wholeOut) = try harness(common + ["--jobs", "2", "--out", d.path + "/whole", "--junit", d.path + "/whole.xml"])
        var shards: [ChildProcess] = []
        for k in 1...4 {
            shards.append(try ChildProcess.spawn(
                try Executables.path(of: "harness"), common + ["--shard", "\(k)/4", "--jobs", "1", "--out", d.path + "/shard\(k)"]))
        }
        for p in shards { while p.readLine(timeout: .seconds(120)) != nil {} ; _ = p.wait(timeout: .seconds(30)) ?? p.killAndReap() }
        let (merged, mergedOut) = try harness(["merge"] + (1...4).map { d.path + "/shard\($0)" } + ["--junit", d.path + "/merged.xml"])
        #expect(merged == whole, "unsharded:\n\(wholeOut)\nmerged:\n\(mergedOut)")
        /// The table's rows (point and outcome; not the wall time).
        func rows(_ out: String) -> [String] {
            out.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains(":") && !$0.contains("crash points") }
                .map { $0.split(separator: " ", omittingEmptySubsequences: true).dropLast().joined(separator: " ") }
        }
        #expect(rows(wholeOut).count == 8, "\(wholeOut)")
        #expect(rows(mergedOut) == rows(wholeOut), "unsharded:\n\(wholeOut)\nmerged:\n\(mergedOut)")
        let a = try Self.junitCases(d.path + "/whole.xml"), b = try Self.junitCases(d.path + "/merged.xml")
        #expect(a.filter { $0.hasPrefix("<testcase") }.count == 8)
        #expect(a == b)

        let partial = try HarnessReliabilityProcessTests.harness(["merge"] + [1, 2, 4].map { d.path + "/shard\($0)" })
        #expect(partial.status == .exited(2) && partial.stdout.isEmpty, "\(partial.stdout)")
        #expect(partial.stderr.split(separator: "\n").count == 1 && partial.stderr.contains("shard 3/4 missing"), "\(partial.stderr)")
        _ = try harness(["run", file, "--variant", "hardened", "--out", d.path + "/runs"])
        let mixed = try HarnessReliabilityProcessTests.harness(["merge", d.path + "/shard1", d.path + "/runs"])
        #expect(mixed.status == .exited(2) && mixed.stderr.contains("holds no exploration record"), "\(mixed.stderr)")
    }

    /// An explore killed outright (SIGKILL to it and its processes, as a CI runner's timeout
    /// does) after a few points, then `--resume`d: the points it appended to explore-points.jsonl
    /// are not explored again, the rest are, and the record is then complete — the same 30 points
    /// an uninterrupted explore takes, which `harness merge` accepts.
    @Test func anExploreKilledMidwayIsResumedWhereItStopped() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let common = ["explore", file, "--variant", "hardened", "--max", "30", "--jobs", "1"]
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), common + ["--out", d.path + "/x"])
        var dir: String?
        let deadline = ContinuousClock.now.advanced(by: .seconds(90))
        while ContinuousClock.now < deadline {
            if let name = ((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/x")) ?? []).first,
                let lines = try? String(contentsOfFile: d.path + "/x/" + name + "/" + ExploreRecord.pointsFileName, encoding: .utf8),
                lines.split(separator: "\n").count >= 3
            {
                dir = d.path + "/x/" + name
                break
            }
            usleep(20_000)
        }
        // Ctrl-C: the point under way is not recorded as decided, and the harness says how to go on.
        kill(p.pid, SIGINT)
        var said: [String] = []
        while let l = p.readLine(timeout: .seconds(60)) { said.append(l) }
        let status = p.wait(timeout: .seconds(30)) ?? p.killAndReap()
        #expect(status == .exited(130))
        let explore = try #require(dir, "no three points decided within 90 s")
        #expect(said.contains { $0.hasPrefix("interrupted (SIGINT):") && $0.contains("go on with --resume \(explore)") }, "\(said)")
        let before = try #require(try ExploreMerge.load(explore + "/" + ExploreRecord.fileName))
        #expect(!before.complete, "interrupted: the record is not complete")
        let decided = ExploreRecord.decidedPoints(record: before, directory: explore).filter { $0.value.verdict != .undecided }.count
        try #require(decided >= 3 && decided < 30, "\(decided) decided before the kill")

        let resumed = try HarnessReliabilityProcessTests.harness(common + ["--resume", explore])
        #expect(resumed.status == .exited(0), "\(resumed.stdout)\n\(resumed.stderr)")
        #expect(resumed.stdout.contains("30 of") && resumed.stdout.contains("(\(decided) decided before, \(30 - decided) now)"), "\(resumed.stdout)")
        let progressLines = resumed.stderr.split(separator: "\n").filter { $0.hasPrefix("  [") }
        #expect(progressLines.count == 30 - decided, "only the points not decided were explored:\n\(resumed.stderr)")
        let after = try ExploreMerge.load(explore + "/" + ExploreRecord.fileName)
        #expect(after.complete && after.points.count == 30 && after.points.allSatisfy { $0.verdict == "held" })
        #expect(after.chosen == Array(after.crashPoints.prefix(30)) && after.points.map(\.crashPoint) == after.chosen)
        let merged = try HarnessReliabilityProcessTests.harness(["merge", explore])
        #expect(merged.status == .exited(0) && merged.stdout.contains("30 held"), "\(merged.stdout)\n\(merged.stderr)")
    }

    /// `--fail-fast`: as-written violates at its first points here; with one run at a time the
    /// exploration starts no point after the first violation, exits 1, leaves a record that is not
    /// complete, and says how to go on; `--resume` (without it) explores the rest.
    @Test func failFastStopsAtTheFirstViolationAndResumeGoesOn() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let common = ["explore", file, "--variant", "as-written", "--max", "6", "--jobs", "1"]
        let first = try HarnessReliabilityProcessTests.harness(common + ["--fail-fast", "--out", d.path + "/x"])
        #expect(first.status == .exited(1), "\(first.stdout)\n\(first.stderr)")
        let name = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/x")) ?? []).first)
        let record = try ExploreMerge.load(d.path + "/x/" + name + "/" + ExploreRecord.fileName)
        #expect(record.points.count == 1 && record.points[0].verdict == "violated" && !record.complete, "\(first.stdout)")
        #expect(first.stdout.contains("stopped at a violation (--fail-fast): 5 point(s) not explored; go on with --resume"), "\(first.stdout)")
        let rest = try HarnessReliabilityProcessTests.harness(common + ["--resume", d.path + "/x/" + name])
        #expect(rest.stdout.contains("6 of") && rest.stdout.contains("(1 decided before, 5 now)"), "\(rest.stdout)\n\(rest.stderr)")
        #expect(try ExploreMerge.load(d.path + "/x/" + name + "/" + ExploreRecord.fileName).complete)
        // Complete: resuming again runs nothing (no second enumeration) and says what it found.
        let enumerations = try FileManager.default.contentsOfDirectory(atPath: d.path + "/x/" + name + "/enumeration").count
        let again = try HarnessReliabilityProcessTests.harness(common + ["--resume", d.path + "/x/" + name])
        #expect(again.status == .exited(1) && again.stdout.contains("that exploration is complete (6 of"), "\(again.stdout)\n\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path + "/x/" + name + "/enumeration").count == enumerations)
    }

    /// `harness explore --max 3`: the enumeration run, then one run killed at each of the first
    /// three crash points, each reached; a table row and a JUnit testcase per point, the rate
    /// printed; the exit code says whether any violated.
    @Test func exploreKillsAtEachOfTheFirstPointsAndReports() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let (status, out) = try harness([
            "explore", file, "--variant", "hardened", "--max", "3", "--jobs", "1", "--out", d.path + "/x", "--junit", d.path + "/j.xml",
        ])
        let explore = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/x")) ?? []).first.map { d.path + "/x/" + $0 })
        let enumeration = try #require(((try? FileManager.default.contentsOfDirectory(atPath: explore + "/enumeration")) ?? []).first)
        let points = try String(contentsOfFile: explore + "/enumeration/" + enumeration + "/crashpoints.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        try #require(points.count > 3)
        let rows = out.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains(":") && !$0.contains("crash points explored") }
        #expect(rows.count == 3, "\(out)")
        for (row, point) in zip(rows, points.prefix(3)) {
            #expect(row.contains(point), "\(row) is not \(point)")
            #expect(!row.contains("not reached") && !row.contains("undecided"), "\(row)")
        }
        #expect(out.contains("3 of \(points.count) crash points explored") && out.contains("crash points per minute"), "\(out)")
        let anyViolated = rows.contains { $0.contains("violated") }
        #expect(status == .exited(anyViolated ? 1 : 0), "\(out)")
        let junit = try String(contentsOfFile: d.path + "/j.xml", encoding: .utf8)
        #expect(junit.contains("tests=\"3\""))
        #expect(junit.contains(points[0].replacingOccurrences(of: "&", with: "&amp;")))
    }

    /// `harness bench explore`: the explore rate beside its bound measured in the same run — one
    /// run's CPU time, which must have been measured (not zero), and every figure derived from it
    /// as printed: bound = CPUs x 60 / CPU-s, efficiency = rate / bound, target = CPUs x 60 / 1000.
    @Test func benchExploreMeasuresTheRateBesideOneRunsCPUTime() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let (status, out) = try harness([
            "bench", "explore", "--scenario", file, "--variant", "hardened", "--points", "2", "--jobs", "1", "--out", d.path + "/b", "--json",
        ])
        #expect(status == .exited(0), "\(out)")
        let r = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
        let cpus = try #require(r["cpus"] as? Int), cpu = try #require(r["baselineRunCPUSeconds"] as? Double)
        let rate = try #require(r["pointsPerMinute"] as? Double), ideal = try #require(r["idealPointsPerMinute"] as? Double)
        #expect(r["explored"] as? Int == 2 && r["held"] as? Int == 2 && (r["crashPoints"] as? Int ?? 0) > 2, "\(out)")
        #expect(cpu > 0.01 && cpu < 60, "one run's CPU time: \(cpu) s")
        #expect((r["cpuSecondsPerPoint"] as? Double ?? 0) > 0.01)
        #expect(abs(ideal - Double(cpus) * 60 / cpu) < 1e-6 * ideal)
        #expect(rate > 0 && abs((r["efficiency"] as? Double ?? 0) - rate / ideal) < 1e-9)
        #expect(abs((r["targetCPUSecondsPerRun"] as? Double ?? 0) - Double(cpus) * 60 / 1000) < 1e-12)
    }

    /// The points run every label's first pass first, then the second passes, …: the progress
    /// lines (one per point, as it is decided; one run at a time) go round by round, while the
    /// table and the record list the same points in the run's order.
    @Test func exploreRunsEveryLabelsFirstPassFirst() throws {
        let d = try HarnessRunProcessTests.Dir()
        // Pushin's seed test: a label's second pass (point 8) comes before another's first (point 9).
        let file = "Sources/Systems/Pushin/scenarios/pushin-seed-shield-triggers-notification.yaml"
        let run = try HarnessReliabilityProcessTests.harness(["explore", file, "--variant", "hardened", "--max", "10", "--jobs", "1", "--out", d.path + "/x"])
        #expect(run.status == .exited(0), "\(run.stderr)")
        let ran = run.stderr.split(separator: "\n").filter { $0.hasPrefix("  [") }.compactMap { line -> String? in
            guard let close = line.firstIndex(of: "]"), let colon = line.range(of: ": ", options: .backwards, range: close..<line.endIndex) else { return nil }
            return String(line[line.index(close, offsetBy: 2)..<colon.lowerBound])
        }
        let name = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/x")) ?? []).first)
        let record = try ExploreMerge.load(d.path + "/x/" + name + "/" + ExploreRecord.fileName)
        let table = record.points.map(\.crashPoint)
        try #require(ran.count == 10 && table == record.chosen && table.count == 10, "\(run.stderr)\n\(run.stdout)")
        let rows = run.stdout.split(separator: "\n").filter { $0.first?.isNumber == true && !$0.contains("crash points") }
        #expect(zip(rows, table).allSatisfy { $0.0.contains($0.1) }, "the table in the run's order:\n\(run.stdout)")
        #expect(Set(ran) == Set(table))
        let passes = ran.map { Int($0.split(separator: "#").last ?? "") ?? 0 }
        #expect(passes == passes.sorted(), "round by round: \(ran)")
        #expect(passes != table.map { Int($0.split(separator: "#").last ?? "") ?? 0 }, "the run's order has later passes between first ones: \(table)")
    }

    /// `--jobs 3`: runs go at once and finish in any order, but the table and the JUnit list the
    /// points in the run's order, each killed at its own point (its run directory's failpoint line).
    @Test func exploreWithSeveralJobsReportsThePointsInTheRunsOrder() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let errFd = open(d.path + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(errFd >= 0)
        let (status, out) = try harness([
            "explore", file, "--variant", "hardened", "--max", "5", "--jobs", "3", "--keep-runs", "--out", d.path + "/x", "--junit", d.path + "/j.xml",
        ], stderrTo: errFd)
        close(errFd)
        // The progress: "then 3 runs at once", one line per point as it is decided, counting up,
        // with the rate and, but for the last, the time left.
        let err = try String(contentsOfFile: d.path + "/stderr.txt", encoding: .utf8)
        #expect(err.contains("then 3 runs at once"), "\(err)")
        let progress = err.split(separator: "\n").filter { $0.hasPrefix("  [") }
        #expect(progress.map { $0.split(separator: "]").first.map(String.init) } == (1...5).map { "  [\($0)/5" }, "\(err)")
        #expect(progress.dropLast().allSatisfy { $0.contains("points/min, ~") && $0.hasSuffix(" left") }, "\(err)")
        #expect(progress.last.map { $0.hasSuffix("points/min") } == true, "\(err)")
        let explore = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/x")) ?? []).first.map { d.path + "/x/" + $0 })
        let enumeration = try #require(((try? FileManager.default.contentsOfDirectory(atPath: explore + "/enumeration")) ?? []).first)
        let points = try String(contentsOfFile: explore + "/enumeration/" + enumeration + "/crashpoints.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        try #require(points.count > 5)
        #expect(out.contains("5 of \(points.count) crash points explored"), "\(out)")
        let rows = out.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains(":") && !$0.contains("crash points explored") }
        #expect(rows.count == 5, "\(out)")
        for (i, (row, point)) in zip(rows, points.prefix(5)).enumerated() {
            #expect(row.hasPrefix("\(i + 1) ") && row.contains(point), "\(row) is not \(i + 1): \(point)")
            #expect(row.contains("held") || row.contains("violated"), "\(row)")
            // The run kept under <explore>/<i+1>/ is the one killed at this point.
            let runs = (try? FileManager.default.contentsOfDirectory(atPath: explore + "/\(i + 1)")) ?? []
            let run = try #require(runs.first, "no run directory for point \(i + 1)")
            let h = try history(explore + "/\(i + 1)/" + run)
            #expect(h.contains { $0.event == "failpoint" && $0.fields["label"] == point }, "run \(i + 1) was not killed at \(point)")
            #expect(FileManager.default.fileExists(atPath: explore + "/\(i + 1)/" + run + "/report.html"), "a kept run has its page")
        }
        let junit = try String(contentsOfFile: d.path + "/j.xml", encoding: .utf8)
        let order = points.prefix(5).compactMap { junit.range(of: "name=\"\($0.replacingOccurrences(of: "&", with: "&amp;"))\"")?.lowerBound }
        #expect(order.count == 5 && order == order.sorted(), "JUnit testcases not in the run's order")
        #expect(status == .exited(rows.contains { $0.contains("violated") } ? 1 : 0), "\(out)")
    }

    /// `--each-label-once`: one run per label, at its first pass — every kind of point of the
    /// run, each reached, in the run's order.
    @Test func exploreEachLabelOnceTakesEveryLabelsFirstPass() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("fp.yaml", Self.scenario)
        let (status, out) = try harness(["explore", file, "--variant", "hardened", "--each-label-once", "--jobs", "2", "--out", d.path + "/x"])
        let explore = try #require(((try? FileManager.default.contentsOfDirectory(atPath: d.path + "/x")) ?? []).first.map { d.path + "/x/" + $0 })
        let enumeration = try #require(((try? FileManager.default.contentsOfDirectory(atPath: explore + "/enumeration")) ?? []).first)
        let points = try String(contentsOfFile: explore + "/enumeration/" + enumeration + "/crashpoints.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let labels = points.map { String($0[..<$0.lastIndex(of: "#")!]) }
        var seen = Set<String>()
        let firsts = zip(points, labels).filter { seen.insert($0.1).inserted }.map(\.0)
        try #require(firsts.count < points.count, "the scenario passes some label more than once")
        #expect(firsts.allSatisfy { $0.hasSuffix("#1") })
        let rows = out.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains(":") && !$0.contains("crash points explored") }
        #expect(rows.count == firsts.count, "\(out)")
        for (row, point) in zip(rows, firsts) {
            #expect(row.contains(point + " "), "\(row) is not \(point)")
            #expect(!row.contains("not reached") && !row.contains("undecided"), "\(row)")
        }
        #expect(out.contains("each label's first pass: \(firsts.count) of them"), "\(out)")
        #expect(out.contains("\(firsts.count) of \(points.count) crash points explored"), "\(out)")
        #expect(status == .exited(rows.contains { $0.contains("violated") } ? 1 : 0), "\(out)")
    }
}
