import Foundation
import HarnessKit
import Testing

/// docs/SCENARIOS.md "Field reports": seven whole scenarios a user pastes into a file;
/// each must parse as it stands, against FocusPledge, with the field behaviour it names.
@Suite(.timeLimit(.minutes(1))) struct FieldReportsDocTests {
    static func blocks() throws -> [String] {
        let doc = try String(contentsOf: repositoryRoot().appendingPathComponent("docs/SCENARIOS.md"), encoding: .utf8)
        let section = try #require(doc.range(of: "\n## Field reports\n")).upperBound
        var out: [String] = []
        var rest = doc[section...]
        while let open = rest.range(of: "```yaml\n"), let close = rest[open.upperBound...].range(of: "\n```") {
            out.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return out
    }

    @Test func everyFieldReportParsesAsPastedAndNamesItsBehaviour() throws {
        let yamls = try Self.blocks()
        #expect(yamls.count == 7)
        var names: [String] = []
        for (i, y) in yamls.enumerated() {
            let s = try ScenarioParser.parse(yaml: y, file: "field-report-\(i + 1).yaml")
            #expect(s.system.id == "focuspledge")
            names.append(s.name)
            let os = s.os
            #expect(
                os.lockedAfterReboot != nil || !os.revokeAt.isEmpty || !os.faults.isEmpty || !os.timeZoneChanges.isEmpty || !os.rules.changed.isEmpty,
                "\(s.name) has a field behaviour")
        }
        #expect(Set(names).count == 7)
    }
}
