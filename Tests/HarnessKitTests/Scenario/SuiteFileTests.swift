import Foundation
import Testing

@testable import HarnessKit

/// harness/suite.yaml: the main job in one file. Strict like scenario files, and a pattern that
/// matches nothing is an error (a suite that silently runs nothing would pass CI on nothing).
@Suite(.timeLimit(.minutes(1))) struct SuiteFileTests {
    /// A directory with `systems/a/scenarios/{one,two}.yaml` and `systems/b/scenarios/three.yaml`.
    static func fixture() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("suitefile-\(UUID().uuidString)").path
        for f in ["systems/a/scenarios/one.yaml", "systems/a/scenarios/two.yaml", "systems/b/scenarios/three.yaml"] {
            let path = "\(dir)/\(f)"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("name: x\n".utf8).write(to: URL(fileURLWithPath: path))
        }
        try FileManager.default.createDirectory(atPath: "\(dir)/systems/a/scenarios/dir.yaml", withIntermediateDirectories: true)
        return dir
    }

    func parse(_ yaml: String, in dir: String) throws(ScenarioError) -> SuiteFile {
        try SuiteFile.parse(yaml: yaml, file: "suite.yaml", directory: dir)
    }

    @Test func aGlobMatchesEveryScenarioSortedAndDefaultsApply() throws {
        let dir = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let suite = try parse("runs:\n  - scenarios: systems/*/scenarios/*.yaml\n", in: dir)
        #expect(suite.entries.count == 1)
        // The directory named like a scenario is not one.
        #expect(suite.entries[0].scenarioPaths.map { ($0 as NSString).lastPathComponent } == ["one.yaml", "two.yaml", "three.yaml"])
        #expect(suite.entries[0].variants == nil)
        #expect(suite.entries[0].seeds == 1...1)
        #expect(suite.gate == ["hardened"])
    }

    /// `explore:` makes an entry a crash-point sample with a wall-time budget (default 60 s).
    @Test func anExploreEntryIsASampleWithItsBudget() throws {
        let dir = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let suite = try parse(
            "runs:\n  - scenarios: systems/a/scenarios/one.yaml\n  - scenarios: systems/b/scenarios/three.yaml\n    explore: each-label-once\n    budget: 2m\n"
                + "  - scenarios: systems/a/scenarios/two.yaml\n    explore: each-label-once\n",
            in: dir)
        #expect(suite.entries.map(\.explore) == [nil, SuiteFile.Sample(budgetSeconds: 120), SuiteFile.Sample(budgetSeconds: 60)])
    }

    @Test func seedsVariantsAndGateAreRead() throws {
        let dir = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let suite = try parse(
            "runs:\n  - scenarios: systems/b/scenarios/three.yaml\n    variants: [as-written]\n    seeds: 3-5\n  - scenarios: systems/a/scenarios/one.yaml\n    seeds: 7\ngate: []\n",
            in: dir)
        #expect(suite.entries.map(\.seeds) == [3...5, 7...7])
        #expect(suite.entries[0].variants == ["as-written"])
        #expect(suite.entries[1].variants == nil)
        #expect(suite.gate == [])
    }

    @Test(arguments: [
        ("runs:\n  - scenarios: systems/none/*.yaml\n", "2:16", "matches no file"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    seed: 1\n", "3:5", "unknown key 'runs[0].seed'"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    seeds: 5-1\n", "3:12", "the first seed 5 is greater than the last 1"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    seeds: 1-20000\n", "3:12", "20000 seeds; at most 10000"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    seeds: one\n", "3:12", "use a whole number like 3 or a range like 1-20"),
        ("runs: []\n", "1:1", "list at least one run"),
        ("gate: [hardened]\n", "1:1", "missing required key 'runs'"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\ngates: [x]\n", "3:1", "unknown key 'gates'"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    explore: all\n", "3:14", "'all' is no crash-point sample; use each-label-once"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    explore: each-label-once\n    budget: soon\n", "4:13", "use a wall time like 30s or 2m (at most 1h)"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    explore: each-label-once\n    budget: 2h\n", "4:13", "use a wall time like 30s or 2m (at most 1h)"),
        ("runs:\n  - scenarios: systems/a/scenarios/one.yaml\n    budget: 30s\n", "3:13", "a budget is for a crash-point sample; add explore: each-label-once"),
    ])
    func badSuitesAreErrorsAtTheirPlace(yaml: String, place: String, words: String) throws {
        let dir = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            _ = try parse(yaml, in: dir)
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.description.hasPrefix("suite.yaml:\(place): "), "\(error)")
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func theBundledSuiteParsesAndNamesEveryPacksScenarios() throws {
        // From the checkout: the test runs with the package root as its working directory.
        let suite = try SuiteFile.load(path: "harness/suite.yaml")
        let bundled = try FileManager.default.contentsOfDirectory(atPath: "Sources/Systems").flatMap { system in
            ((try? FileManager.default.contentsOfDirectory(atPath: "Sources/Systems/\(system)/scenarios")) ?? [])
                .filter { $0.hasSuffix(".yaml") }.map { "\(system)/scenarios/\($0)" }
        }
        let listed = suite.entries.flatMap(\.scenarioPaths)
        #expect(!bundled.isEmpty)
        for b in bundled { #expect(listed.contains("Sources/Systems/" + b), "\(b) is not in harness/suite.yaml") }
        #expect(suite.gate == ["hardened"])
        // Shown as the user would write them (rerun lines): no `harness/..`.
        #expect(listed.allSatisfy { $0.hasPrefix("Sources/Systems/") }, "\(listed)")
    }

    @Test func aSuiteThatIsNotARegularFileIsRefused() throws {
        let dir = try Self.fixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: ScenarioError.self) { try SuiteFile.load(path: "\(dir)/systems") }
        #expect(throws: ScenarioError.self) { try SuiteFile.load(path: "\(dir)/missing.yaml") }
    }
}
