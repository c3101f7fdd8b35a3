import Foundation
import HarnessKit
import Supervision
import Testing

/// `--in-process extensions`: the extension calls run inside the harness, a thread each, and the
/// run is the same run — the same crash points in the same order, the same history (`harness
/// normalize`, but for the command line), the same verdict — with the process kills included: a
/// failpoint's kill of an in-process extension where it holds the App Group's flock.
@Suite(.serialized, .timeLimit(.minutes(3))) struct InProcessExtensionTests {
    typealias Dir = HarnessRunProcessTests.Dir

    /// Two sessions, a violation of each kind in each (the shield extensions called); the nemesis
    /// may kill or stop the host.
    static let scenario = """
        name: inproc
        system: focuspledge
        clock: { start: "2026-02-17T08:00:00Z", timeZone: "Europe/Berlin" }
        duration: 40m
        settle: 20m
        workload:
          blockedApps: [com.social.feed]
          sessions: { durationMinutes: [15, 15], gapMinutes: [2, 2] }
          violations: { probability: 1.0, kinds: [open_blocked_app, press_shield_button], maxPerSession: 2 }
        nemesis:
          enabled: true
          intervalMillis: [200, 400]
          actions: { kill: 0.6, stop: 0.4 }
          stopMillis: [20, 100]
          restartDelayMillis: [10, 100]
          targets: [host-app, monitor-extension, shield-action-extension, shield-configuration-extension]
        server: { staleAfterMinutes: 15 }
        """

    /// The run's normalized history without its `run_started` line (which names the command).
    func normalized(_ runRoot: String) throws -> [String] {
        let f = try HarnessReliabilityProcessTests.harness(["normalize", try runDirectory(runRoot)])
        #expect(f.status == .exited(0), "\(f.stderr)")
        return f.stdout.split(separator: "\n").map(String.init).filter { !$0.contains("\"event\":\"run_started\"") }
    }

    /// The one run directory under `root`.
    func runDirectory(_ root: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: root).filter { !$0.hasPrefix(".") && $0 != "index.html" }
        #expect(names.count == 1, "\(names)")
        return root + "/" + (try #require(names.first))
    }

    func crashPoints(_ runRoot: String) throws -> [String] {
        let run = try runDirectory(runRoot)
        return try String(contentsOfFile: run + "/crashpoints.txt", encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func run(_ d: Dir, _ file: String, _ name: String, _ extra: [String]) throws -> HarnessReliabilityProcessTests.Finished {
        try HarnessReliabilityProcessTests.harness(["run", file, "--variant", "hardened", "--seed", "3", "--out", d.path + "/" + name] + extra)
    }

    /// The bundled scenario (3 device hours, 44 faults of the nemesis — extension calls killed at
    /// launch among them — 14 extension calls, 1,454 crash points).
    @Test func anInProcessRunIsTheSameRunAsOneWithProcesses() throws {
        let d = try Dir()
        let file = "Sources/Systems/FocusPledge/scenarios/focuspledge.yaml"
        let real = try run(d, file, "real", ["--crash-points"])
        let inProcess = try run(d, file, "inproc", ["--crash-points", "--in-process", "extensions"])
        #expect(real.status == .exited(0) && inProcess.status == .exited(0), "\(real.stdout)\n\(inProcess.stdout)")
        let points = try crashPoints(d.path + "/real")
        // The extensions did run, and were killed by the nemesis: the comparison covers both.
        for role in ["monitor-extension", "shield-action-extension", "shield-configuration-extension"] {
            #expect(points.contains { $0.hasPrefix(role + ":") }, "\(role)")
        }
        let history = try normalized(d.path + "/real")
        #expect(history.contains { $0.contains("\"signal\":\"KILL\"") && $0.contains("extension") })
        #expect(try crashPoints(d.path + "/inproc") == points)
        #expect(try normalized(d.path + "/inproc") == history)
        // In-process calls are told apart in the history by their pid, above any real one.
        #expect(try String(contentsOfFile: try runDirectory(d.path + "/inproc") + "/history.jsonl", encoding: .utf8)
            .contains("\"childPid\":\"\(1 << 23)"))
    }

    /// Killed at its App Group write — inside the suite's flock — the in-process extension releases
    /// the lock as the kernel does for a process, so the host's next write is not held up.
    @Test func aFailpointKillOfAnInProcessExtensionInsideTheSuiteLockIsAProcessKill() throws {
        let d = try Dir()
        let file = try d.write("inproc.yaml", Self.scenario)
        let point = "shield-configuration-extension:defaults:group.com.focuspledge.shared/focuspledge_failure#1=kill"
        let real = try run(d, file, "real", ["--failpoint", point])
        let inProcess = try run(d, file, "inproc", ["--failpoint", point, "--in-process", "extensions"])
        #expect(real.status == inProcess.status, "\(real.stdout)\n\(inProcess.stdout)")
        let history = try normalized(d.path + "/real")
        #expect(history.contains { $0.contains("\"event\":\"failpoint\"") && $0.contains("focuspledge_failure#1") }, "\(history.filter { $0.contains("failpoint") })")
        #expect(try normalized(d.path + "/inproc") == history)
        #expect(!history.contains { $0.contains("lockTimeout") || $0.contains("store_error") })
    }

    @Test func whatCannotRunInProcessIsRefusedWithOneLine() throws {
        let d = try Dir()
        let file = try d.write("inproc.yaml", Self.scenario)
        let bogus = try HarnessReliabilityProcessTests.harness(["run", file, "--in-process", "everything", "--out", d.path + "/o"])
        #expect(bogus.status == .exited(2))
        #expect(bogus.stderr.contains("--in-process everything: takes none or extensions"))
        let term = try HarnessReliabilityProcessTests.harness([
            "run", file, "--in-process", "extensions", "--failpoint", "host-app:step:x#1=term", "--out", d.path + "/o",
        ])
        #expect(term.status == .exited(2))
        #expect(term.stderr.contains("signals its process (term, stop)"), "\(term.stderr)")
        let rally = try HarnessReliabilityProcessTests.harness(["explore", "Sources/Systems/Rally/scenarios/rally.yaml", "--in-process", "extensions"])
        #expect(rally.status == .exited(2))
        #expect(rally.stderr.contains("rally's returner (sth-rally) cannot run inside the harness"), "\(rally.stderr)")
        let fixed = try d.write("fixed.yaml", Self.scenario.replacingOccurrences(of: "timeZone: \"Europe/Berlin\" }", with: "timeZone: \"Europe/Berlin\", mode: fixed }"))
        let f = try HarnessReliabilityProcessTests.harness(["run", fixed, "--in-process", "extensions", "--out", d.path + "/o"])
        #expect(f.status == .exited(2))
        #expect(f.stderr.contains("needs virtual time"), "\(f.stderr)")
    }
}
