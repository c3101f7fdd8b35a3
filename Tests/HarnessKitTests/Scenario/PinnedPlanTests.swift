import Foundation
import HarnessKit
import Testing

/// A scenario's `plan:` (what `harness shrink` writes): exactly these actions and faults, whatever
/// the seed; every entry checked, errors at the entry's line.
@Suite(.timeLimit(.minutes(1))) struct PinnedPlanTests {
    static let catalog = SystemCatalog([AnySystemPack(PingPongPack())])

    static func yaml(_ plan: String) -> String {
        """
        name: pp
        system: pingpong
        duration: 10m
        rally: { serves: 5, everySeconds: 60 }
        nemesis: { enabled: true, targets: [ping, pong] }
        \(plan)
        """
    }

    static let good = yaml("""
        plan:
          userActions:
            - {"atDeviceOffsetSeconds": 30, "action": {"kind": "serve", "ball": 9}}
            - {"action": {"ball": 10, "kind": "serve"}, "atDeviceOffsetSeconds": 90.5}
          faults:
            - {"atDeviceOffsetMillis": 1000, "holdDeviceMillis": 500, "kind": "kill", "target": "pong"}
          summary: {"balls": 2, "note": "12"}
        """)

    @Test func thePinnedActionsAndFaultsReplaceWhatTheSeedWouldPlan() throws {
        let sc = try Scenario.parse(yaml: Self.good, systems: Self.catalog)
        let planned = ScenarioPlan.make(scenario: sc, seed: 1)
        #expect(planned.workload.actionTimes == [30, 90.5])
        #expect(planned.faults == [PlannedFault(timeBase: .device, atOffsetMillis: 1000, target: "pong", kind: .kill, holdMillis: 500)])
        let other = ScenarioPlan.make(scenario: sc, seed: 2)
        #expect(other.workload == planned.workload && other.faults == planned.faults, "the seed plans nothing when the plan is pinned")
        // Without plan: the nemesis and the pack plan from the seed.
        var unpinned = sc
        unpinned.pinnedPlan = nil
        #expect(ScenarioPlan.make(scenario: unpinned, seed: 1).workload.actionTimes == [60, 120, 180, 240, 300])

        let json = try #require(try JSONSerialization.jsonObject(with: planned.jsonData()) as? [String: Any])
        #expect(json["pinned"] as? Bool == true)
        #expect(json["balls"] as? Int == 2 && json["note"] as? String == "12", "the summary is written back as it was, a quoted 12 a string")
        let actions = try #require(json["userActions"] as? [[String: Any]])
        #expect((actions.first?["action"] as? [String: Any])?["ball"] as? Int == 9)
        #expect((json["faults"] as? [[String: Any]])?.count == 1)
    }

    @Test func aShorterDurationDropsWhatFallsAfterIt() throws {
        let sc = try Scenario.parse(yaml: Self.good, systems: Self.catalog)
        let planned = ScenarioPlan.make(scenario: sc, seed: 1, durationOverride: .seconds(60))
        #expect(planned.workload.actionTimes == [30])
        #expect(planned.faults.count == 1)
    }

    @Test(arguments: [
        ("plan:\n  userActions:\n    - {\"atDeviceOffsetSeconds\": 30, \"action\": {\"kind\": \"serve\"}}", 8, "plan.userActions[0]: not a pingpong action: missing key 'ball'"),
        ("plan:\n  userActions:\n    - {\"action\": {\"kind\": \"serve\", \"ball\": 1}}", 8, "needs atDeviceOffsetSeconds"),
        ("plan:\n  userActions:\n    - {\"atDeviceOffsetSeconds\": 90, \"action\": {\"ball\": 1}}\n    - {\"atDeviceOffsetSeconds\": 30, \"action\": {\"ball\": 2}}", 9, "comes before the entry above it"),
        ("plan:\n  userActions:\n    - {\"atDeviceOffsetSeconds\": 601, \"action\": {\"ball\": 1}}", 8, "outside the run's 0...600 s"),
        ("plan:\n  faults:\n    - {\"atDeviceOffsetMillis\": 0, \"holdDeviceMillis\": 5, \"kind\": \"kill\", \"target\": \"server\"}", 8, "unknown target \"server\""),
        ("plan:\n  faults:\n    - {\"atWallOffsetMillis\": 0, \"holdMillis\": 5, \"kind\": \"kill\", \"target\": \"pong\"}", 8, "the clock is virtual, so faults are in device time"),
        ("plan:\n  faults:\n    - {\"atDeviceOffsetMillis\": 0, \"holdDeviceMillis\": 500, \"kind\": \"stop\", \"target\": \"pong\"}\n    - {\"atDeviceOffsetMillis\": 100, \"holdDeviceMillis\": 5, \"kind\": \"kill\", \"target\": \"pong\"}", 9, "faults on one target may not overlap"),
        ("plan:\n  faults:\n    - {\"atDeviceOffsetMillis\": 0, \"holdDeviceMillis\": 5, \"kind\": \"explode\", \"target\": \"pong\"}", 8, "plan.faults[0]: not a fault"),
        ("plan:\n  faults:\n    - {\"atDeviceOffsetMillis\": 599999, \"holdDeviceMillis\": 5, \"kind\": \"kill\", \"target\": \"pong\"}", 8, "must start and end inside the run's 0...600000 ms"),
        ("plan:\n  summary: [1, 2]", 7, "plan.summary: expected the pack's summary keys"),
        ("plan:\n  steps: []", 7, "steps"),
    ])
    func everyEntryIsCheckedAndAnErrorPointsAtIt(plan: String, line: Int, message: String) {
        #expect(throws: ScenarioError.self) { try Scenario.parse(yaml: Self.yaml(plan), systems: Self.catalog) }
        do {
            _ = try Scenario.parse(yaml: Self.yaml(plan), file: "pp.yaml", systems: Self.catalog)
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(error.description.hasPrefix("pp.yaml:\(line):"), "\(error.description)")
        }
    }
}
