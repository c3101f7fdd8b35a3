@testable import FocusPledgePack
import Foundation
import History
import Supervision
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `harness run` as a user runs it: a real harness process starting real stand-ins.
@Suite(.serialized, .timeLimit(.minutes(3))) struct HarnessRunProcessTests {
    static let shortScenario = """
        name: short
        system: focuspledge
        variants: [as-written, hardened]
        clock: { rate: 1200, start: "2026-02-17T08:00:00Z", timeZone: "UTC" }
        duration: 50m
        workload:
          blockedApps: [com.social.feed]
          sessions: { durationMinutes: [15, 20], gapMinutes: [1, 3] }
          violations: { probability: 1.0, kinds: [open_blocked_app, press_shield_button], maxPerSession: 1 }
        nemesis:
          intervalMillis: [30, 60]
          actions: { kill: 0.5, term: 0.1, stop: 0.4 }
          stopMillis: [10, 100]
          restartDelayMillis: [10, 150]
          targets: [host-app, settlement-server, monitor-extension, shield-action-extension]
        server: { staleAfterMinutes: 15 }
        """

    final class Dir {
        struct Failure: Error, CustomStringConvertible {
            let description: String
            init(_ d: String) { description = d }
        }
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "sth-run-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ text: String) throws -> String {
            let p = path + "/" + name
            try text.write(toFile: p, atomically: true, encoding: .utf8)
            return p
        }
        func runDirectories() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path + "/out")) ?? []).sorted().map { path + "/out/" + $0 }
        }
    }

    func harness(_ args: [String]) throws -> (ChildProcess.ExitStatus?, String) {
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), args)
        var out: [String] = []
        while let l = p.readLine(timeout: .seconds(120)) { out.append(l) }
        return (p.wait(timeout: .seconds(30)) ?? p.killAndReap(), out.joined(separator: "\n"))
    }

    @Test func hardenedRunHoldsUnderChaosAndIsRecorded() throws {
        let d = try Dir()
        let scenario = try d.write("short.yaml", Self.shortScenario)
        let (status, out) = try harness(["run", scenario, "--variant", "hardened", "--seed", "7", "--out", d.path + "/out", "--junit", d.path + "/junit.xml"])
        #expect(status == .exited(0), "harness said:\n\(out)")
        let run = try #require(d.runDirectories().first)
        let history = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: run + "/history.jsonl"))).events
        let signals = history.filter { $0.event == "signal" && $0["by"] == "nemesis" && $0["signal"] != "CONT" }
        #expect(signals.count >= 10, "only \(signals.count) faults injected")
        #expect(history.contains { $0.process == "host-app" && $0.event == "session_started" })
        #expect(history.contains { $0.event == "ledger" })
        #expect(history.last?.event == "run_finished" || history.contains { $0.event == "run_finished" })
        let junit = try String(contentsOfFile: d.path + "/junit.xml", encoding: .utf8)
        #expect(junit.contains("tests=\"1\"") && junit.contains("failures=\"0\""))
    }

    @Test func sameSeedSameSchedule() throws {
        let d = try Dir()
        let scenario = try d.write("short.yaml", Self.shortScenario)
        for _ in 0..<2 {
            _ = try harness(["run", scenario, "--variant", "hardened", "--seed", "11", "--duration", "20m", "--out", d.path + "/out"])
        }
        let runs = d.runDirectories()
        try #require(runs.count == 2)
        let a = try Data(contentsOf: URL(fileURLWithPath: runs[0] + "/schedule.json"))
        let b = try Data(contentsOf: URL(fileURLWithPath: runs[1] + "/schedule.json"))
        #expect(a == b)
        #expect(a.count > 100)
    }

    @Test func malformedScenarioIsAOneLineErrorWithExitTwo() throws {
        let d = try Dir()
        let scenario = try d.write("bad.yaml", Self.shortScenario.replacingOccurrences(of: "duration: 50m", with: "duration: 50m\nbogus: 1"))
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), ["run", scenario, "--out", d.path + "/out"], captureStdout: true, stderrTo: -1)
        _ = p.readLine(timeout: .seconds(30))
        #expect(p.wait(timeout: .seconds(30)) == .exited(2))
        #expect(d.runDirectories().isEmpty)
    }

    /// The harness SIGKILLed mid-run: every stand-in it started dies with it (PR_SET_PDEATHSIG).
    @Test func everyChildDiesWhenTheHarnessIsKilled() throws {
        let d = try Dir()
        let scenario = try d.write("long.yaml", Self.shortScenario.replacingOccurrences(of: "duration: 50m", with: "duration: 20h"))
        let h = try ChildProcess.spawn(try Executables.path(of: "harness"), ["run", scenario, "--variant", "hardened", "--out", d.path + "/out"], captureStdout: true)
        defer { h.killAndReap() }
        // Wait until it has started children, then collect every pid it ever spawned.
        var pids: Set<Int32> = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            if let run = d.runDirectories().first, let data = FileManager.default.contents(atPath: run + "/trace/harness.jsonl") {
                let events = HistoryEvent.parse(jsonl: data).events
                pids = Set(events.filter { $0.event == "spawn" || $0.event == "callback_delivered" }.compactMap { $0["childPid"].flatMap { Int32($0) } })
                if events.contains(where: { $0.event == "callback_delivered" }) && pids.count >= 3 { break }
            }
            usleep(50_000)
        }
        #expect(pids.count >= 3, "harness did not start its children")
        h.signal(SIGKILL)
        #expect(h.wait(timeout: .seconds(5)) == .signalled(SIGKILL))
        // A zombie (killed, not yet reaped by whoever inherited it) is dead too.
        func alive(_ pid: Int32) -> Bool {
            guard kill(pid, 0) == 0 else { return false }
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            guard let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(close, offsetBy: 2)] != "Z"
        }
        let gone = (0..<200).contains { _ in
            usleep(10_000)
            return !pids.contains(where: alive)
        }
        let alive = pids.filter(alive)
        #expect(gone, "still alive after the harness died: \(alive)")
    }
}
