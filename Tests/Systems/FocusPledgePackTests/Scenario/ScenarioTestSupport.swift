@testable import FocusPledgePack
import Foundation
import SystemRegistry
import Testing
@testable import HarnessKit

/// The repository root, found from this file (through the scratch package's symlink, if any).
func repositoryRoot() -> URL {
    URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Scenario
        .deletingLastPathComponent()  // FocusPledgePackTests
        .deletingLastPathComponent()  // Systems
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
}

func bundledScenarioPath() -> String {
    repositoryRoot().appendingPathComponent("Sources/Systems/FocusPledge/scenarios/focuspledge.yaml").path
}

let catalog = SystemRegistry.catalog
let focusPledgeTargets = FocusPledgePack().descriptor.nemesisTargets

/// A small valid scenario; tests replace lines of it to make one thing wrong.
let minimalScenarioYAML = """
name: tiny
system: focuspledge
duration: 2h
workload:
  blockedApps: [com.social.feed]
"""

extension ScenarioParser {
    static func load(path: String) throws(ScenarioError) -> Scenario { try load(path: path, systems: catalog) }
    static func parse(yaml: String, file: String) throws(ScenarioError) -> Scenario { try parse(yaml: yaml, file: file, systems: catalog) }
}

/// Parses `yaml`, which must fail; returns the error.
func parseError(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) -> ScenarioError? {
    do {
        let scenario = try ScenarioParser.parse(yaml: yaml, file: "test.yaml")
        Issue.record("expected an error, parsed \(scenario.name)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

typealias PlannedUserAction = PlannedAction<UserAction>

/// FocusPledge's typed views of a scenario and its plan.
extension Scenario {
    var focusPledge: FocusPledgeConfiguration {
        get { configuration.typed(as: FocusPledgeConfiguration.self)! }
        set { configuration = AnyConfiguration(newValue) }
    }
    var workload: FocusPledgeConfiguration.Workload {
        get { focusPledge.workload }
        set { focusPledge.workload = newValue }
    }
}

extension ScenarioPlan {
    var typedWorkload: WorkloadPlan<UserAction, PlanSummary> { workload.typed()! }
    var userActions: [PlannedUserAction] { typedWorkload.actions }
    var sessions: [PlannedSession] { typedWorkload.summary.sessions }
}
