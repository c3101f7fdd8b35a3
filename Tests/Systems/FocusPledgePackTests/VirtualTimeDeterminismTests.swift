import Foundation
import HarnessKit
import History
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Virtual time: the same scenario, seed and build give the same history — apart from wall
/// stamps, pids and paths — with the nemesis on, in both variants.
@Suite(.serialized, .timeLimit(.minutes(3))) struct VirtualTimeDeterminismTests {
    static let scenario = """
        name: determinism
        system: focuspledge
        clock: { mode: virtual, rate: 900, start: "2026-02-17T23:10:00Z", timeZone: "Europe/Berlin" }
        duration: 90m
        settle: 30m
        workload:
          blockedApps: [com.social.feed, com.video.shorts]
          sessions: { durationMinutes: [15, 30], gapMinutes: [1, 5] }
          violations: { probability: 0.7, kinds: [open_blocked_app, press_shield_button], maxPerSession: 2 }
          stopSessionProbability: 0.2
        nemesis:
          intervalMillis: [30, 90]
          actions: { kill: 0.5, term: 0.1, stop: 0.4 }
          stopMillis: [20, 250]
          restartDelayMillis: [10, 300]
        server: { staleAfterMinutes: 10 }
        """

    func run(_ dir: String, _ scenario: String, variant: String, seed: Int, cpu: String = "auto") throws -> (String, Int32?) {
        let out = dir + "/out-\(variant)-\(seed)-\(UUID().uuidString.prefix(6))"
        var environment = ProcessInfo.processInfo.environment
        environment[CPUPinning.environmentVariable] = cpu
        let p = try ChildProcess.spawn(
            try Executables.path(of: "harness"), ["run", scenario, "--variant", variant, "--seed", String(seed), "--out", out],
            environment: environment, captureStdout: true, stderrTo: -1)
        while p.readLine(timeout: .seconds(120)) != nil {}
        let status = p.wait(timeout: .seconds(60)) ?? p.killAndReap()
        let runs = try FileManager.default.contentsOfDirectory(atPath: out)
        let run = try #require(runs.first)
        guard case .exited(let code)? = status else { return (out + "/" + run, nil) }
        return (out + "/" + run, code)
    }

    /// App code that serializes a dictionary writes the same bytes in every run: Until's seed
    /// stores its event with `JSONSerialization` of a `[String: Any]`, whose key order followed
    /// each process's random hashing seed, so no two runs of a seed agreed (every run of the
    /// four Until scenarios as-written). The stand-ins hash deterministically (EMULATED-IOS.md §7.8).
    @Test func aSeedThatSerializesADictionaryGivesTheSameHistoryEveryRun() throws {
        let dir = NSTemporaryDirectory() + "sth-determinism-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = "Sources/Systems/Until/scenarios/until.yaml"
        let (a, codeA) = try run(dir, scenario, variant: "as-written", seed: 1)
        let (b, codeB) = try run(dir, scenario, variant: "as-written", seed: 1)
        #expect(codeA == codeB && codeA != nil && codeA != 2)
        let historyA = try HistoryNormalizer.normalize(runDirectory: a)
        let historyB = try HistoryNormalizer.normalize(runDirectory: b)
        #expect(historyA.contains { $0.contains("\"v.lastAppOpenedEvent\"") }, "the seed wrote its event")
        let i = (0..<min(historyA.count, historyB.count)).first { historyA[$0] != historyB[$0] } ?? min(historyA.count, historyB.count)
        #expect(historyA.count == historyB.count && i == historyA.count,
            "the runs differ at line \(i + 1): \(i < historyA.count ? historyA[i] : "(end)") / \(i < historyB.count ? historyB[i] : "(end)")")
    }

    @Test(arguments: [("hardened", 3), ("as-written", 3), ("hardened", 8), ("as-written", 8)])
    func twoRunsGiveTheSameNormalizedHistory(variant: String, seed: Int) throws {
        let dir = NSTemporaryDirectory() + "sth-determinism-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = dir + "/determinism.yaml"
        try Self.scenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        // One run on one CPU (the default, CPUPinning), the other where the scheduler puts it.
        let (a, codeA) = try run(dir, scenario, variant: variant, seed: seed)
        let (b, codeB) = try run(dir, scenario, variant: variant, seed: seed, cpu: "off")
        #expect(codeA == codeB && codeA != nil && codeA != 2)
        let historyA = try HistoryNormalizer.normalize(runDirectory: a)
        let historyB = try HistoryNormalizer.normalize(runDirectory: b)
        #expect(historyA.count > 100, "a real run: \(historyA.count) lines")
        let events = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: a + "/history.jsonl"))).events
        let startedB = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: b + "/history.jsonl"))).events.first
        #expect(startedB?.event == "run_started" && startedB?["cpu"] == nil, "HARNESS_CPU=off: not pinned")
        if CPUPinning.allowedCPUs().count >= 2 {
            let cpu = try #require(events.first?["cpu"].flatMap { Int32($0) }, "pinned: run_started says where")
            #expect(CPUPinning.allowedCPUs().contains(cpu))
        }
        #expect(events.filter { $0["by"] == "nemesis" }.count > 5, "the nemesis was on")
        #expect(!events.contains { $0.event == "quiescence_timeout" })
        // A planned SIGKILL of a long-lived process at a quiescent instant: its exit is the
        // harness's next event (recorded at the kill, not when the kernel finished tearing it
        // down), after the record of the signal.
        let harness = events.filter { $0.process == "harness" }
        let kills = harness.indices.filter { harness[$0].event == "signal" && harness[$0]["signal"] == "KILL" && harness[$0]["by"] == "nemesis"
            && ["host-app", "settlement-server"].contains(harness[$0]["target"] ?? "") }
        #expect(!kills.isEmpty, "the nemesis killed something")
        for i in kills {
            let next = harness.indices.contains(i + 1) ? harness[i + 1] : nil
            #expect(next?.event == "exit" && next?["childPid"] == harness[i]["childPid"] && next?["status"] == "signal 9",
                "kill of \(harness[i]["target"] ?? "?") pid \(harness[i]["childPid"] ?? "?") followed by \(next?.event ?? "nothing")")
        }
        if historyA != historyB {
            let firstDiff = zip(historyA, historyB).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record("histories differ (\(historyA.count) vs \(historyB.count) lines); first difference at line \(firstDiff?.offset ?? min(historyA.count, historyB.count)):\n\(firstDiff?.element.0 ?? "-")\n\(firstDiff?.element.1 ?? "-")")
        }
    }

    /// The harness itself SIGSTOPped for longer than its 5 s quiescence bound mid-run (a paused CI
    /// runner, a closed laptop lid): its wall bounds count only the time it ran, so the history is
    /// the one an unstopped run of the same seed writes, and the gap is said beside it.
    @Test func aHarnessStoppedMidRunWritesTheSameHistory() throws {
        let dir = NSTemporaryDirectory() + "sth-determinism-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The bundled scenario's settlement heartbeats: a stop there, before this was fixed, ended
        // in a quiescence_timeout and 9 heartbeats missing (found at ~60% of the run).
        let scenario = "Sources/Systems/FocusPledge/scenarios/focuspledge.yaml"
        let (a, codeA) = try run(dir, scenario, variant: "hardened", seed: 1)
        let linesA = try String(contentsOfFile: a + "/history.jsonl", encoding: .utf8).split(separator: "\n").count

        let out = dir + "/stopped"
        let logPath = dir + "/stopped.log"
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(log) }
        let p = try ChildProcess.spawn(
            try Executables.path(of: "harness"), ["run", scenario, "--variant", "hardened", "--seed", "1", "--out", out],
            captureStdout: false, stdoutTo: log, stderrTo: log)
        // Stop it once the run is well under way.
        let began = Date()
        func historyLines() -> Int {
            guard let run = try? FileManager.default.contentsOfDirectory(atPath: out).first,
                let data = FileManager.default.contents(atPath: out + "/" + run + "/history.jsonl")
            else { return 0 }
            return data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        while historyLines() < linesA * 6 / 10 && Date().timeIntervalSince(began) < 60 { usleep(2_000) }
        #expect(kill(p.pid, SIGSTOP) == 0)
        usleep(7_000_000)
        #expect(kill(p.pid, SIGCONT) == 0)
        let status = p.wait(timeout: .seconds(120)) ?? p.killAndReap()
        #expect(status == codeA.map { .exited($0) })
        let b = out + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: out).first))
        let printed = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(printed.contains("note: the harness was not running for"), "\(printed.suffix(600))")
        let historyA = try HistoryNormalizer.normalize(runDirectory: a)
        let historyB = try HistoryNormalizer.normalize(runDirectory: b)
        let eventsB = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: b + "/history.jsonl"))).events
        #expect(!eventsB.contains { $0.event == "quiescence_timeout" })
        if historyA != historyB {
            let firstDiff = zip(historyA, historyB).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record("histories differ (\(historyA.count) vs \(historyB.count) lines); first difference at line \(firstDiff?.offset ?? min(historyA.count, historyB.count)):\n\(firstDiff?.element.0 ?? "-")\n\(firstDiff?.element.1 ?? "-")")
        }
    }
}
