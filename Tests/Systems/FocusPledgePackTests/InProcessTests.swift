import Foundation
import HarnessKit
import History
import Supervision
import Testing

/// `--in-process`: the stand-ins run inside the harness — each on a thread that runs only while
/// the harness gives it a turn — and the run is the same run: the same crash points in the same
/// order, the same history (`harness normalize`, but for the command line), the same verdict.
/// With processes' kills and exits included: a failpoint's kill where a stand-in holds the App
/// Group's flock, the server's journal lock given up at a TERM, a host killed mid-request.
@Suite(.serialized, .timeLimit(.minutes(5))) struct InProcessTests {
    typealias Dir = HarnessRunProcessTests.Dir
    typealias Finished = HarnessReliabilityProcessTests.Finished

    static let bundled = "Sources/Systems/FocusPledge/scenarios/focuspledge.yaml"

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

    func harness(_ args: [String]) throws -> Finished { try HarnessReliabilityProcessTests.harness(args) }

    /// The one run directory under `root`.
    func runDirectory(_ root: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: root).filter { !$0.hasPrefix(".") && $0 != "index.html" }
        #expect(names.count == 1, "\(names)")
        return root + "/" + (try #require(names.first))
    }

    /// The run's normalized history without its `run_started` line (which names the command).
    func normalized(_ runRoot: String) throws -> [String] {
        let f = try harness(["normalize", try runDirectory(runRoot)])
        #expect(f.status == .exited(0), "\(f.stderr)")
        return f.stdout.split(separator: "\n").map(String.init).filter { !$0.contains("\"event\":\"run_started\"") }
    }

    /// Where two normalized histories part: the first line that differs, with its neighbours (an
    /// equality of 700 lines said only "false").
    static func firstDifference(_ a: [String], _ b: [String]) -> String {
        guard let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? (a.count == b.count ? nil : min(a.count, b.count)) else {
            return "the same"
        }
        func around(_ x: [String]) -> String { x[max(0, i - 2)..<min(x.count, i + 3)].joined(separator: "\n    ") }
        return "line \(i + 1) of \(a.count) / \(b.count):\n  in process:\n    \(around(a))\n  processes:\n    \(around(b))"
    }

    func crashPoints(_ runRoot: String) throws -> [String] {
        try String(contentsOfFile: try runDirectory(runRoot) + "/crashpoints.txt", encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func run(_ d: Dir, _ file: String, _ name: String, variant: String = "hardened", seed: Int = 1, _ extra: [String]) throws -> Finished {
        try harness(["run", file, "--variant", variant, "--seed", String(seed), "--out", d.path + "/" + name] + extra)
    }

    /// The bundled scenario (3 device hours; 44 faults of the nemesis, the server's 14 restarts,
    /// extension calls killed at launch among them; 14 extension calls; 1,454 crash points) in each
    /// scope: extensions, then the device's processes, then everything — the server too.
    @Test(arguments: ["extensions", "device", "all"])
    func anInProcessRunIsTheSameRunAsOneWithProcesses(scope: String) throws {
        let d = try Dir()
        let real = try run(d, Self.bundled, "real", ["--crash-points"])
        let inProcess = try run(d, Self.bundled, "inproc", ["--crash-points", "--in-process", scope])
        #expect(real.status == .exited(0) && inProcess.status == .exited(0), "\(real.stdout)\n\(inProcess.stdout)")
        let points = try crashPoints(d.path + "/real")
        for role in ["host-app", "monitor-extension", "shield-action-extension", "shield-configuration-extension"] {
            #expect(points.contains { $0.hasPrefix(role + ":") }, "\(role)")
        }
        let history = try normalized(d.path + "/real")
        #expect(history.contains { $0.contains("\"signal\":\"KILL\"") && $0.contains("settlement-server") })
        #expect(try crashPoints(d.path + "/inproc") == points)
        #expect(try normalized(d.path + "/inproc") == history)
        // In-process stand-ins are told apart in the history by their pid, above any real one.
        let raw = try String(contentsOfFile: try runDirectory(d.path + "/inproc") + "/history.jsonl", encoding: .utf8)
        #expect(raw.contains("\"childPid\":\"\(1 << 23)"))
    }

    /// As-written runs the seed's own Swift: its authorization request goes through a `Task` and
    /// a framework's detached thread, which wait for the OS's answer — inside the harness they
    /// take the turn holder's context and hand the turn back while they wait. Seed 2: the nemesis
    /// TERMs the server, whose journal lock the next one must get.
    @Test(arguments: [(1, "as-written"), (2, "hardened"), (2, "as-written")])
    func everythingInTheHarnessIsTheSameRunForTheSeedsOwnCodeAndAServerTerm(seed: Int, variant: String) throws {
        let d = try Dir()
        let real = try run(d, Self.bundled, "real", variant: variant, seed: seed, ["--crash-points"])
        let inProcess = try run(d, Self.bundled, "inproc", variant: variant, seed: seed, ["--crash-points", "--in-process", "all"])
        #expect(real.status == inProcess.status, "\(real.stdout)\n\(inProcess.stdout)")
        let history = try normalized(d.path + "/real")
        if seed == 1 { #expect(history.contains { $0.contains("\"method\":\"requestAuthorization\"") && $0.contains("\"authorized\":\"true\"") }) }
        if seed == 2 { #expect(history.contains { $0.contains("\"signal\":\"TERM\"") && $0.contains("settlement-server") }) }
        #expect(try crashPoints(d.path + "/inproc") == crashPoints(d.path + "/real"))
        #expect(try normalized(d.path + "/inproc") == history)
    }

    /// Exit (seed 001) inside the harness too: its checker judges who wrote the registry by pid —
    /// an in-process stand-in's records and trace lines carry its own, not the harness's — and
    /// exit-midnight's host is TERMed after a stop with an iOS message in its inbox, which a process
    /// takes (and loses) on its way out.
    @Test(arguments: [("Sources/Systems/Exit/scenarios/exit.yaml", "hardened"), ("Sources/Systems/Exit/scenarios/exit-midnight.yaml", "hardened"),
        ("Sources/Systems/Exit/scenarios/exit-midnight.yaml", "as-written")])
    func exitInsideTheHarnessIsTheSameRun(scenario: String, variant: String) throws {
        let d = try Dir()
        let real = try run(d, scenario, "real", variant: variant, ["--crash-points"])
        let inProcess = try run(d, scenario, "inproc", variant: variant, ["--crash-points", "--in-process", "all"])
        #expect(real.status == inProcess.status, "\(real.stdout)\n\(inProcess.stdout)")
        #expect(try crashPoints(d.path + "/inproc") == crashPoints(d.path + "/real"))
        let (inproc, processes) = (try normalized(d.path + "/inproc"), try normalized(d.path + "/real"))
        // exit-midnight's host is TERMed after a stop with an iOS message (significant_time_change)
        // in its inbox: a process's loop takes it at its TERM, as the in-process loop does (it was
        // a race between the process's two threads: AppTermTests).
        #expect(inproc == processes, "\(Self.firstDifference(inproc, processes))")
    }

    /// Killed where it holds a lock — an extension inside the suite's flock, the host between the
    /// server's commit and its reading of the answer — an in-process stand-in ends as a process
    /// does: its flocks released, its relaunch the same.
    @Test(arguments: [
        "shield-configuration-extension:defaults:group.com.focuspledge.shared/focuspledge_failure#1=kill",
        "host-app:http.reply:settlement-server POST /resolveSession#1=kill",
    ])
    func aFailpointKillInsideTheHarnessIsAProcessKill(point: String) throws {
        let d = try Dir()
        let file = try d.write("inproc.yaml", Self.scenario)
        let real = try run(d, file, "real", ["--failpoint", point])
        let inProcess = try run(d, file, "inproc", ["--failpoint", point, "--in-process", "all"])
        #expect(real.status == inProcess.status, "\(real.stdout)\n\(inProcess.stdout)")
        let history = try normalized(d.path + "/real")
        let label = String(point.prefix { $0 != "=" })
        #expect(history.contains { $0.contains("\"event\":\"failpoint\"") && $0.contains(label.replacingOccurrences(of: "/", with: "\\/")) || $0.contains(label) })
        #expect(try normalized(d.path + "/inproc") == history)
        #expect(!history.contains { $0.contains("lockTimeout") || $0.contains("store_error") })
    }

    /// A request sent just before a kill: the host sends its settle and goes on to the next
    /// session, killed there. With processes the server already has the request (the relaunched
    /// host's retry is a `duplicate`); inside the harness it must leave when sent too, not wait in
    /// a queue for the app to be idle and die with it (found by `explore --check-killed`).
    @Test func aRequestSentBeforeAKillReachesTheServerInsideTheHarnessToo() throws {
        let d = try Dir()
        let point = ["--failpoint", "host-app:monitoring.start:focuspledge_s-1-5#1=kill", "--why-budget", "0"]
        let real = try run(d, Self.bundled, "real", point)
        let inProcess = try run(d, Self.bundled, "inproc", point + ["--in-process", "all"])
        #expect(real.status == inProcess.status, "\(real.stdout)\n\(inProcess.stdout)")
        let history = try normalized(d.path + "/real")
        #expect(history.contains { $0.contains("\"event\":\"duplicate\"") && $0.contains("settle_s-1-4") }, "the server had the first settle")
        let inside = try normalized(d.path + "/inproc")
        #expect(inside == history, "\(Self.firstDifference(inside, history))")
    }

    /// `explore` (by default with every stand-in inside the harness, each point a process of its
    /// own) decides every point as `explore --in-process none` does: the same rows, the same JUnit.
    @Test func anInProcessExplorationFindsWhatOneWithProcessesFinds() throws {
        let d = try Dir()
        func explore(_ name: String, _ extra: [String]) throws -> (rows: [String], junit: [String]) {
            let f = try harness(
                ["explore", Self.bundled, "--variant", "as-written", "--max", "8", "--jobs", "2", "--out", d.path + "/" + name, "--junit", d.path + "/\(name).xml"]
                    + extra)
            #expect(f.status == .exited(1), "\(f.stdout)\n\(f.stderr)")  // as-written's own run violates
            let rows = f.stdout.split(separator: "\n").map(String.init).filter { $0.first?.isNumber == true && $0.contains(":") && !$0.contains("crash points") }
            // Without the last column, the point's wall seconds.
            let decided = rows.map { $0.replacingOccurrences(of: #"\s+\d+\.\d+\s*$"#, with: "", options: .regularExpression) }
            return (decided, try FailpointProcessTests.junitCases(d.path + "/\(name).xml"))
        }
        let real = try explore("real", ["--in-process", "none"])
        let inProcess = try explore("inproc", [])  // auto: inside, the un-killed run checked first
        #expect(real.rows.count == 8)
        #expect(inProcess.rows == real.rows)
        #expect(inProcess.junit == real.junit)
    }

    /// The un-killed run is checked before the points; a kill is where the two paths part (a real
    /// SIGKILL and exit against a parked thread). `explore --check-killed` runs killed points again
    /// both ways: the same verdict and the same normalized history, in both packs whose stand-ins
    /// run inside (FocusPledge, Exit; the others' refuse `--in-process` and explore with processes).
    /// (exit-midnight's un-killed run is compared both ways by `exitInsideTheHarnessIsTheSameRun`.)
    @Test(arguments: [Self.bundled, "Sources/Systems/Exit/scenarios/exit.yaml"])
    func killedPointsAreTheSameRunInsideTheHarnessAndWithProcesses(scenario: String) throws {
        let d = try Dir()
        let f = try harness(["explore", scenario, "--variant", "hardened", "--max", "3", "--check-killed", "3", "--out", d.path + "/x"])
        #expect(f.status == .exited(0), "\(f.stdout)\n\(f.stderr)")
        #expect(f.stdout.contains("points run inside the harness"), "\(f.stdout)")
        #expect(f.stdout.contains("killed points the same both ways (verdict and normalized history, inside the harness and with processes): 3 of 3"), "\(f.stdout)")
        // Each pair really is both ways: its runs' rerun lines say where the stand-ins ran.
        let explore = try #require(try FileManager.default.contentsOfDirectory(atPath: d.path + "/x").first { $0.hasPrefix("explore-") })
        for (way, inside) in [("inside", true), ("processes", false)] {
            let dir = d.path + "/x/\(explore)/same-run/\(way)/1"
            let run = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first)
            let history = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(run)/history.jsonl"))).events
            let command = history.first { $0.event == "run_started" }?["command"] ?? ""
            #expect(command.contains("--in-process all") == inside, "\(way): \(command)")
        }
    }

    @Test func whatCannotRunInProcessIsRefusedWithOneLine() throws {
        let d = try Dir()
        let file = try d.write("inproc.yaml", Self.scenario)
        let bogus = try harness(["run", file, "--in-process", "everything", "--out", d.path + "/o"])
        #expect(bogus.status == .exited(2))
        #expect(bogus.stderr.contains("--in-process everything: takes none or extensions or device or all"), "\(bogus.stderr)")
        let term = try harness(["run", file, "--in-process", "all", "--failpoint", "host-app:step:x#1=term", "--out", d.path + "/o"])
        #expect(term.status == .exited(2))
        #expect(term.stderr.contains("signals its process (term, stop)"), "\(term.stderr)")
        let rally = try harness(["explore", "Sources/Systems/Rally/scenarios/rally.yaml", "--in-process", "extensions"])
        #expect(rally.status == .exited(2))
        #expect(rally.stderr.contains("rally's returner (sth-rally) cannot run inside the harness"), "\(rally.stderr)")
        let fixed = try d.write("fixed.yaml", Self.scenario.replacingOccurrences(of: "timeZone: \"Europe/Berlin\" }", with: "timeZone: \"Europe/Berlin\", mode: fixed }"))
        let f = try harness(["run", fixed, "--in-process", "all", "--out", d.path + "/o"])
        #expect(f.status == .exited(2))
        #expect(f.stderr.contains("needs virtual time"), "\(f.stderr)")
    }

    /// What a stand-in reads once per process — the App Group's field faults (a stale reader) and
    /// data protection (a store read before the first
    /// unlock keeps its empty view for the process's life) — is read once per launch inside the
    /// harness: the same run as with processes.
    @Test(arguments: [("Sources/Systems/FocusPledge/scenarios/focuspledge-field.yaml", "hardened"), ("locked", "hardened")])
    func appGroupFaultsAndDataProtectionInsideTheHarnessAreTheSameRun(scenario: String, variant: String) throws {
        let d = try Dir()
        let file = scenario == "locked" ? try d.write("locked.yaml", DataProtectionProcessTests.scenario) : scenario
        let real = try run(d, file, "real", variant: variant, ["--crash-points"])
        let inProcess = try run(d, file, "inproc", variant: variant, ["--crash-points", "--in-process", "all"])
        #expect(real.status == inProcess.status, "\(real.stdout)\n\(inProcess.stdout)")
        let history = try normalized(d.path + "/real")
        // FocusPledge writes one key at a time, so its runs have no torn write (CrashPointsTests
        // tears one inside the harness).
        let faults = scenario == "locked" ? ["locked_read"] : ["stale_read"]
        for kind in faults { #expect(history.contains { $0.contains("\"kind\":\"\(kind)\"") }, "no \(kind) in the run") }
        #expect(try crashPoints(d.path + "/inproc") == crashPoints(d.path + "/real"))
        let inproc = try normalized(d.path + "/inproc")
        #expect(inproc == history, "\(Self.firstDifference(inproc, history))")
    }
}
