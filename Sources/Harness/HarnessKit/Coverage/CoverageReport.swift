import Foundation

/// The part of `llvm-cov export`'s JSON (format 2.x) coverage reads: per file its summary, per
/// function its count and code regions.
package struct CoverageExport: Decodable, Sendable {
    package var data: [Datum]

    package struct Datum: Decodable, Sendable {
        package var files: [File]
        package var functions: [Function]?
    }

    package struct File: Decodable, Sendable {
        package var filename: String
        package var summary: Summary
    }

    package struct Summary: Decodable, Sendable {
        package var lines: Count
        package var functions: Count
        package var regions: Count
    }

    package struct Count: Decodable, Sendable {
        package var count: Int
        package var covered: Int
    }

    package struct Function: Decodable, Sendable {
        package var name: String
        package var count: Int
        /// `[lineStart, columnStart, lineEnd, columnEnd, executionCount, fileID, expandedFileID, kind]`.
        package var regions: [[Int]]
        package var filenames: [String]
    }

    package static func decode(_ data: Data) throws(CoverageError) -> CoverageExport {
        do { return try JSONDecoder().decode(CoverageExport.self, from: data) } catch {
            throw CoverageError("llvm-cov export's output is not the JSON expected (format 2.x): \(error)")
        }
    }
}

/// Covered of all, for lines, functions or regions.
package struct CoverageCount: Codable, Sendable, Equatable {
    package var covered: Int
    package var count: Int

    package init(covered: Int, count: Int) {
        self.covered = covered
        self.count = count
    }

    package static let zero = CoverageCount(covered: 0, count: 0)
    package static func + (a: CoverageCount, b: CoverageCount) -> CoverageCount { .init(covered: a.covered + b.covered, count: a.count + b.count) }

    /// `412/500 82.4%` (`-` when there is nothing to cover).
    package var text: String {
        count == 0 ? "-" : "\(covered)/\(count) \(String(format: "%.1f%%", 100 * Double(covered) / Double(count)))"
    }
}

/// One source file of the app: lines, functions and regions covered. Swift's coverage map has no
/// separate branch records (swiftc emits none): each arm of a branch — an `if`'s body and its
/// `else`, a `guard`'s `else`, each `case`, the rest of a function after an early return — is a
/// region of its own, so *regions* are the branch measure.
package struct FileCoverage: Codable, Sendable, Equatable {
    package var file: String
    package var lines: CoverageCount
    package var functions: CoverageCount
    package var regions: CoverageCount

    package init(file: String, lines: CoverageCount, functions: CoverageCount, regions: CoverageCount) {
        self.file = file
        self.lines = lines
        self.functions = functions
        self.regions = regions
    }

    package static let none = FileCoverage(file: "all", lines: .zero, functions: .zero, regions: .zero)
}

/// One code region of the app (a branch's arm, a function's body).
package struct CoverageRegion: Codable, Sendable, Hashable, Comparable {
    package var file: String
    package var line: Int
    package var column: Int
    package var endLine: Int
    package var endColumn: Int

    package static func < (a: CoverageRegion, b: CoverageRegion) -> Bool {
        (a.file, a.line, a.column, a.endLine, a.endColumn) < (b.file, b.line, b.column, b.endLine, b.endColumn)
    }
}

/// Code no run reached: a function never called, or a region (a branch's arm) of a function that
/// did run.
package struct CoverageGap: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
        case function
        case region
    }
    package var kind: Kind
    package var file: String
    package var line: Int
    package var column: Int
    package var endLine: Int
    /// The source line it starts on, trimmed.
    package var code: String
}

package struct RoleCoverage: Codable, Sendable, Equatable {
    package var role: String
    package var executable: String
    package var profiles: ProfileTally
    package var totals: FileCoverage
    /// The files this role's processes ran at least one line of.
    package var files: [FileCoverage]

    package init(role: String, executable: String, profiles: ProfileTally, totals: FileCoverage, files: [FileCoverage]) {
        self.role = role
        self.executable = executable
        self.profiles = profiles
        self.totals = totals
        self.files = files
    }
}

