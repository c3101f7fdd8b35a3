// The main job's suite: which scenarios run, in which variants, on which seeds, and which
// variants gate the exit code. `harness run` with no SCENARIO reads `harness/suite.yaml` (or
// `--suite FILE`), so a user changes the main job by editing one file.
//
// Schema (strict, like scenario files: unknown keys and wrong types are `file:line:col` errors):
//
//   runs:                                   required, non-empty
//     - scenarios: ../Sources/Systems/*/scenarios/*.yaml   required; a path or a glob(3) pattern,
//                                           relative to this file's directory; must match a file
//       variants: [as-written, hardened]    = every variant each scenario lists
//       seeds: 1-3                          = 1; a whole number N or a range A-B (at most 10,000)
//       explore: each-label-once            optional: instead of runs, a crash-point sample of each
//                                           scenario x variant x seed (each label's first pass, a
//                                           process killed there; `harness explore --each-label-once`)
//       budget: 30s                         with explore: wall time of each sample (default 60s, at
//                                           most 1h); the points it does not reach are said
//   gate: [hardened]                        = [hardened]; variants whose violations fail the job
//                                           (exit 1); the others' violations are listed as findings

import AppGroup
import Foundation
import Yams

#if canImport(Glibc)
import Glibc
#endif

package struct SuiteFile: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        /// Absolute scenario paths, sorted, matched by one `scenarios:` pattern.
        package var scenarioPaths: [String]
        /// nil = every variant each scenario lists.
        package var variants: [String]?
        package var seeds: ClosedRange<UInt64>
        /// Where `variants:` is written: a name no scenario of the entry has is an error there.
        package var variantsAt: ScenarioError?
        /// `explore:`: a crash-point sample instead of runs, with its wall-time budget.
        package var explore: Sample?

        /// `name` as a variant of `scenario`, or an error at this entry's `variants:`.
        package func variant(_ name: String, of scenario: Scenario) throws(ScenarioError) -> ScenarioVariant {
            do { return try scenario.variant(named: name) } catch {
                guard var at = variantsAt else { throw error }
                at.message = "variants: unknown variant '\(Excerpt.inner(name))'; \(scenario.name) (\(scenario.system.id)) has: \(scenario.system.descriptor.variants.joined(separator: ", "))"
                throw at
            }
        }
    }

    /// A crash-point sample of an entry's scenarios (`explore: each-label-once`, `budget:`).
    package struct Sample: Sendable, Equatable {
        /// Each label's first pass: one run per kind of crash point.
        package var eachLabelOnce = true
        /// Wall seconds of one sample (one scenario x variant x seed), its enumeration run included.
        package var budgetSeconds: Int

        package static let defaultBudgetSeconds = 60
        package static let maximumBudgetSeconds = 3600
        package static let kinds = ["each-label-once"]
    }

    package var path: String
    package var entries: [Entry]
    /// Variants whose violations fail the job.
    package var gate: [String]

    package static let defaultGate = ["hardened"]
    package static let maximumSeeds: UInt64 = 10_000
    static let keys = ["runs", "gate"]
    static let entryKeys = ["scenarios", "variants", "seeds", "explore", "budget"]

    /// Reads and checks the suite at `path`; every problem names `path` (and line:column).
    package static func load(path: String) throws(ScenarioError) -> SuiteFile {
        let data = try ScenarioParser.readFile(path, what: "suite file", usage: "(a suite is a .yaml file; see README \"The suite\")")
        guard let yaml = String(data: data, encoding: .utf8) else { throw ScenarioError(file: path, message: "the suite file is not UTF-8") }
        let directory = PathText.directory(of: path)
        return try parse(yaml: yaml, file: path, directory: directory.isEmpty ? "." : directory)
    }

    /// Parses suite YAML; relative `scenarios:` patterns are resolved against `directory`.
    package static func parse(yaml: String, file: String, directory: String) throws(ScenarioError) -> SuiteFile {
        let root = try ScenarioParser.compose(yaml: yaml, file: file, what: "the suite file")
        let reader = NodeReader(file: file)
        let top = ScenarioSection(fields: try reader.fields(root, path: "", allowed: keys))
        var entries: [Entry] = []
        for item in try top.required("runs").list(expected: "a list of runs") {
            let e = try item.section(allowed: entryKeys)
            let patternValue = try e.required("scenarios")
            let pattern = try patternValue.string()
            let absolute = pattern.hasPrefix("/") ? pattern : "\(directory)/\(pattern)"
            let matches = glob(absolute)
            guard !matches.isEmpty else { throw patternValue.error("\(patternValue.path): '\(pattern)' matches no file (relative to \(directory))") }
            let variants = try e["variants"].map { v throws(ScenarioError) in try v.stringList(nonEmpty: true) }
            var seeds: ClosedRange<UInt64> = 1...1
            if let s = e["seeds"] { seeds = try seedRange(s) }
            var sample: Sample?
            if let x = e["explore"] {
                let kind = try x.string()
                guard Sample.kinds.contains(kind) else {
                    throw x.error("\(x.path): '\(Excerpt.inner(kind))' is no crash-point sample; use \(Sample.kinds.joined(separator: ", "))")
                }
                var budget = Sample.defaultBudgetSeconds
                if let b = e["budget"] {
                    let text = try b.string()
                    guard let seconds = ScenarioDuration.seconds(from: text), (1...Sample.maximumBudgetSeconds).contains(seconds) else {
                        throw b.error("\(b.path): '\(Excerpt.inner(text))': use a wall time like 30s or 2m (at most 1h)")
                    }
                    budget = seconds
                }
                sample = Sample(budgetSeconds: budget)
            } else if let b = e["budget"] {
                throw b.error("\(b.path): a budget is for a crash-point sample; add explore: each-label-once")
            }
            entries.append(Entry(scenarioPaths: matches, variants: variants, seeds: seeds, variantsAt: e["variants"]?.error("variants"), explore: sample))
        }
        guard !entries.isEmpty else { throw top.error("runs: list at least one run") }
        let gate = try top["gate"].map { v throws(ScenarioError) in try v.stringList(nonEmpty: false) } ?? defaultGate
        return SuiteFile(path: file, entries: entries, gate: gate)
    }

    /// `7` or `"1-20"`.
    static func seedRange(_ value: ScenarioValue) throws(ScenarioError) -> ClosedRange<UInt64> {
        let text: String
        if let n = try? value.int(in: 0...Int.max) {
            text = String(n)
        } else {
            text = try value.string()
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let bounds = parts.compactMap { UInt64($0) }
        guard bounds.count == parts.count, (1...2).contains(bounds.count) else {
            throw value.error("\(value.path): use a whole number like 3 or a range like 1-20")
        }
        let (a, b) = (bounds[0], bounds.last ?? bounds[0])
        guard a <= b else { throw value.error("\(value.path): the first seed \(a) is greater than the last \(b)") }
        guard b - a < maximumSeeds else { throw value.error("\(value.path): \(b - a + 1) seeds; at most \(maximumSeeds)") }
        return a...b
    }

    /// glob(3), sorted, regular files only; no brace or tilde expansion.
    static func glob(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard Glibc.glob(pattern, 0, nil, &g) == 0 else { return [] }
        var paths: [String] = []
        for i in 0..<Int(g.gl_pathc) {
            guard let p = g.gl_pathv[i] else { continue }
            let path = String(cString: p)
            var st = stat()
            if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { paths.append(tidy(path, sameAs: st)) }
        }
        return paths.sorted()
    }

    /// `harness/../Sources/x.yaml` as `Sources/x.yaml` (what rerun lines and tables show), when the
    /// tidy path names the same file (a symlinked directory would make `..` mean something else).
    static func tidy(_ path: String, sameAs st: stat) -> String {
        var parts: [Substring] = []
        for c in path.split(separator: "/", omittingEmptySubsequences: true) {
            if c == "." { continue }
            if c == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(c) }
        }
        let tidy = (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
        var other = stat()
        guard !tidy.isEmpty, stat(tidy, &other) == 0, other.st_dev == st.st_dev, other.st_ino == st.st_ino else { return path }
        return tidy
    }
}
