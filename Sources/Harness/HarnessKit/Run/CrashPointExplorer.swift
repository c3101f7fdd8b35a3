import AppGroup
import Foundation
import RunReport
import Supervision

/// `harness explore`: runs a scenario × variant × seed once with its crash points recorded, then
/// once per crash point (up to a bound) with a failpoint that SIGKILLs that process exactly at
/// that point (`<process>:<label>#<n>=kill`); iOS relaunches it as usual, the run goes on, and
/// the invariants are checked. Every run uses real processes (docs/EXPLORE.md
/// says what that costs). Under virtual time a run replays exactly, so the run killed at point P
/// is the enumeration run up to P; a point that is not reached is reported as such, never as a pass.
package enum CrashPointExplorer {
    package enum Verdict: String, Sendable {
        /// The process died there, was relaunched, and every invariant held.
        case held
        case violated
        /// The run could not be decided (setup error, interruption, tampering).
        case undecided
        /// The failpoint never fired: the run took another path before the point.
        case notReached = "not reached"
    }

    package struct Finding: Sendable {
        package var crashPoint: String
        package var verdict: Verdict
        /// The invariants violated (sorted), or why it is undecided.
        package var detail: [String]
        package var runDirectory: String
        package var wallSeconds: Double
        /// The command that reruns exactly this run.
        package var rerunCommand: String
        /// The process died in a tap of the user's, and their retry choice decided what followed
        /// (`explore` then tries the point the other way).
        package var retryInPlay = false

        /// The invariants a violated point broke: `detail` without its notes (in parentheses: the
        /// point not reached, the other retry way).
        package var invariants: [String] { verdict == .violated ? named : [] }

        /// `detail` as one line after the verdict: what it names in parentheses, then each note as
        /// it is (it has its own) — "violated (a, b) (the same with --user-retry never)"; empty
        /// when there is none.
        package var detailText: String {
            let notes = detail.filter(Self.isNote)
            return ((named.isEmpty ? [] : ["(" + named.joined(separator: ", ") + ")"]) + notes).joined(separator: " ")
        }

        /// What `detail` names (invariants, or why undecided), its notes aside.
        private var named: [String] { detail.filter { !Self.isNote($0) } }

        /// A note of `detail` is written in parentheses.
        private static func isNote(_ d: String) -> Bool { d.hasPrefix("(") }

        package init(
            crashPoint: String, verdict: CrashPointExplorer.Verdict, detail: [String], runDirectory: String, wallSeconds: Double, rerunCommand: String,
            retryInPlay: Bool = false
        ) {
            (self.crashPoint, self.verdict, self.detail, self.runDirectory) = (crashPoint, verdict, detail, runDirectory)
            (self.wallSeconds, self.rerunCommand, self.retryInPlay) = (wallSeconds, rerunCommand, retryInPlay)
        }
    }

    package struct Result: Sendable {
        /// The run that enumerated the crash points.
        package var enumeration: ScenarioRunner.Outcome
        /// Every crash point the enumeration run passed, in order.
        package var crashPoints: [String]
        /// The points this exploration took (`--max`, `--each-label-once`, `--shard`), in order.
        package var chosen: [String] = []
        package var findings: [Finding]
        /// Wall seconds of the whole exploration (the enumeration run included).
        package var wallSeconds: Double
        /// How many of `findings` an earlier exploration decided (`--resume`): not explored again.
        package var resumed = 0
        /// Set when the enumeration run's crash points are not the ones expected (`--resume` of an
        /// exploration of another build or scenario file): nothing was explored.
        package var mismatch: String?
        /// `--fail-fast`: a point violated and no new point was started after it.
        package var stoppedAtViolation = false
        /// A wall-time budget ran out: no new point was started after it (the suite's samples).
        package var stoppedByBudget = false
        /// With stand-ins inside the harness (`--in-process`): how the points ran — inside, the
        /// un-killed run having been the same run as with processes, or with processes because
        /// it was not (the first difference). Nil: with processes, as asked.
        package var inProcessCheck: String?
        /// Where the points' stand-ins ran in the end (`.none`: with processes).
        package var pointsRanInside: InProcessScope = .none

        /// Crash points explored per wall minute (by this exploration), the enumeration run's time included.
        package var pointsPerMinute: Double { wallSeconds > 0 ? Double(findings.count - resumed) * 60 / wallSeconds : 0 }
        package var exitCode: Int32 {
            if mismatch != nil || enumeration.exitCode == 2 || findings.contains(where: { $0.verdict == .undecided || $0.verdict == .notReached }) { return 2 }
            return findings.contains { $0.verdict == .violated } || enumeration.exitCode == 1 ? 1 : 0
        }
    }

    /// Explores every crash point of `base`'s run, at most `maxPoints`; `keepPassingRuns` keeps
    /// the run directories of points that held (else removed: a thousand runs are gigabytes).
    /// `jobs` runs go at once (each its own harness run, device root and processes; under virtual
    /// time a run's outcome does not depend on how fast it goes, so neither do the findings).
    /// `onFinding` sees each point as it is decided — `done` counts the points decided so far,
    /// in the order they finish — one call at a time (the CLI's progress line); the result lists
    /// them in crash-point order whatever the order they finished in.
    package static func explore(
        _ base: ScenarioRunner.Options, maxPoints: Int?, shard: Shard? = nil, keepPassingRuns: Bool = false, jobs: Int = 1,
        eachLabelOnce: Bool = false, resuming: Resume? = nil, failFast: Bool = false, budgetSeconds: Double? = nil,
        progress: @escaping @Sendable (String) -> Void,
        onChosen: (_ enumeration: ScenarioRunner.Outcome, _ chosen: [String]) -> Void = { _, _ in },
        onFinding: @escaping @Sendable (_ done: Int, _ total: Int, Finding) -> Void = { _, _, _ in }
    ) -> Result {
        let t0 = LiveRun.now()
        var base = base
        var recording = base
        recording.recordCrashPoints = true
        recording.outputDirectory = base.outputDirectory + "/enumeration"
        recording.inProcess = .none
        let enumeration = ScenarioRunner(options: recording).run()
        let points = enumeration.crashPoints
        // Stand-ins inside the harness only where the run is the same run: the enumeration, with
        // processes, is made again inside the harness and the two compared — crash points,
        // verdict, normalized history. Any difference, and the points run with processes.
        var inProcessCheck: String?
        if base.inProcess != .none && enumeration.exitCode != 2 {
            var inside = recording
            inside.inProcess = base.inProcess
            inside.outputDirectory = base.outputDirectory + "/enumeration-in-process"
            let twin = ScenarioRunner(options: inside).run()
            if let difference = sameRun(enumeration, twin) {
                inProcessCheck = "not the same run inside the harness (\(difference)): every point runs with processes"
                base.inProcess = .none
            } else {
                inProcessCheck = "inside the harness (--in-process \(base.inProcess.rawValue)): its un-killed run is the same run as with processes"
                try? FileManager.default.removeItem(atPath: twin.runDirectory)
                try? FileManager.default.removeItem(atPath: inside.outputDirectory)
            }
            progress("points run " + inProcessCheck!)
        }
        guard enumeration.exitCode != 2 else {
            return Result(enumeration: enumeration, crashPoints: points, findings: [], wallSeconds: seconds(since: t0))
        }
        if let resuming, let difference = Resume.difference(recorded: resuming.crashPoints, now: points) {
            return Result(enumeration: enumeration, crashPoints: points, findings: [], wallSeconds: seconds(since: t0), mismatch: difference)
        }
        // A shard takes its part of the selection: the shards' union is the unsharded work.
        let first = selection(of: points, maxPoints: maxPoints, eachLabelOnce: eachLabelOnce)
        let chosen = shard?.part(of: first) ?? first
        onChosen(enumeration, chosen)
        // Resuming: the points the earlier exploration decided are not run again.
        let earlier = resuming?.decided ?? [:]
        // A budget counts from the exploration's start: the enumeration run is part of it.
        let work = WorkQueue(
            order: executionOrder(chosen), stopAtViolation: failFast,
            deadlineNanos: budgetSeconds.map { t0 + Int64(max(0, min($0, 1e6)) * 1e9) })
        for (i, p) in chosen.enumerated() { if let f = earlier[p] { work.preset(i, f) } }
        let workerCount = max(1, min(jobs, chosen.count - work.decidedCount))
        let cpus = workerCPUs(base.cpu, count: workerCount)
        // Each worker a thread of its own (a run's loop blocks; 8 MB of stack like the main thread).
        // No bound on the wait: each run is bounded by its own wall-time limits.
        let workers = DispatchGroup()
        for k in 0..<workerCount {
            workers.enter()
            var pointBase = base
            pointBase.cpu = cpus[k]
            let thread = Thread { [pointBase] in
                while RunInterruption.signal == nil, let i = work.next() {
                    guard let finding = explore(point: chosen[i], index: i, base: pointBase, keepPassingRuns: keepPassingRuns) else { continue }
                    work.finish(i, finding) { done in onFinding(done, chosen.count, finding) }
                }
                workers.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        workers.wait()
        waitForPointProcesses()
        let findings = work.findings
        var result = Result(
            enumeration: enumeration, crashPoints: points, chosen: chosen, findings: findings, wallSeconds: seconds(since: t0),
            resumed: findings.filter { earlier[$0.crashPoint] != nil }.count, stoppedAtViolation: work.stopped,
            stoppedByBudget: work.outOfTime)
        result.inProcessCheck = inProcessCheck
        result.pointsRanInside = base.inProcess
        return result
    }

    /// The killed points of an exploration whose stand-ins ran inside the harness, run again both
    /// ways — inside and with real processes — and compared: the same verdict and the same
    /// normalized history (the `run_started` line aside). The same-run check before the points
    /// guards only the un-killed run; a kill is where the two paths part (a real SIGKILL and exit
    /// against a parked thread), so a sample of kills is checked too. `count` points, spread
    /// evenly over `points`; each pair's runs are kept under `<out>/same-run/<k>-{inside,processes}`.
    package struct KilledPointCheck: Sendable {
        package var point: String
        /// Nil: the same both ways; else the first difference, in a few words.
        package var difference: String?
    }

    package static func checkKilledPoints(_ points: [String], count: Int, base: ScenarioRunner.Options) -> [KilledPointCheck] {
        guard count > 0, !points.isEmpty, base.inProcess != .none else { return [] }
        let n = min(count, points.count)
        let picked = (0..<n).map { points[$0 * points.count / n] }
        var out: [KilledPointCheck] = []
        for (k, point) in picked.enumerated() {
            if RunInterruption.signal != nil { break }
            var inside = base, processes = base
            inside.outputDirectory = base.outputDirectory + "/same-run/inside"
            processes.outputDirectory = base.outputDirectory + "/same-run/processes"
            processes.inProcess = .none
            guard let a = explore(point: point, index: k, base: inside, keepPassingRuns: true, otherWay: false),
                let b = explore(point: point, index: k, base: processes, keepPassingRuns: true, otherWay: false)
            else { continue }
            out.append(KilledPointCheck(point: point, difference: sameKilledRun(inside: a, processes: b)))
        }
        return out
    }

    /// Nil when a point's two runs agree (verdict, detail, normalized history but `run_started`).
    package static func sameKilledRun(inside a: Finding, processes b: Finding) -> String? {
        guard a.verdict == b.verdict, a.detail == b.detail else {
            return "\(b.verdict.rawValue)\(b.detail.isEmpty ? "" : " " + b.detailText) with processes, "
                + "\(a.verdict.rawValue)\(a.detail.isEmpty ? "" : " " + a.detailText) inside"
        }
        return historyDifference(b.runDirectory, a.runDirectory).map { "\($0) (\(b.runDirectory) against \(a.runDirectory))" }
    }

    /// Nil when two run directories hold the same normalized history (the `run_started` line,
    /// which names the command, aside); else where they part, in a few words.
    static func historyDifference(_ a: String, _ b: String) -> String? {
        func history(_ dir: String) -> [String]? {
            (try? HistoryNormalizer.normalize(runDirectory: dir))?.filter { !$0.contains("\"event\":\"run_started\"") }
        }
        guard let ha = history(a), let hb = history(b) else { return "a history could not be read" }
        guard ha != hb else { return nil }
        let i = ha.indices.first { $0 >= hb.count || ha[$0] != hb[$0] } ?? ha.count
        return "history line \(i + 1) differs"
    }

    /// Nil when two runs of one scenario are the same run — the same exit code, crash points and
    /// normalized history (but the command line) — else the first difference, in a few words.
    static func sameRun(_ a: ScenarioRunner.Outcome, _ b: ScenarioRunner.Outcome) -> String? {
        guard a.exitCode == b.exitCode else { return "exit \(a.exitCode) with processes, \(b.exitCode) inside" }
        if a.crashPoints != b.crashPoints {
            let i = a.crashPoints.indices.first { $0 >= b.crashPoints.count || a.crashPoints[$0] != b.crashPoints[$0] } ?? a.crashPoints.count
            return "crash point \(i + 1) differs"
        }
        return historyDifference(a.runDirectory, b.runDirectory)
    }

    /// What `--resume` carries over from an earlier exploration of the same run: its crash points
    /// (this run's must be the same) and the points it decided (held, violated, not reached; an
    /// undecided one — an interruption's — is explored again).
    package struct Resume: Sendable {
        package var crashPoints: [String]
        package var decided: [String: Finding]

        package init(crashPoints: [String], decided: [String: Finding]) {
            self.crashPoints = crashPoints
            self.decided = decided.filter { $0.value.verdict != .undecided }
        }

        /// Where two runs' crash points first differ, in words (nil: the same).
        package static func difference(recorded: [String], now: [String]) -> String? {
            guard recorded != now else { return nil }
            let i = zip(recorded, now).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(recorded.count, now.count)
            let a = i < recorded.count ? recorded[i] : "(the end: \(recorded.count) points)"
            let b = i < now.count ? now[i] : "(the end: \(now.count) points)"
            return "this run's crash points are not the recorded exploration's (another build or scenario file?): point \(i + 1) was \(a), is \(b)"
        }
    }

    /// Each worker on its own CPU, counting on from the one `choice` gives the first (CPUPinning):
    /// resolved once, here, so two workers never both take "the CPU I am on".
    package static func workerCPUs(_ choice: CPUPinning.Choice, count: Int) -> [CPUPinning.Choice] {
        (0..<count).map { k in CPUPinning.cpu(for: choice, worker: k).map { .cpu($0) } ?? .off }
    }

    /// Each label's first pass (`<label>#1`), in the run's order.
    package static func firstPasses(_ points: [String]) -> [String] { points.filter { $0.hasSuffix("#1") } }

    /// The points an unsharded exploration takes: the first `maxPoints` (nil: all) of the run's
    /// points, or with `eachLabelOnce` of each label's first pass (`#1`) — one run per kind of
    /// point, a sample that reaches every label, not every pass.
    package static func selection(of points: [String], maxPoints: Int?, eachLabelOnce: Bool) -> [String] {
        let candidates = eachLabelOnce ? firstPasses(points) : points
        return Array(candidates.prefix(maxPoints ?? candidates.count))
    }

    /// "N held, N violated, N not reached, N undecided".
    package static func counts(_ findings: [Finding]) -> String {
        let n = Dictionary(grouping: findings, by: { $0.verdict }).mapValues { $0.count }
        return "\(n[.held] ?? 0) held, \(n[.violated] ?? 0) violated, \(n[.notReached] ?? 0) not reached, \(n[.undecided] ?? 0) undecided"
    }

    /// Each point that did not hold: its verdict and why, the command that reruns it, and (where
    /// its run directory is at hand) its history.
    package static func notHeld(_ findings: [Finding], history: Bool) -> [String] {
        findings.filter { $0.verdict != .held }.flatMap { f in
            ["── \(f.crashPoint): \(f.verdict.rawValue)\(f.detail.isEmpty ? "" : " — \(f.detail.joined(separator: ", "))")", "   rerun: \(f.rerunCommand)"]
                + (history ? ["   history: \(f.runDirectory)/history.jsonl"] : [])
        }
    }

    /// The order the points are explored in (indices into `points`): every label's first pass,
    /// then every second pass, and so on, each round in the run's order. The set is the same and
    /// the table lists the points in the run's order whatever the order they ran in; what changes
    /// is how soon each kind of point is tried — on the bundled FocusPledge scenario the last
    /// label's first pass is point 1,427 of 1,454, reached in the last minute of a run-order
    /// exploration, and here in the first 35 runs: a bug at a kind of point shows in seconds.
    package static func executionOrder(_ points: [String]) -> [Int] {
        func pass(_ p: String) -> Int { p.lastIndex(of: "#").flatMap { Int(p[p.index(after: $0)...]) } ?? 1 }
        return points.indices.sorted { (pass(points[$0]), $0) < (pass(points[$1]), $1) }
    }

    /// Set in a `harness explore-point` process: it runs its point in itself.
    nonisolated(unsafe) package static var pointsRunHere = false

    /// One run killed at `point` (nil: the label has no `#n`, nothing to aim at). With stand-ins
    /// inside the harness (`--in-process`) each point is a `harness explore-point` process of its
    /// own: a run's stand-ins lend their context to the threads their code starts (one run per
    /// process), and what the stand-ins it kills held in memory goes with that process.
    package static func explore(point: String, index i: Int, base: ScenarioRunner.Options, keepPassingRuns: Bool) -> Finding? {
        guard let first = explore(point: point, index: i, base: base, keepPassingRuns: keepPassingRuns, otherWay: false) else { return nil }
        // The user's choice came into play (the process died in their tap, and they tapped again
        // or did not): the point is tried the other way too, and the worse of the two is its
        // verdict — a user who taps again can hide what the relaunched app forgot, one who does
        // not can show it (`UserRetry`).
        guard first.retryInPlay, var second = explore(point: point, index: i, base: base, keepPassingRuns: keepPassingRuns, otherWay: true) else {
            return first
        }
        let (way, otherWay) = (base.retry, base.retry.otherWay)
        var f = first
        f.retryInPlay = false
        f.wallSeconds += second.wallSeconds
        guard rank(second.verdict) > rank(first.verdict) else {
            f.detail.append(
                second.verdict == first.verdict && second.detail == first.detail
                    ? "(the same with --user-retry \(otherWay))"
                    : "(with --user-retry \(otherWay), \(second.verdict.rawValue)\(second.detail.isEmpty ? "" : " " + second.detail.joined(separator: ", ")))")
            return f
        }
        second.detail.append("(only with --user-retry \(otherWay); \(first.verdict.rawValue) with \(way))")
        second.wallSeconds = f.wallSeconds
        second.retryInPlay = false
        return second
    }

    /// One run killed at `point`, the user's retry choice the run's own or (`otherWay`) the
    /// opposite (`UserRetry.otherWay`, the run directory `<i>-other-way`). With stand-ins inside
    /// the harness each run is a `harness explore-point` process of its own.
    package static func explore(point: String, index i: Int, base: ScenarioRunner.Options, keepPassingRuns: Bool, otherWay: Bool) -> Finding? {
        if base.inProcess != .none && !pointsRunHere {
            return exploreInChild(point: point, index: i, base: base, keepPassingRuns: keepPassingRuns, otherWay: otherWay)
        }
        guard let hash = point.lastIndex(of: "#"), let n = Int(point[point.index(after: hash)...]) else { return nil }
        var options = base
        options.failpoints = [Failpoint(label: String(point[..<hash]), occurrence: n, terms: [.init(action: .kill)])]
        options.outputDirectory = base.outputDirectory + "/\(i + 1)" + (otherWay ? "-other-way" : "")
        if otherWay { options.userRetry = base.retry.otherWay }
        return run(point: point, options, keepPassingRuns: keepPassingRuns)
    }

    /// How bad a verdict is, for the worse of a point's two ways.
    static func rank(_ v: Verdict) -> Int {
        switch v {
        case .held: 0
        case .notReached: 1
        case .undecided: 2
        case .violated: 3
        }
    }

    /// One run killed at `point` with `options` (its failpoint armed), and whether the user's retry
    /// choice came into play in it (`Outcome.retryChoiceDecided`).
    static func run(point: String, _ options: ScenarioRunner.Options, keepPassingRuns: Bool) -> Finding {
        var options = options
        // The page is written below, for a run that is kept.
        options.writeReportPage = false
        let outcome = ScenarioRunner(options: options).run()
        let fired = outcome.failpointsFired.contains { $0.label == point }
        let verdict: Verdict
        var detail: [String] = []
        switch outcome.exitCode {
        case 0: verdict = fired ? .held : .notReached
        case 1:
            verdict = .violated
            detail = Set(outcome.report?.violations.map(\.invariant) ?? []).sorted()
            if !fired { detail.append("(the point was not reached)") }
        default:
            verdict = .undecided
            detail = [outcome.setupError ?? outcome.report?.undecidedReason ?? "undecided"]
        }
        if verdict == .held && !keepPassingRuns {
            try? FileManager.default.removeItem(atPath: options.outputDirectory)
        } else if options.pagesForKeptRuns, FileManager.default.fileExists(atPath: outcome.runDirectory + "/history.jsonl") {
            // A run that is kept (a finding, a point not reached, --keep-runs) gets its page: a person reads it.
            _ = try? RunReportPage.write(runDirectory: outcome.runDirectory)
        }
        return Finding(
            crashPoint: point, verdict: verdict, detail: detail, runDirectory: outcome.runDirectory, wallSeconds: outcome.wallSeconds,
            rerunCommand: outcome.rerunCommand, retryInPlay: outcome.retryChoiceDecided)
    }

    /// The points' indices handed out to the workers in `order`, and their findings gathered by index.
    final class WorkQueue: @unchecked Sendable {
        private let lock = NSLock()
        private var nextIndex = 0
        private let order: [Int]
        private var count: Int { order.count }
        private var byIndex: [Int: Finding] = [:]
        /// `--fail-fast`: once a point violated, no new point is handed out.
        private let stopAtViolation: Bool
        private var stoppedFlag = false
        /// A budget (`LiveRun.now()` nanoseconds): after it, no new point is handed out.
        private let deadlineNanos: Int64?
        private var outOfTimeFlag = false

        init(order: [Int], stopAtViolation: Bool = false, deadlineNanos: Int64? = nil) {
            self.order = order
            self.stopAtViolation = stopAtViolation
            self.deadlineNanos = deadlineNanos
        }

        /// The budget ran out with points left to hand out.
        var outOfTime: Bool {
            lock.lock()
            defer { lock.unlock() }
            return outOfTimeFlag
        }

        var stopped: Bool {
            lock.lock()
            defer { lock.unlock() }
            return stoppedFlag
        }

        /// A point decided before the exploration began (`--resume`): never handed out.
        func preset(_ i: Int, _ f: Finding) {
            lock.lock()
            defer { lock.unlock() }
            byIndex[i] = f
        }

        var decidedCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return byIndex.count
        }

        func next() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            while nextIndex < count, byIndex[order[nextIndex]] != nil { nextIndex += 1 }
            guard nextIndex < count, !stoppedFlag else { return nil }
            if let deadlineNanos, LiveRun.now() >= deadlineNanos {
                outOfTimeFlag = true
                return nil
            }
            nextIndex += 1
            return order[nextIndex - 1]
        }

        /// Records a finding and tells `report` how many are recorded now, under the lock: one
        /// report at a time, counts in increasing order.
        func finish(_ i: Int, _ f: Finding, report: (Int) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            byIndex[i] = f
            if stopAtViolation && f.verdict == .violated { stoppedFlag = true }
            report(byIndex.count)
        }

        /// The findings so far, in crash-point order.
        var findings: [Finding] {
            lock.lock()
            defer { lock.unlock() }
            return byIndex.keys.sorted().compactMap { byIndex[$0] }
        }
    }

    static func seconds(since t0: Int64) -> Double { Double(LiveRun.now() - t0) / 1e9 }

    /// Crash point × outcome, one row each.
    package static func table(_ findings: [Finding]) -> String {
        let header = ["#", "crash point", "outcome", "violated invariants / why", "wall s"]
        let rows = findings.enumerated().map { i, f in
            [String(i + 1), f.crashPoint, f.verdict.rawValue, f.detail.isEmpty ? "-" : f.detail.joined(separator: ","), String(format: "%.1f", f.wallSeconds)]
        }
        return TextTable.render(header, rows)
    }

    package static let junitSuiteName = "ScreenTimeHarness explore"

    /// One testcase per crash point (classname: the scenario and variant).
    package static func junit(_ result: Result, scenario: String, variant: String, seed: UInt64) -> JUnitReport {
        junit(result.findings, scenario: scenario, variant: variant, seed: seed)
    }

    /// One testcase per crash point (classname: the scenario and variant).
    package static func junit(_ findings: [Finding], scenario: String, variant: String, seed: UInt64) -> JUnitReport {
        let cases = findings.map { f -> JUnitReport.TestCase in
            var failure: JUnitReport.Failure?
            switch f.verdict {
            case .held: failure = nil
            case .violated:
                failure = .init(message: "killed at \(f.crashPoint): \(f.detail.joined(separator: ", "))", text: "rerun: \(f.rerunCommand)\nrun directory: \(f.runDirectory)")
            case .undecided:
                failure = .init(.error, message: "\(f.verdict.rawValue) at \(f.crashPoint): \(f.detail.joined(separator: ", "))", text: "rerun: \(f.rerunCommand)", type: "undecided")
            case .notReached:
                failure = .init(.skipped, message: "\(f.verdict.rawValue) at \(f.crashPoint): \(f.detail.joined(separator: ", "))", text: "rerun: \(f.rerunCommand)", type: "not-reached")
            }
            return .init(
                name: f.crashPoint, classname: "ScreenTimeHarness.explore.\(scenario).\(variant).seed\(seed)", timeSeconds: f.wallSeconds,
                failure: failure, systemOut: "rerun: \(f.rerunCommand)")
        }
        return JUnitReport(suiteName: junitSuiteName, testCases: cases)
    }
}