/// What `harness coverage` found (its `coverage.json`).
package struct CoverageReport: Codable, Sendable {
    package var runs: Int
    package var scenarios: [String]
    package var roles: [RoleCoverage]
    /// Every app file, the roles' profiles together.
    package var files: [FileCoverage]
    package var totals: FileCoverage
    package var gaps: [CoverageGap]
    package var html: String?
    package var runsDirectory: String
    /// `--fuzz`: how the regions reached grew, and the inputs kept.
    package var fuzz: Fuzz?

    package struct Fuzz: Codable, Sendable {
        /// `plans` (mutations of the corpus's plans, and fresh seeds) or `seeds` (the generator alone).
        package var mode: String
        package var budgetSeconds: Double
        package var runs = 0
        /// Mutated plans the pack would not take (not run), and the first few reasons.
        package var skippedInputs = 0
        package var skippedExamples: [String] = []
        package var undecided = 0
        /// The app's regions reached by the runs together.
        package var regionsReached = 0
        /// After each run: [wall seconds since the start, regions reached so far].
        package var timeline: [[Double]] = []
        package var corpus: [Entry] = []
        /// Run directories with a violation (kept).
        package var violations: [String] = []

        package struct Entry: Codable, Sendable {
            /// The scenario file that runs this input again (its plan pinned).
            package var file: String
            package var seed: UInt64
            /// What made it: `seed N`, or the mutation and the corpus entry it was made from.
            package var input: String
            package var newRegions: Int
            /// The first of them, file:line.
            package var first: String

            package init(file: String, seed: UInt64, input: String, newRegions: Int, first: String) {
                self.file = file
                self.seed = seed
                self.input = input
                self.newRegions = newRegions
                self.first = first
            }
        }

        package init(mode: String, budgetSeconds: Double) {
            self.mode = mode
            self.budgetSeconds = budgetSeconds
        }

        /// Regions reached by the end of each `step` seconds of wall time.
        package func buckets(step: Double) -> [(seconds: Double, regions: Int)] {
            guard step > 0 else { return [] }
            var out: [(Double, Int)] = []
            var t = step
            let end = max(budgetSeconds, timeline.last?.first ?? 0)
            while t <= end + step / 2 {
                out.append((t, Int(timeline.last { $0[0] <= t }?[1] ?? 0)))
                t += step
            }
            return out
        }
    }

    package init(runs: Int, scenarios: [String], roles: [RoleCoverage]) {
        self.runs = runs
        self.scenarios = scenarios
        self.roles = roles
        files = []
        totals = .none
        gaps = []
        html = nil
        runsDirectory = ""
        fuzz = nil
    }

    /// Files: the export's, the app's only, paths relative to `base`, sorted; and their sum.
    package static func files(_ export: CoverageExport, filter: AppCodeFilter, base: String) -> (files: [FileCoverage], totals: FileCoverage) {
        var out: [FileCoverage] = []
        for d in export.data {
            for f in d.files where filter.isAppCode(f.filename) {
                let s = f.summary
                out.append(
                    FileCoverage(
                        file: relative(f.filename, to: base), lines: .init(covered: s.lines.covered, count: s.lines.count),
                        functions: .init(covered: s.functions.covered, count: s.functions.count),
                        regions: .init(covered: s.regions.covered, count: s.regions.count)))
            }
        }
        out.sort { $0.file < $1.file }
        let totals = out.reduce(FileCoverage.none) {
            FileCoverage(file: "all", lines: $0.lines + $1.lines, functions: $0.functions + $1.functions, regions: $0.regions + $1.regions)
        }
        return (out, totals)
    }

    /// What no run reached, from the functions' regions: a function whose every instantiation ran
    /// 0 times; in a function that ran, each code region run 0 times that is not inside another
    /// such region (the outermost arm is the branch to write a scenario for). Sorted by file and line.
    package static func gaps(_ export: CoverageExport, filter: AppCodeFilter, base: String, code: (String, Int) -> String?) -> [CoverageGap] {
        // Keyed by absolute path; instantiations of one generic function share their keys.
        var functionCount: [CoverageRegion: Int] = [:]
        var regionCount: [CoverageRegion: Int] = [:]
        var regionFunction: [CoverageRegion: CoverageRegion] = [:]
        for fn in appFunctions(export, filter: filter) {
            functionCount[fn.body] = max(functionCount[fn.body] ?? 0, fn.count)
            for (k, count) in fn.regions {
                regionCount[k] = max(regionCount[k] ?? 0, count)
                if regionFunction[k] == nil { regionFunction[k] = fn.body }
            }
        }
        // By start, and an outer region before the regions it holds.
        func before(_ a: CoverageRegion, _ b: CoverageRegion) -> Bool {
            (a.file, a.line, a.column, b.endLine, b.endColumn) < (b.file, b.line, b.column, a.endLine, a.endColumn)
        }
        func contains(_ outer: CoverageRegion, _ inner: CoverageRegion) -> Bool {
            outer.file == inner.file && (outer.line, outer.column) <= (inner.line, inner.column)
                && (inner.endLine, inner.endColumn) <= (outer.endLine, outer.endColumn)
        }
        let neverCalled = functionCount.filter { $0.value == 0 }.map(\.key).sorted(by: before)
        var out: [CoverageGap] = []
        func gap(_ kind: CoverageGap.Kind, _ k: CoverageRegion) -> CoverageGap {
            CoverageGap(
                kind: kind, file: relative(k.file, to: base), line: k.line, column: k.column, endLine: k.endLine,
                code: String((code(k.file, k.line) ?? "").trimmingCharacters(in: .whitespaces).prefix(120)))
        }
        for k in neverCalled { out.append(gap(.function, k)) }
        var kept: [CoverageRegion] = []
        let unreached = regionCount.filter { $0.value == 0 && (functionCount[regionFunction[$0.key]!] ?? 0) > 0 }.map(\.key).sorted(by: before)
        for k in unreached where !kept.contains(where: { contains($0, k) }) {
            kept.append(k)
            out.append(gap(.region, k))
        }
        return out.sorted { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) }
    }

    /// The app's code regions some run reached (any instantiation, count > 0): what `--fuzz`
    /// compares run to run. Paths relative to `base`.
    package static func reached(_ export: CoverageExport, filter: AppCodeFilter, base: String) -> Set<CoverageRegion> {
        var out = Set<CoverageRegion>()
        for fn in appFunctions(export, filter: filter) where fn.count > 0 {
            for (k, count) in fn.regions where count > 0 {
                var r = k
                r.file = relative(k.file, to: base)
                out.insert(r)
            }
        }
        return out
    }

    /// The export's functions whose body is the app's code: each one's count, its body (its first
    /// code region) and its code regions with their counts, files as absolute paths. A region is
    /// `[lineStart, columnStart, lineEnd, columnEnd, count, fileID, expandedFileID, kind]`; kind
    /// 0 is code (1 expansion, 2 skipped, 3 gap, 4 branch).
    static func appFunctions(_ export: CoverageExport, filter: AppCodeFilter)
        -> [(count: Int, body: CoverageRegion, regions: [(CoverageRegion, Int)])]
    {
        var isApp: [String: Bool] = [:]
        var out: [(count: Int, body: CoverageRegion, regions: [(CoverageRegion, Int)])] = []
        for d in export.data {
            for fn in d.functions ?? [] {
                let code = fn.regions.filter { $0.count >= 8 && $0[7] == 0 && $0[5] < fn.filenames.count }
                guard let first = code.first else { continue }
                let file = fn.filenames[first[5]]
                if isApp[file] == nil { isApp[file] = filter.isAppCode(file) }
                guard isApp[file]! else { continue }
                func region(_ r: [Int]) -> CoverageRegion {
                    CoverageRegion(file: fn.filenames[r[5]], line: r[0], column: r[1], endLine: r[2], endColumn: r[3])
                }
                out.append((fn.count, region(first), code.map { (region($0), $0[4]) }))
            }
        }
        return out
    }

    static func relative(_ path: String, to base: String) -> String {
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// The report for people: per role, per file, then what no run reached (the first `gapLimit`).
    package func text(gapLimit: Int) -> String {
        func table(_ header: [String], _ rows: [[String]]) -> String {
            var widths = header.map(\.count)
            for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
            return ([header] + rows).map { r in
                r.enumerated().map { i, c in i == r.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }.joined(separator: "  ")
            }.joined(separator: "\n")
        }
        var out: [String] = []
        let processes = roles.map(\.profiles.processes).reduce(0, +)
        let lost = roles.map(\.profiles.lost).reduce(0, +)
        out.append("coverage of the app's code: \(runs) run\(runs == 1 ? "" : "s"), \(processes) processes, \(lost) profile\(lost == 1 ? "" : "s") lost")
        out.append("")
        var rows = roles.map { r in
            [r.role, r.executable, String(r.profiles.processes), String(r.profiles.lost), r.totals.lines.text, r.totals.functions.text, r.totals.regions.text]
        }
        rows.append(["all roles", "", String(processes), String(lost), totals.lines.text, totals.functions.text, totals.regions.text])
        out.append(table(["role", "executable", "processes", "lost", "lines", "functions", "regions (branches)"], rows))
        out.append("")
        out.append(table(["file", "lines", "functions", "regions"], files.map { [$0.file, $0.lines.text, $0.functions.text, $0.regions.text] }))
        out.append("")
        let functions = gaps.filter { $0.kind == .function }.count
        out.append("never reached: \(gaps.count - functions) region\(gaps.count - functions == 1 ? "" : "s") of functions that ran, \(functions) function\(functions == 1 ? "" : "s") never called")
        for g in gaps.prefix(gapLimit) {
            out.append("  \(g.file):\(g.line):\(g.column)  \(g.kind == .function ? "function" : "region  ")  \(g.code)")
        }
        if gaps.count > gapLimit { out.append("  … \(gaps.count - gapLimit) more in coverage.json (--gaps N shows more)") }
        if let f = fuzz {
            out.append("")
            out.append(
                "fuzz (\(f.mode == "plans" ? "mutated plans and fresh seeds" : "fresh seeds only"), \(Int(f.budgetSeconds)) s): \(f.runs) runs, "
                    + "\(f.regionsReached) regions reached, \(f.corpus.count) inputs kept, \(f.violations.count) with a violation"
                    + (f.skippedInputs > 0 ? ", \(f.skippedInputs) mutated plans the pack would not take" : ""))
            let step = max(1, (f.budgetSeconds / 10).rounded())
            out.append("  wall s   " + f.buckets(step: step).map { String(format: "%6.0f", $0.seconds) }.joined())
            out.append("  regions  " + f.buckets(step: step).map { String(format: "%6d", $0.regions) }.joined())
            for e in f.corpus { out.append("  kept \(e.file): +\(e.newRegions) (\(e.input); first \(e.first))") }
            for v in f.violations { out.append("  violation: \(v)") }
        }
        for r in roles where r.profiles.lost > 0 {
            out.append("lost profiles of \(r.role): " + r.profiles.lostExamples.joined(separator: "; "))
        }
        return out.joined(separator: "\n")
    }
}
