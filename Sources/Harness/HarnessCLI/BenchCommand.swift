import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import Supervision

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmarks, each beside its baseline measured in the same run.",
        subcommands: [NotifyBench.self, DefaultsBench.self, TimeBench.self, ExploreBench.self, TamperBench.self, AllBench.self], defaultSubcommand: AllBench.self)
}

struct BenchOptions: ParsableArguments {
    @OptionGroup var root: DeviceRootOptions
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Option(parsing: .unconditional, help: "Measured iterations (after warm-up).") var iterations: Int = 5000
    @Flag(inversion: .prefixedNo, help: "Pin ping and pong to separate CPUs (both sides alike).") var pin = true

    func validate() throws {
        guard (10...10_000_000).contains(iterations) else { throw InputError("--iterations \(iterations): must be 10...10000000") }
    }
}

func progress(_ s: String) { FileHandle.standardError.write(Data("… \(s)\n".utf8)) }

func printJSON<T: Encodable>(_ v: T) throws {
    let enc = JSONEncoder()
    enc.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try enc.encode(v), as: UTF8.self))
}

/// Rounds of `bench notify`, each running the four loops in turn (the iterations split among them):
/// enough that one slow spell of the machine moves one round, not the figure, and that the rounds'
/// spread says how much the figure can be trusted.
let notifyRounds = 10

func runNotify(_ o: BenchOptions) throws -> NotifyBenchmark.Result {
    let path = try o.root.path(mustExist: false)
    let me = Executables.directory + "/harness"
    return try NotifyBenchmark.run(
        rootPath: path, iterations: o.iterations, warmup: 200, rounds: notifyRounds, pin: o.pin,
        pongExecutable: me, pongArguments: { ["bench-pong", "--device-root", $0] + ($1 ? ["--cpu", "1"] : []) },
        baselineExecutable: try Executables.path(of: "notify-pingpong-c"), progress: progress)
}

func notifyTable(_ r: NotifyBenchmark.Result) -> String {
    func row(_ n: String, _ s: LatencyStats) -> String {
        "\(n.padding(toLength: 28, withPad: " ", startingAt: 0)) \(LatencyStats.micros(s.p50Nanos).leftPad(8)) \(LatencyStats.micros(s.p99Nanos).leftPad(8)) \(LatencyStats.micros(s.p999Nanos).leftPad(8)) \(LatencyStats.micros(s.maxNanos).leftPad(8))"
    }
    return """
        notify round trip, two processes, \(r.filesystem), \(r.pinnedCPUs ? "ping on CPU 0 / pong on CPU 1" : "unpinned") (\(r.rounds) interleaved rounds x \(r.iterationsPerRound))
        \("".padding(toLength: 28, withPad: " ", startingAt: 0))  p50 µs   p99 µs  p99.9 µs   max µs
        \(row("DarwinNotificationCenter", r.ours))
        \(row("C temp+rename+inotify", r.baselineC))
        \(row("C + the protocol's calls", r.baselineCProtocol))
        \(row("+ idle reports (stepped)", r.oursWithIdleReports))
        ratio p50 \(String(format: "%.2f", r.ratioP50)) (target <= 1.15), ratio p99 \(String(format: "%.2f", r.ratioP99)) (target <= 1.3); ours p99 \(LatencyStats.micros(r.ours.p99Nanos)) µs (target <= 1000 on tmpfs)
        of the p50 ratio: the protocol's system calls \(String(format: "%.2f", r.protocolRatioP50))x the C loop, ours \(String(format: "%.2f", r.oursOverProtocolP50))x those calls in C
        idle reports add \(String(format: "%.1f", r.idleReportOverheadP50 * 100)) % to the p50 round trip (target <= 5 %)
        round by round (median, range, spread = interquartile range / median; over \(Int(RatioSpread.trustedSpread * 100)) %: too wide to trust):
          ours / C p50 \(r.ratioP50Rounds.text), p99 \(r.ratioP99Rounds.text)
          the protocol's calls / C p50 \(r.protocolRatioP50Rounds.text), ours / those calls p50 \(r.oursOverProtocolP50Rounds.text)
          with idle reports / without p50 \(r.idleReportRatioP50Rounds.text)
        """
}

func defaultsTable(_ r: DefaultsBenchmark.Result) -> String {
    func row(_ n: String, _ s: LatencyStats) -> String {
        "\(n.padding(toLength: 40, withPad: " ", startingAt: 0)) \(LatencyStats.micros(s.p50Nanos).leftPad(8)) \(LatencyStats.micros(s.p99Nanos).leftPad(8)) \(LatencyStats.micros(s.maxNanos).leftPad(8))"
    }
    return """
        shared defaults, \(r.filesystem), \(r.suiteBytes)-byte suite, \(r.iterations) iterations
        \("".padding(toLength: 40, withPad: " ", startingAt: 0))  p50 µs   p99 µs   max µs
        \(row("SharedDefaults set (lock+fsync+rename)", r.set))
        \(row("baseline Data.write(.atomic)", r.baselineAtomicWrite))
        \(row("SharedDefaults get (cached)", r.getCached))
        \(row("SharedDefaults get after other write", r.getAfterExternalWrite))
        \(row("baseline Data(contentsOf:)+plist decode", r.baselineFoundationRead))
        set p50 / baseline p50 = \(String(format: "%.2f", r.ratioSetP50)); set p50 \(LatencyStats.micros(r.set.p50Nanos)) µs (target <= 50 on tmpfs)
        round by round (\(DefaultsBenchmark.rounds) rounds of set and Data.write in turn; spread = interquartile range / median): \(r.ratioSetP50Rounds.text)
        """
}

extension String {
    func leftPad(_ w: Int) -> String { String(repeating: " ", count: max(0, w - count)) + self }
}

struct NotifyBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "notify", abstract: "Notify round trip vs. a C inotify ping-pong.")
    @OptionGroup var options: BenchOptions
    func run() throws {
        let r = try runNotify(options)
        if options.json { try printJSON(r) } else { print(notifyTable(r)) }
    }
}

struct DefaultsBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "defaults", abstract: "Shared defaults set/get vs. Data.write(.atomic).")
    @OptionGroup var options: BenchOptions
    func run() throws {
        let r = try DefaultsBenchmark.run(rootPath: try options.root.path(mustExist: false), iterations: options.iterations, progress: progress)
        if options.json { try printJSON(r) } else { print(defaultsTable(r)) }
    }
}

struct AllBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "all", abstract: "Every benchmark.")
    @OptionGroup var options: BenchOptions
    struct Both: Encodable {
        var notify: NotifyBenchmark.Result
        var defaults: DefaultsBenchmark.Result
    }
    func run() throws {
        let n = try runNotify(options)
        let d = try DefaultsBenchmark.run(rootPath: try options.root.path(mustExist: false), iterations: options.iterations, progress: progress)
        if options.json { try printJSON(Both(notify: n, defaults: d)) } else { print(notifyTable(n) + "\n\n" + defaultsTable(d)) }
    }
}

struct BenchPongCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench-pong", abstract: "Internal: the far side of `bench notify`.", shouldDisplay: false)
    @OptionGroup var root: DeviceRootOptions
    @Option(parsing: .unconditional, help: "Pin to this CPU.") var cpu: Int?
    @Flag(help: "Report idle through the scheduler FIFO after each ping.") var idleReports = false
    func run() throws {
        Executables.dieWithParent()
        try NotifyBenchmark.pong(rootPath: try root.path(mustExist: false), pinToCPU: cpu, idleReports: idleReports)
    }
}
