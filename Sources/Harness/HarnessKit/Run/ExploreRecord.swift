import AppGroup
import Foundation
import Supervision

/// What one `harness explore` did, kept in its directory as `explore.json`: the run it explored
/// (scenario, variant, seed, build), every crash point of that run, which of them this explore
/// took (`--max`, `--each-label-once`, `--shard`) and every point's verdict. The run directories of
/// points that held are removed (a thousand runs are gigabytes), so this file is the only record
/// of them: `harness merge` puts the shards of one exploration together from it (`ExploreMerge`).
package struct ExploreRecord: Codable, Sendable, Equatable {
    package static let fileName = "explore.json"
    package static let currentVersion = 1

    package struct Point: Codable, Sendable, Equatable {
        package var crashPoint: String
        package var verdict: String
        package var detail: [String]
        package var runDirectory: String
        package var wallSeconds: Double
        package var rerunCommand: String

        package init(_ f: CrashPointExplorer.Finding) {
            self.init(
                crashPoint: f.crashPoint, verdict: f.verdict.rawValue, detail: f.detail, runDirectory: f.runDirectory, wallSeconds: f.wallSeconds,
                rerunCommand: f.rerunCommand)
        }

        /// The finding it records; nil when its verdict is not one this harness knows.
        package var finding: CrashPointExplorer.Finding? {
            CrashPointExplorer.Verdict(rawValue: verdict).map {
                CrashPointExplorer.Finding(
                    crashPoint: crashPoint, verdict: $0, detail: detail, runDirectory: runDirectory, wallSeconds: wallSeconds,
                    rerunCommand: rerunCommand)
            }
        }

        package init(crashPoint: String, verdict: String, detail: [String], runDirectory: String, wallSeconds: Double, rerunCommand: String) {
            self.crashPoint = crashPoint
            self.verdict = verdict
            self.detail = detail
            self.runDirectory = runDirectory
            self.wallSeconds = wallSeconds
            self.rerunCommand = rerunCommand
        }
    }

    package var version = ExploreRecord.currentVersion
    package var scenario: String
    package var scenarioPath: String
    package var variant: String
    package var seed: UInt64
    /// `BuildIdentity` of the harness and the system's executables.
    package var build: String
    /// `--max` (nil: every point) and `--each-label-once`.
    package var maxPoints: Int?
    package var eachLabelOnce: Bool
    /// `--user-retry` (nil: the scenario's `user.retry`).
    package var userRetry: String?
    /// `--shard K/N` (nil: unsharded).
    package var shardIndex: Int?
    package var shardCount: Int?
    /// Every crash point of the enumeration run, in order.
    package var crashPoints: [String]
    /// The enumeration run: its exit code (2: undecided, nothing explored) and directory.
    package var enumerationExitCode: Int32
    package var enumerationRunDirectory: String
    /// The points this explore took, in order, and its verdict of each it decided.
    package var chosen: [String]
    package var points: [Point]
    /// False when the exploration was interrupted (a signal) before every chosen point was decided.
    package var complete: Bool
    package var wallSeconds: Double

    /// The points an unsharded explore with this record's selection takes (what the shards split).
    package var selection: [String] { CrashPointExplorer.selection(of: crashPoints, maxPoints: maxPoints, eachLabelOnce: eachLabelOnce) }

    package var shard: Shard? {
        guard let k = shardIndex, let n = shardCount else { return nil }
        return Shard(index: k, count: n)
    }

    /// The record of an exploration so far: `findings` decided of `chosen` (complete: every one,
    /// not interrupted).
    package init(
        options: ScenarioRunner.Options, maxPoints: Int?, eachLabelOnce: Bool, shard: Shard?, crashPoints: [String],
        enumeration: ScenarioRunner.Outcome, chosen: [String], findings: [CrashPointExplorer.Finding], complete: Bool, wallSeconds: Double
    ) {
        scenario = options.scenario.name
        scenarioPath = options.scenarioPath
        variant = options.variant.rawValue
        seed = options.seed
        build = BuildIdentity.of(
            binDirectory: options.binDirectory, executables: [Executables.currentName] + options.scenario.system.descriptor.roles.map(\.executable))
        self.maxPoints = maxPoints
        self.eachLabelOnce = eachLabelOnce
        userRetry = options.userRetry?.description
        shardIndex = shard?.index
        shardCount = shard?.count
        self.crashPoints = crashPoints
        enumerationExitCode = enumeration.exitCode
        enumerationRunDirectory = enumeration.runDirectory
        self.chosen = chosen
        points = findings.map(Point.init)
        self.complete = complete
        self.wallSeconds = wallSeconds
    }

    package init(result: CrashPointExplorer.Result, options: ScenarioRunner.Options, maxPoints: Int?, eachLabelOnce: Bool, shard: Shard?, complete: Bool) {
        self.init(
            options: options, maxPoints: maxPoints, eachLabelOnce: eachLabelOnce, shard: shard, crashPoints: result.crashPoints,
            enumeration: result.enumeration, chosen: result.chosen, findings: result.findings, complete: complete && result.mismatch == nil,
            wallSeconds: result.wallSeconds)
    }

    /// Each point as it is decided, one JSON line appended to this file beside the record: what
    /// `--resume` finds of an exploration that was killed before it wrote its record again.
    package static let pointsFileName = "explore-points.jsonl"

    /// The points decided in `dir`: the record's, then the lines of `pointsFileName` (a torn last
    /// line — the explorer killed while appending — is skipped), the last word on a point winning.
    package static func decidedPoints(record: ExploreRecord, directory dir: String) -> [String: CrashPointExplorer.Finding] {
        var out: [String: CrashPointExplorer.Finding] = [:]
        var all = record.points
        if let data = try? InputFile.read(dir + "/" + pointsFileName, limitBytes: ExploreMerge.maxRecordBytes) {
            for line in data.split(separator: UInt8(ascii: "\n")) {
                if let p = try? JSONDecoder().decode(Point.self, from: Data(line)) { all.append(p) }
            }
        }
        for p in all { if let f = p.finding { out[p.crashPoint] = f } }
        return out
    }

    package func write(toDirectory dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        try OutputFile.write(enc.encode(self), to: dir + "/" + Self.fileName, what: "the exploration's record")
    }
}

