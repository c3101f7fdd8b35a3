import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import Supervision


/// `harness bench time`: the same scenario, seed and nemesis under virtual time and at a fixed
/// rate, in one run of the benchmark: wall time, device:wall ratio and both verdicts side by side.
struct TimeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "time",
        abstract: "Virtual time vs. a fixed clock rate on the same scenario and seed: wall time, speed, verdicts.")

    @Option(help: "Scenario (default: the bundled FocusPledge scenario).") var scenario = "Sources/Systems/FocusPledge/scenarios/focuspledge.yaml"
    @Option(parsing: .unconditional, help: "Device time of the workload.") var duration = "24h"
    @Option(help: "Variant.") var variant = "hardened"
    @Option(parsing: .unconditional, help: "Seed (a whole number).", transform: Seed.parse) var seed: UInt64 = 1
    @Option(help: ArgumentHelp(
        "The fixed rate to compare with.",
        discussion: "It is the scenario's clock rate in both runs: the nemesis plans its faults in wall milliseconds at this rate, so another rate is another plan (at 20000 the bundled FocusPledge day has 28 faults instead of 403, and a stopped process stays stopped for tens of device minutes)."))
    var rate = 900.0
    @Option(help: "Directory for the two run directories.") var out = "runs/bench-time"
    @Flag(help: "Print JSON instead of a table.") var json = false

    struct Row: Encodable {
        var mode: String
        var deviceSeconds: Int
        var wallSeconds: Double
        var deviceToWall: Double
        var verdict: String
        var faults: Int
        var violatedInvariants: [String]
        var runDirectory: String
        /// Spawn line → the child's first history line, per role (relaunch tails).
        var launches: LaunchLatency.Summary?
    }

    func run() throws {
        guard let seconds = ScenarioDuration.seconds(from: duration), seconds > 0 else {
            throw InputError("--duration \(String(reflecting: duration)): use e.g. 24h, 90m (more than 0, at most 366 days)")
        }
        guard DeviceClock.Configuration.rateRange.contains(rate) else {
            throw InputError("--rate \(rate): must be in \(DeviceClock.Configuration.rateRange) (device seconds per wall second)")
        }
        var base = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
        let chosen = try base.variant(named: variant)
        let cpu = try CPUPinning.fromEnvironment()
        base.clock.rate = rate
        let outDir = try Preflight.outputDirectory(out)
        var rows: [Row] = []
        for mode in [Scenario.ClockMode.virtual, .fixed] {
            var s = base
            s.clock.mode = mode
            progress("\(mode.rawValue): \(duration) of \(s.name) [\(chosen.rawValue)] seed \(seed) ...")
            var options = ScenarioRunner.Options(
                scenario: s, scenarioPath: scenario, variant: chosen, seed: seed, durationOverride: .seconds(seconds),
                outputDirectory: outDir, binDirectory: Executables.directory, progress: progress)
            options.cpu = cpu
            let runner = ScenarioRunner(options: options)
            let o = runner.run()
            let device = seconds + s.settleSeconds
            rows.append(Row(
                mode: mode == .virtual ? "virtual" : "fixed \(Int(rate))x", deviceSeconds: device, wallSeconds: o.wallSeconds,
                deviceToWall: Double(device) / max(o.wallSeconds, 1e-9),
                verdict: o.exitCode == 0 ? "PASS" : (o.exitCode == 1 ? "VIOLATION" : "UNDECIDED: \(o.setupError ?? o.report?.undecidedReason ?? "")"),
                faults: o.killsAndStops, violatedInvariants: Set(o.report?.violations.map(\.invariant) ?? []).sorted(),
                runDirectory: o.runDirectory,
                launches: try? LaunchLatency.summary(historyPath: o.runDirectory + "/history.jsonl")))
        }
        if json {
            try printJSON(rows)
            return
        }
        print("\(base.name) [\(chosen.rawValue)] seed \(seed): \(duration) of workload + \(base.settleSeconds / 60) min settling, nemesis \(base.nemesis.enabled ? "on" : "off")")
        print("mode          device s   wall s   device:wall   verdict     faults  violated")
        for r in rows {
            let mode: String = r.mode.padding(toLength: 12, withPad: " ", startingAt: 0)
            let device: String = String(r.deviceSeconds).leftPad(8)
            let wall: String = String(format: "%9.1f", r.wallSeconds)
            let ratio: String = String(format: "%13.0f", r.deviceToWall)
            let verdict: String = r.verdict.padding(toLength: 10, withPad: " ", startingAt: 0)
            let faults: String = String(r.faults).leftPad(8)
            let violated: String = r.violatedInvariants.isEmpty ? "-" : r.violatedInvariants.joined(separator: ",")
            print("\(mode)  \(device)\(wall)\(ratio)   \(verdict)\(faults)  \(violated)")
        }
        if rows.count == 2 { print(String(format: "virtual / fixed wall time: %.3f", rows[0].wallSeconds / rows[1].wallSeconds)) }
        for r in rows {
            guard let l = r.launches, let all = l.all else { continue }
            print("launch, \(r.mode): spawn (when it began) -> the child's first history line (ms)")
            print("role                        n     p50     p90     p99     max  never wrote")
            func ms(_ ns: Int64) -> String { String(format: "%.1f", Double(ns) / 1e6).leftPad(8) }
            for x in l.roles + [LaunchLatency.Role(role: "all", stats: all, silent: l.roles.reduce(0) { $0 + $1.silent })] {
                let name: String = x.role.padding(toLength: 24, withPad: " ", startingAt: 0)
                print("\(name)\(String(x.stats.count).leftPad(5))\(ms(x.stats.p50Nanos))\(ms(x.stats.p90Nanos))\(ms(x.stats.p99Nanos))\(ms(x.stats.maxNanos))\(String(x.silent).leftPad(13))")
            }
        }
    }
}
