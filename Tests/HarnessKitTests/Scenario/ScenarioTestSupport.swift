import Foundation
import Testing
@testable import HarnessKit

/// The repository root, found from this file (through the scratch package's symlink, if any).
func repositoryRoot() -> URL {
    URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Scenario
        .deletingLastPathComponent()  // HarnessKitTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
}

func bundledScenarioPath() -> String {
    repositoryRoot().appendingPathComponent("harness/scenarios/focuspledge.yaml").path
}

/// A small valid scenario; tests replace lines of it to make one thing wrong.
let minimalScenarioYAML = """
name: tiny
system: focuspledge
duration: 2h
workload:
  blockedApps: [com.social.feed]
"""

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
