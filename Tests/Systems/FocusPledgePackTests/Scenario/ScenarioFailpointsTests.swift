import AppGroup
@testable import FocusPledgePack
import Foundation
import Testing
@testable import HarnessKit

/// `failpoints:` in a scenario file: parsed into `Failpoint`s, and every problem a
/// `file:line:column` error pointing at the character that is wrong.
@Suite("Scenario failpoints", .timeLimit(.minutes(1)))
struct ScenarioFailpointsTests {
    @Test func aListOfSpecsParses() throws {
        let yaml = minimalScenarioYAML + """

            failpoints:
              - "host-app:defaults:group.com.focuspledge.shared/focuspledge_session_start_time#1=kill"
              - monitor-extension:post:com.focuspledge.failure=50%1*delay(10)->off
            """
        let scenario = try ScenarioParser.parse(yaml: yaml, file: "f.yaml")
        #expect(scenario.failpoints.map(\.description) == [
            "host-app:defaults:group.com.focuspledge.shared/focuspledge_session_start_time#1=kill",
            "monitor-extension:post:com.focuspledge.failure=50%1*delay(10)->off",
        ])
        #expect(try ScenarioParser.parse(yaml: minimalScenarioYAML, file: "f.yaml").failpoints.isEmpty)
    }

    /// Line 7 is the first list entry; the column is the scalar's (after its quote) plus the offset.
    @Test(arguments: [
        ("  - \"host-app:defaults:k=explode\"", "test.yaml:7:26: failpoints: unknown action 'explode'"),
        ("  - host-app:defaults:k=explode", "test.yaml:7:25: failpoints: unknown action 'explode'"),
        ("  - \"settlement-server:post:x=kill\"", "test.yaml:7:6: failpoints: unknown process 'settlement-server'; crash points are in: host-app, "),
        ("  - 5", "test.yaml:7:5: failpoints: expected a string"),
    ])
    func aBadEntryPointsAtItsCharacter(line: String, expected: String) {
        let error = parseError(minimalScenarioYAML + "\nfailpoints:\n" + line)
        #expect(error?.description.hasPrefix(expected) == true, "\(error?.description ?? "no error")")
    }

    @Test func oneLabelArmedTwiceIsRefused() {
        let error = parseError(minimalScenarioYAML + "\nfailpoints:\n  - \"host-app:step:x=kill\"\n  - \"host-app:step:x=off\"")
        #expect(error?.description.contains("test.yaml:8:5: failpoints: \"host-app:step:x\" is armed twice") == true, "\(error?.description ?? "")")
    }
}
