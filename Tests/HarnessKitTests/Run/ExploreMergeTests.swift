import Foundation
import HarnessKit
import Testing

/// `harness merge` of explore shards (`ExploreMerge`): the shards' records put together give every
/// point of the unsharded selection, in crash-point order, with the unsharded explore's exit code;
/// anything that would not be the unsharded work — a shard missing or twice, another build or run,
/// another selection, an interrupted shard, a shard that did not take its part — is refused.
@Suite(.timeLimit(.minutes(1))) struct ExploreMergeTests {
    static let points = (1...7).map { "host-app:http.send:settlement-server POST /h#\($0)" } + ["monitor-extension:respond#1"]

    /// Shard k of n of an exploration of `points`, every point of its part decided `held`
    /// (`verdicts` overrides by point).
    static func shard(_ k: Int?, of n: Int?, max: Int? = nil, verdicts: [String: String] = [:]) throws -> ExploreRecord {
        let json: [String: Any] = [
            "version": 1, "scenario": "fp", "scenarioPath": "fp.yaml", "variant": "hardened", "seed": 1, "build": "harness=ab,sth=cd",
            "eachLabelOnce": false, "crashPoints": points, "enumerationExitCode": 0, "enumerationRunDirectory": "/r/enum",
            "chosen": [String](), "points": [[String: Any]](), "complete": true, "wallSeconds": 1.0,
        ]
        var r = try JSONDecoder().decode(ExploreRecord.self, from: JSONSerialization.data(withJSONObject: json))
        r.maxPoints = max
        r.shardIndex = k
        r.shardCount = n
        let part = k.map { Shard(index: $0, count: n!).part(of: r.selection) } ?? r.selection
        r.chosen = part
        r.points = part.map {
            .init(crashPoint: $0, verdict: verdicts[$0] ?? "held", detail: [], runDirectory: "/r/\($0)", wallSeconds: 0.5, rerunCommand: "harness run …")
        }
        return r
    }

    static func merge(_ records: [ExploreRecord]) throws -> [ExploreMerge.Merged] {
        try ExploreMerge.merge(records.enumerated().map { ("/s\($0.offset)/explore.json", $0.element) })
    }

    @Test(arguments: [1, 2, 3, 8])
    func theShardsTogetherAreTheUnshardedExplore(count: Int) throws {
        let merged = try #require(try Self.merge((1...count).reversed().map { try Self.shard($0, of: count) }).first)
        #expect(merged.findings.map(\.crashPoint) == Self.points, "every point, in the run's order")
        #expect(merged.exitCode == 0 && merged.crashPointCount == 8 && merged.directories.count == count)
        let unsharded = try #require(try Self.merge([Self.shard(nil, of: nil)]).first)
        #expect(unsharded.findings.map(\.crashPoint) == merged.findings.map(\.crashPoint))
    }

    @Test func aMaxIsTheSelectionTheShardsSplit() throws {
        let merged = try #require(try Self.merge([Self.shard(1, of: 2, max: 3), Self.shard(2, of: 2, max: 3)]).first)
        #expect(merged.findings.map(\.crashPoint) == Array(Self.points.prefix(3)))
    }

    @Test func theExitCodeIsTheUnshardedExplores() throws {
        let violated = try Self.merge([Self.shard(1, of: 2, verdicts: [Self.points[0]: "violated"]), Self.shard(2, of: 2)])
        #expect(violated.first?.exitCode == 1)
        let notReached = try Self.merge([Self.shard(1, of: 2, verdicts: [Self.points[0]: "violated"]), Self.shard(2, of: 2, verdicts: [Self.points[1]: "not reached"])])
        #expect(notReached.first?.exitCode == 2)
        var undecided = try Self.shard(2, of: 2)
        undecided.enumerationExitCode = 2
        undecided.chosen = []
        undecided.points = []
        let u = try #require(try Self.merge([Self.shard(1, of: 2), undecided]).first)
        #expect(u.exitCode == 2 && u.undecidedEnumerations.count == 1)
        // The run itself, un-killed, violated (as-written often does): explore exits 1, so does the merge.
        var violating = [try Self.shard(1, of: 2), try Self.shard(2, of: 2)]
        for i in violating.indices { violating[i].enumerationExitCode = 1 }
        #expect(try Self.merge(violating).first?.exitCode == 1)
    }

    /// Each way the shards would not be the unsharded work, with the words of its one-line error.
    @Test func whatIsNotTheUnshardedWorkIsRefused() throws {
        func refused(_ records: [ExploreRecord], _ words: String) throws {
            do {
                _ = try Self.merge(records)
                Issue.record("merged: \(words)")
            } catch {
                #expect("\(error)".contains(words), "\(error)")
            }
        }
        try refused([Self.shard(1, of: 3), Self.shard(3, of: 3)], "shard 2/3 missing")
        try refused([Self.shard(1, of: 2), Self.shard(1, of: 2), Self.shard(2, of: 2)], "shard 1/2 is given twice")
        var otherBuild = try Self.shard(2, of: 2)
        otherBuild.build = "harness=ff,sth=cd"
        try refused([Self.shard(1, of: 2), otherBuild], "another build")
        var otherRun = try Self.shard(2, of: 2)
        otherRun.crashPoints.removeLast()
        try refused([Self.shard(1, of: 2), otherRun], "other crash points")
        try refused([Self.shard(1, of: 2, max: 4), Self.shard(2, of: 2)], "another selection")
        try refused([Self.shard(1, of: 2), Self.shard(2, of: 3)], "another selection")
        var interrupted = try Self.shard(2, of: 2)
        interrupted.complete = false
        try refused([Self.shard(1, of: 2), interrupted], "interrupted")
        var short = try Self.shard(2, of: 2)
        short.points.removeLast()
        try refused([Self.shard(1, of: 2), short], "did not explore exactly shard 2/2's part")
        var unknown = try Self.shard(2, of: 2)
        unknown.points[0].verdict = "maybe"
        try refused([Self.shard(1, of: 2), unknown], "no verdict harness knows")
    }

    @Test func explorationsOfOtherSeedsAreMergedApart() throws {
        var other = try Self.shard(nil, of: nil)
        other.seed = 2
        let merged = try Self.merge([Self.shard(nil, of: nil), other])
        #expect(merged.map(\.seed) == [1, 2])
    }

    @Test func aRecordRoundTripsThroughItsFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("explore-record-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.shard(2, of: 3)
        try r.write(toDirectory: dir)
        #expect(ExploreMerge.recordPaths(under: dir) == [dir + "/explore.json"])
        #expect(try ExploreMerge.load(dir + "/explore.json") == r)
        try Data("{\"version\": 9}".utf8).write(to: URL(fileURLWithPath: dir + "/explore.json"))
        #expect(throws: ExploreMerge.Failure.self) { try ExploreMerge.load(dir + "/explore.json") }
    }
}