/// `harness merge` of explore shards: the records (`explore.json`) of the shards of one
/// exploration — same scenario, variant, seed, build, selection and N — put together as the one
/// crash-point table, JUnit and exit code the unsharded explore gives. It refuses (an error, exit 2)
/// rather than merge what would not be the unsharded work: a shard missing or given twice, shards
/// whose runs had other crash points (another build or scenario file), a shard that did not take
/// exactly its part, or one that was interrupted.
package enum ExploreMerge {
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    package struct Merged: Sendable {
        /// One exploration: its first record names it.
        package var scenario: String
        package var variant: String
        package var seed: UInt64
        package var crashPointCount: Int
        /// The records' directories, by shard.
        package var directories: [String]
        /// Every point of the selection, in crash-point order, with its verdict.
        package var findings: [CrashPointExplorer.Finding]
        /// An enumeration run that could not be decided (nothing explored in that shard).
        package var undecidedEnumerations: [String]
        /// The run itself, un-killed, violated an invariant (every shard's enumeration is that run).
        package var enumerationViolated = false

        /// As `harness explore`: 2 a point undecided or not reached (or an enumeration undecided),
        /// 1 a violation (at a point, or in the run itself), 0 every point held.
        package var exitCode: Int32 {
            if !undecidedEnumerations.isEmpty || findings.contains(where: { $0.verdict == .undecided || $0.verdict == .notReached }) { return 2 }
            return findings.contains { $0.verdict == .violated } || enumerationViolated ? 1 : 0
        }
    }

    static let maxRecords = 10_000
    static let maxRecordBytes = 256 << 20

    /// Every `explore.json` under `directory` (it or up to three levels below, as `harness merge`
    /// looks for run directories), sorted.
    package static func recordPaths(under directory: String) -> [String] {
        RunMerge.findDirectories(under: directory, holding: ExploreRecord.fileName).map { $0 + "/" + ExploreRecord.fileName }
    }

    package static func load(_ path: String) throws(Failure) -> ExploreRecord {
        let bytes: Data
        do { bytes = try InputFile.read(path, limitBytes: maxRecordBytes) } catch { throw Failure(description: "\(error)") }
        do {
            let record = try JSONDecoder().decode(ExploreRecord.self, from: bytes)
            guard record.version == ExploreRecord.currentVersion else {
                throw Failure(description: "\(path): version \(record.version) of the record; this harness reads \(ExploreRecord.currentVersion)")
            }
            return record
        } catch let f as Failure {
            throw f
        } catch {
            throw Failure(description: "\(path): not an exploration's record (\(error))")
        }
    }

    /// Groups `records` (with their paths) into explorations and merges each; records of
    /// different scenarios, variants or seeds are different explorations.
    package static func merge(_ records: [(path: String, record: ExploreRecord)]) throws(Failure) -> [Merged] {
        guard records.count <= maxRecords else { throw Failure(description: "more than \(maxRecords) exploration records to merge") }
        var groups: [String: [(path: String, record: ExploreRecord)]] = [:]
        for r in records { groups["\(r.record.scenario)\u{0}\(r.record.variant)\u{0}\(r.record.seed)", default: []].append(r) }
        var out: [Merged] = []
        for key in groups.keys.sorted() {
            out.append(try mergeOne(groups[key]!))
        }
        return out
    }

    static func mergeOne(_ shards: [(path: String, record: ExploreRecord)]) throws(Failure) -> Merged {
        let first = shards[0].record
        let name = "\(first.scenario) [\(first.variant)] seed \(first.seed)"
        for (path, r) in shards {
            guard r.build == first.build else {
                let diff = BuildIdentity.differences(recorded: first.build, now: r.build).joined(separator: "; ")
                throw Failure(description: "\(name): \(path) was explored with another build than \(shards[0].path) (\(diff)); merge the shards of one build")
            }
            guard r.maxPoints == first.maxPoints, r.eachLabelOnce == first.eachLabelOnce, r.shardCount == first.shardCount else {
                throw Failure(description: "\(name): \(path) took another selection (--max, --each-label-once or --shard N) than \(shards[0].path)")
            }
            guard r.crashPoints == first.crashPoints else {
                throw Failure(description: "\(name): \(path)'s run had other crash points than \(shards[0].path)'s (another scenario file?); merge the shards of one exploration")
            }
            guard r.complete else {
                let dir = PathText.directory(of: path)
                throw Failure(description: "\(name): \(path) was interrupted before every point of its part was decided; go on with harness explore … --resume \(dir)")
            }
        }
        let n = first.shardCount ?? 1
        var byIndex: [Int: (path: String, record: ExploreRecord)] = [:]
        for s in shards {
            let k = s.record.shardIndex ?? 1
            if let other = byIndex[k] {
                throw Failure(description: "\(name): shard \(k)/\(n) is given twice (\(other.path), \(s.path))")
            }
            byIndex[k] = s
        }
        let missing = (1...n).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            throw Failure(description: "\(name): shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(n)" }.joined(separator: ", ")) missing (a shard's artifact went missing?)")
        }
        let selection = first.selection
        var findings: [Int: CrashPointExplorer.Finding] = [:]
        var undecided: [String] = []
        for k in 1...n {
            let (path, r) = byIndex[k]!
            if r.enumerationExitCode == 2 {
                undecided.append("\(path): the enumeration run could not be decided (\(r.enumerationRunDirectory))")
                continue
            }
            // An unsharded exploration is shard 1/1, whose part is the whole selection.
            let shard = Shard(index: k, count: n)
            let part = shard.part(of: selection)
            guard r.chosen == part, r.points.map(\.crashPoint) == part else {
                throw Failure(description: "\(name): \(path) did not explore exactly shard \(k)/\(n)'s part of the points (\(r.points.count) decided, \(part.count) expected)")
            }
            for (i, point) in zip(selection.indices.filter(shard.owns), r.points) {
                guard let finding = point.finding else {
                    throw Failure(description: "\(name): \(path): \(point.crashPoint) has no verdict harness knows (\(Excerpt.quoted(point.verdict)))")
                }
                findings[i] = finding
            }
        }
        return Merged(
            scenario: first.scenario, variant: first.variant, seed: first.seed, crashPointCount: first.crashPoints.count,
            directories: (1...n).map { PathText.directory(of: byIndex[$0]!.path) },
            findings: findings.keys.sorted().map { findings[$0]! }, undecidedEnumerations: undecided,
            enumerationViolated: shards.contains { $0.record.enumerationExitCode == 1 })
    }
}