extension CrashPointExplorer {
    /// The longest one point's `harness explore-point` process may take (wall): a run is bounded
    /// by its own limits well inside it.
    static let pointProcessBound: Duration = .seconds(600)

    /// The point processes still being reaped (`exploreInChild`).
    static let reapers = DispatchGroup()

    /// Waits (bounded) until every point process is reaped: an exploration's end, a CPU count.
    package static func waitForPointProcesses() { _ = reapers.wait(timeout: .now() + 35) }

    /// `explore(point:…)` in a `harness explore-point` process of its own; its finding comes back
    /// as one JSON line on its stdout.
    static func exploreInChild(point: String, index i: Int, base: ScenarioRunner.Options, keepPassingRuns: Bool, otherWay: Bool) -> Finding? {
        var args = [
            "explore-point", base.scenarioPath, "--variant", base.variant.rawValue, "--seed", String(base.seed), "--out", base.outputDirectory,
            "--index", String(i), "--point", point, "--in-process", base.inProcess.rawValue,
        ]
        if let d = base.durationOverride { args += ["--duration", "\(d.components.seconds)s"] }
        if keepPassingRuns { args.append("--keep-runs") }
        if !base.pagesForKeptRuns { args.append("--no-pages") }
        if let r = base.userRetry { args += ["--user-retry", r.description] }
        if otherWay { args.append("--other-way") }
        // The worker's CPU: its run and every stand-in thread in it stay there (a turn passes
        // between two threads on one CPU without waking another).
        if case .cpu(let c) = base.cpu { args += ["--cpu", String(c)] }
        func undecided(_ why: String) -> Finding {
            Finding(
                crashPoint: point, verdict: .undecided, detail: [why], runDirectory: base.outputDirectory + "/\(i + 1)" + (otherWay ? "-other-way" : ""),
                wallSeconds: 0, rerunCommand: "")
        }
        let child: ChildProcess
        do { child = try ChildProcess.spawn(base.binDirectory + "/" + Executables.currentName, args) } catch {
            return undecided("cannot start harness explore-point: \(error)")
        }
        let line = child.readLine(timeout: pointProcessBound)
        if let line, let finding = Finding(jsonLine: line) {
            // The verdict is in: the process is reaped in the background (its exit is the kernel's
            // teardown of the threads of the stand-ins it ended), bounded.
            reapers.enter()
            let reaper = Thread {
                _ = child.wait(timeout: .seconds(30)) ?? child.killAndReap()
                reapers.leave()
            }
            reaper.stackSize = 1 << 16
            reaper.start()
            return finding
        }
        let status = child.wait(timeout: .seconds(30)) ?? child.killAndReap()
        return undecided("harness explore-point ended (\(status.map { "\($0)" } ?? "killed")) without a verdict")
    }
}

extension CrashPointExplorer.Finding {
    /// One JSON line (what `harness explore-point` prints).
    package var jsonLine: String {
        let obj: [String: Any] = [
            "crashPoint": crashPoint, "verdict": verdict.rawValue, "detail": detail, "runDirectory": runDirectory,
            "wallSeconds": wallSeconds, "rerunCommand": rerunCommand, "retryInPlay": retryInPlay,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: obj, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    init?(jsonLine: String) {
        guard let obj = (try? JSONSerialization.jsonObject(with: Data(jsonLine.utf8))) as? [String: Any],
            let point = obj["crashPoint"] as? String, let v = (obj["verdict"] as? String).flatMap(CrashPointExplorer.Verdict.init(rawValue:)),
            let detail = obj["detail"] as? [String], let dir = obj["runDirectory"] as? String, let wall = obj["wallSeconds"] as? Double,
            let rerun = obj["rerunCommand"] as? String
        else { return nil }
        self.init(
            crashPoint: point, verdict: v, detail: detail, runDirectory: dir, wallSeconds: wall, rerunCommand: rerun,
            retryInPlay: obj["retryInPlay"] as? Bool ?? false)
    }
}