/// `harness explore --resume`: what is carried over from an interrupted exploration.
@Suite(.timeLimit(.minutes(1))) struct ExploreResumeTests {
    static func finding(_ p: String, _ v: CrashPointExplorer.Verdict) throws -> CrashPointExplorer.Finding {
        let r = try ExploreMergeTests.shard(nil, of: nil, verdicts: [p: v.rawValue])
        let point = try #require(r.points.first { $0.crashPoint == p })
        return try #require(ExploreRecord.decidedPoints(record: ExploreRecord(copying: r, points: [point]), directory: "/nonexistent")[p])
    }

    /// A point an interruption left undecided is explored again; held, violated and not reached stay.
    @Test func anUndecidedPointIsExploredAgain() throws {
        let p = ExploreMergeTests.points
        let resume = CrashPointExplorer.Resume(crashPoints: p, decided: [
            p[0]: try Self.finding(p[0], .held), p[1]: try Self.finding(p[1], .undecided), p[2]: try Self.finding(p[2], .violated),
            p[3]: try Self.finding(p[3], .notReached),
        ])
        #expect(Set(resume.decided.keys) == [p[0], p[2], p[3]])
    }

    /// The record's points, then each appended line; a torn last line (the explorer killed while
    /// writing it) is skipped, and a later line about a point wins over the record.
    @Test func theDecidedPointsAreTheRecordsThenTheAppendedLines() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("explore-resume-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = ExploreMergeTests.points
        let full = try ExploreMergeTests.shard(nil, of: nil)
        let record = ExploreRecord(copying: full, points: [full.points[0], full.points[1]])
        var again = full.points[1]
        again.verdict = "violated"
        let lines = try [again, full.points[2]].map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let torn = String(lines[1].prefix(20))
        try Data((lines.joined(separator: "\n") + "\n" + torn).utf8).write(to: URL(fileURLWithPath: dir + "/" + ExploreRecord.pointsFileName))
        let decided = ExploreRecord.decidedPoints(record: record, directory: dir)
        #expect(Set(decided.keys) == [p[0], p[1], p[2]])
        #expect(decided[p[1]]?.verdict == .violated)
    }

    @Test func anotherRunsCrashPointsAreNamedWhereTheyDiffer() {
        let p = ExploreMergeTests.points
        #expect(CrashPointExplorer.Resume.difference(recorded: p, now: p) == nil)
        var other = p
        other[3] = "host-app:shield:default#1"
        #expect(CrashPointExplorer.Resume.difference(recorded: p, now: other)?.contains("point 4 was \(p[3]), is host-app:shield:default#1") == true)
        #expect(CrashPointExplorer.Resume.difference(recorded: p, now: Array(p.prefix(5)))?.contains("point 6 was \(p[5]), is (the end: 5 points)") == true)
    }
}

extension ExploreRecord {
    /// `r` with only `points` decided.
    init(copying r: ExploreRecord, points: [Point]) {
        self = r
        self.points = points
    }
}

/// The order `harness explore` runs the points in: every label's first pass, then the second
/// passes, … — each round in the run's order.
@Suite(.timeLimit(.minutes(1))) struct ExploreOrderTests {
    @Test func everyLabelsFirstPassComesFirst() {
        let points = ["a#1", "b#1", "a#2", "a#3", "c#1", "b#2", "a#4", "d"]
        let order = CrashPointExplorer.executionOrder(points)
        #expect(order.map { points[$0] } == ["a#1", "b#1", "c#1", "d", "a#2", "b#2", "a#3", "a#4"])
        #expect(order.sorted() == Array(points.indices), "every point once")
    }
}
