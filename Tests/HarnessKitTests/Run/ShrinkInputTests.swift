import Foundation
import HarnessKit
import Testing

/// A failing run's directory read as steps, and the scenario a subset of them becomes.
@Suite(.timeLimit(.minutes(1))) struct ShrinkInputTests {
    static let catalog = SystemCatalog([AnySystemPack(PingPongPack())])

    @Test func theSameFailureIsTheSameExplanationButForItsNumbers() {
        let a = "started at t=1771315320.0; at t=1771315380.05 (60 s of host running time later): com.social.feed not shielded, focuspledge_s-1-1 not monitored"
        let b = "started at t=1771318000.0; at t=1771318060.5 (60 s of host running time later): com.social.feed not shielded, focuspledge_s-2-3 not monitored"
        #expect(ShrinkInput.signature(a) == ShrinkInput.signature(b))
        #expect(ShrinkInput.signature(a) == "started at t=#; at t=# (# s of host running time later): com.social.feed not shielded, focuspledge_s-#-# not monitored")
        #expect(ShrinkInput.signature(a) != ShrinkInput.signature("the host refused the user's start: no_blocked_apps"))
        // An app's UUID() differs between runs of one seed: the same signal under another id is the same failure.
        #expect(ShrinkInput.signature("workout signal 0ADA32AC-364B-4B66-9808-3A19ABCD492C (shield press at t=1772438400.5) got no prompt")
            == ShrinkInput.signature("workout signal f3e9c1d0-0b7a-4c2e-8d5f-9a8b7c6d5e4f (shield press at t=1772438999) got no prompt"))
        #expect(ShrinkInput.signature("signal 0ADA32AC-364B-4B66-9808-3A19ABCD492C") == "signal <uuid>")
    }

    /// A pingpong run directory: 3 serves, 2 faults, a failpoint, one violation.
    static func runDirectory(
        faults: String = #"[{"atDeviceOffsetMillis": 1000, "holdDeviceMillis": 50, "kind": "stop", "target": "pong"}, {"atDeviceOffsetMillis": 90000, "holdDeviceMillis": 400, "kind": "kill", "target": "ping"}]"#
    ) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shrink-input-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
            # a comment the shrunk file does not keep
            name: pp
            system: pingpong
            duration: 10m
            rally: { serves: 3, everySeconds: 60 }
            nemesis: { enabled: true, targets: [ping, pong] }
            failpoints: ["ping:post:pingpong.ball#2=kill"]
            """.write(toFile: dir + "/scenario.yaml", atomically: true, encoding: .utf8)
        try """
            {"mono":1,"t":1,"process":"harness","pid":1,"event":"run_started","seed":"7","variant":"as-written","extraFailpoints":"pong:post:pingpong.back#1=stop(50)","durationSeconds":"300"}

            """.write(toFile: dir + "/history.jsonl", atomically: true, encoding: .utf8)
        try """
            {"balls": 3, "deviceDurationSeconds": 600, "scenarioName": "pp", "seed": 7, "wallSpanMillis": 0,
             "userActions": [{"atDeviceOffsetSeconds": 60, "action": {"kind": "serve", "ball": 1}},
                             {"atDeviceOffsetSeconds": 120, "action": {"kind": "serve", "ball": 2}},
                             {"atDeviceOffsetSeconds": 180, "action": {"kind": "serve", "ball": 3}}],
             "faults": \(faults)}
            """.write(toFile: dir + "/schedule.json", atomically: true, encoding: .utf8)
        try """
            {"violations": [{"invariant": "every-serve-returned", "explanation": "ball 2 served at t=120 was never returned"}]}
            """.write(toFile: dir + "/report.json", atomically: true, encoding: .utf8)
        return dir
    }

    @Test func everyActionFaultAndFailpointIsAStepAndAnySubsetIsAScenarioThatParses() throws {
        let dir = try Self.runDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try ShrinkInput.load(runDirectory: dir)
        #expect(input.steps.count == 7)
        #expect(input.describe() == "3 user actions, 2 nemesis faults, 2 failpoints")
        #expect(input.seed == 7 && input.variant == "as-written" && input.durationSeconds == 300)
        #expect(input.violated == ["every-serve-returned"])
        #expect(input.signatures["every-serve-returned"] == ["ball # served at t=# was never returned"])

        // Keep serve 2, the kill of ping and the command line's failpoint.
        let yaml = try input.scenarioYAML(keeping: [1, 4, 6], name: "pp-shrunk", header: ["made by a test"])
        #expect(yaml.hasPrefix("# made by a test\n"))
        #expect(!yaml.contains("nemesis") && !yaml.contains("a comment"))
        let sc = try Scenario.parse(yaml: yaml, systems: Self.catalog)
        #expect(sc.name == "pp-shrunk")
        #expect(sc.durationSeconds == 300, "the run's --duration is the shrunk scenario's duration")
        #expect(sc.failpoints.map(\.description) == ["pong:post:pingpong.back#1=stop(50)"])
        let plan = ScenarioPlan.make(scenario: sc, seed: 7)
        #expect(plan.workload.actionTimes == [120])
        #expect(plan.faults == [PlannedFault(timeBase: .device, atOffsetMillis: 90000, target: "ping", kind: .kill, holdMillis: 400)])
        let json = try #require(try JSONSerialization.jsonObject(with: plan.jsonData()) as? [String: Any])
        #expect(json["balls"] as? Int == 3, "the pack's summary keys are carried")
        #expect(input.chronological([6, 1, 4]) == [4, 1, 6], "timed steps by time (the kill at 90 s before the serve at 120 s), failpoints last")

        // Nothing kept: still a scenario, with empty lists.
        let empty = try Scenario.parse(yaml: try input.scenarioYAML(keeping: [], name: "pp-empty"), systems: Self.catalog)
        #expect(ScenarioPlan.make(scenario: empty, seed: 7).workload.actionTimes.isEmpty && empty.failpoints.isEmpty)
    }

    /// Serves at 60, 120, 180 s; pong stopped from 100 s to 130.5 s (serve 2 inside), ping killed at 170 s for 5 s.
    static let heldServe = #"[{"atDeviceOffsetMillis": 100000, "holdDeviceMillis": 30500, "kind": "stop", "target": "pong"}, {"atDeviceOffsetMillis": 170000, "holdDeviceMillis": 5000, "kind": "kill", "target": "ping"}]"#

    @Test func aFaultsWindowHoldsTheActionsInsideItAndPostponingMovesThemToItsEnd() throws {
        let dir = try Self.runDirectory(faults: Self.heldServe)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try ShrinkInput.load(runDirectory: dir)
        // Steps: serves 0, 1, 2; faults 3 (stop pong 100...130.5), 4 (kill ping 170...175); failpoints 5, 6.
        #expect(input.steps[3].untilSeconds == 130.5 && input.steps[4].untilSeconds == 175)
        #expect(input.steps[0].untilSeconds == nil)
        let all = Array(input.steps.indices)
        #expect(input.postponements(of: all).map { [$0.fault] + $0.actions } == [[3, 1]], "only serve 2 (120 s) is inside a window")
        #expect(input.postponements(of: [0, 2, 4]).isEmpty, "serve 3 at 180 s is after the kill's window")

        let moved = try #require(input.postponing([1], to: 3, keeping: [0, 1, 2, 3, 5]))
        #expect(moved.steps.count == 4, "the fault is gone, nothing else")
        #expect(moved.steps.map(\.kind) == [.action, .action, .action, .failpoint])
        #expect(moved.steps[1].atSeconds == 130.5)
        #expect(moved.steps[1].moved?.hasPrefix("moved from +0:02:00: in place of at +0:01:40 nemesis stop pong") == true)
        #expect(moved.steps[0].moved == nil && moved.steps[2].moved == nil)
        #expect(moved.steps[1].summary.hasPrefix("at +0:02:10 user {\"ball\":2,\"kind\":\"serve\"} (moved from +0:02:00: in place of at +0:01:40 nemesis stop pong"))
        let sc = try Scenario.parse(yaml: try moved.scenarioYAML(keeping: [0, 1, 2, 3], name: "pp-moved"), systems: Self.catalog)
        let plan = ScenarioPlan.make(scenario: sc, seed: 7)
        #expect(plan.workload.actionTimes == [60, 130.5, 180])
        #expect(plan.faults.isEmpty)
        // Moved past a later action, the plan is still in time order.
        let late = try #require(input.postponing([0], to: 3, keeping: [0, 1, 3]))
        let lateYAML = try late.scenarioYAML(keeping: [0, 1], name: "pp-late")
        #expect(ScenarioPlan.make(scenario: try Scenario.parse(yaml: lateYAML, systems: Self.catalog), seed: 7).workload.actionTimes == [120, 130.5])
        #expect(input.postponing([1], to: 0, keeping: all) == nil, "an action has no window to move to")
    }

    @Test func theSearchReplacesAFaultThatOnlyHeldAnActionBackWithTheActionAtItsEnd() throws {
        let dir = try Self.runDirectory(faults: Self.heldServe)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try ShrinkInput.load(runDirectory: dir)
        // The bug: a serve that reaches pong between 130 and 131 s. Serve 2 does only because the
        // stop holds it until 130.5 s; without the stop it must itself come at 130.5 s. While pong
        // is stopped the bug also needs serve 1 (it made the stop matter): once the stop is gone,
        // ddmin drops serve 1 too.
        func reached(_ input: ShrinkInput, _ kept: [Int]) -> [Double] {
            kept.filter { input.steps[$0].kind == .action }.compactMap { a -> Double? in
                guard let t = input.steps[a].atSeconds else { return nil }
                let held = kept.first { f in
                    input.steps[f].kind == .fault && input.steps[f].summary.contains("pong")
                        && (input.steps[f].atSeconds ?? .infinity) <= t && t < (input.steps[f].untilSeconds ?? 0)
                }
                return held.flatMap { input.steps[$0].untilSeconds } ?? t
            }
        }
        func fails(_ input: ShrinkInput, _ kept: [Int]) -> Bool {
            let stopped = kept.contains { input.steps[$0].kind == .fault && input.steps[$0].summary.contains("stop pong") }
            let serve1 = kept.contains { input.steps[$0].atSeconds == 60 }
            return reached(input, kept).contains { (130...131).contains($0) } && (serve1 || !stopped)
        }
        var calls = 0
        let r = ShrinkSearch.run(input, maximumTests: 100) { input, kept in
            calls += 1
            return fails(input, kept)
        }
        #expect(r.kept.count == 1 && r.postponed == 1 && r.minimal)
        #expect(r.input.steps[r.kept[0]].atSeconds == 130.5)
        #expect(r.tests == calls)
        // ddmin alone stops at both serves and the stop: three steps.
        let plain = DeltaDebugging(maximumTests: 100).minimize(count: input.steps.count, groups: input.groups) { fails(input, $0) }
        #expect(plain.kept == [0, 1, 3])
        // A budget spent before the search: ddmin's answer, said not minimal.
        let short = ShrinkSearch.run(input, maximumTests: 3) { input, kept in fails(input, kept) }
        #expect(!short.minimal && short.postponed == 0)
    }

    @Test func aDirectoryThatIsNotAFinishedRunIsNamed() throws {
        let dir = try Self.runDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.removeItem(atPath: dir + "/report.json")
        #expect(throws: ShrinkInput.LoadError.self) { try ShrinkInput.load(runDirectory: dir) }
        do { _ = try ShrinkInput.load(runDirectory: dir) } catch {
            #expect(error.description.contains("report.json") && error.description.contains("no verdict"))
        }
    }
}
