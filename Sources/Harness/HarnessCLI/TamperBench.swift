import AppGroup
import ArgumentParser
import Foundation
import HarnessKit
import Supervision

/// `harness bench tamper`: the run's tamper detection watched (libinotifytools events) beside the
/// 20 ms scan it replaced, in one run of the benchmark — how soon a planted file is found, and the
/// harness's own CPU time per device day of the bundled FocusPledge scenario.
struct TamperBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tamper",
        abstract: "Tamper detection by the root's watch vs. the 20 ms scan: latency to a planted file, the harness's CPU per device day.")

    @OptionGroup var root: DeviceRootOptions
    @Option(parsing: .unconditional, help: "Plants per mode for the latency (10...10000).") var samples = 100
    @Option(help: "Scenario for the CPU rows (default: the bundled FocusPledge scenario).") var scenario = "Sources/Systems/FocusPledge/scenarios/focuspledge.yaml"
    @Option(parsing: .unconditional, help: "Device time of each CPU run under virtual time.") var duration = "24h"
    @Option(name: .customLong("fixed-duration"), parsing: .unconditional, help: "Device time of each CPU run at the scenario's fixed rate (its wall time is this over the rate).")
    var fixedDuration = "1h"
    @Option(parsing: .unconditional, help: "Runs per mode for the CPU rows, alternating (1...20).") var rounds = 3
    @Option(help: "Directory for the CPU rows' run directories.") var out = "runs/bench-tamper"
    @Flag(help: "Print JSON instead of a table.") var json = false

    struct CPU: Encodable {
        /// virtual, or fixed (the scenario's rate).
        var clock: String
        var mode: String
        var runs: Int
        var deviceSeconds: Int
        /// The harness process's CPU (every thread; its children are processes of their own).
        var harnessCPUSecondsPerDeviceDay: [Double]
        var medianCPUSecondsPerDeviceDay: Double
        var verdicts: [String]
    }

    struct Result: Encodable {
        var latency: [TamperBenchmark.Latency]
        var cpu: [CPU]
        /// watched / scanned, medians, under virtual time and at the fixed rate.
        var cpuRatio: Double
        var cpuRatioFixed: Double
        var latencyRatioP50: Double
    }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    func run() throws {
        guard (10...10_000).contains(samples) else { throw InputError("--samples \(samples): must be 10...10000") }
        guard (1...20).contains(rounds) else { throw InputError("--rounds \(rounds): must be 1...20") }
        guard let seconds = ScenarioDuration.seconds(from: duration), seconds > 0 else {
            throw InputError("--duration \(String(reflecting: duration)): use e.g. 24h, 90m (more than 0, at most 366 days)")
        }
        guard let fixedSeconds = ScenarioDuration.seconds(from: fixedDuration), fixedSeconds > 0 else {
            throw InputError("--fixed-duration \(String(reflecting: fixedDuration)): use e.g. 1h, 30m (more than 0)")
        }
        let rootPath = try root.path(mustExist: false) + "-tamper-bench"
        progress("tamper latency: \(samples) plants per mode, watched and scanned alternating ...")
        let latency = try TamperBenchmark.latency(rootPath: rootPath, samples: samples, progress: progress)

        let base = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
        let variant = try base.variant(named: "hardened")
        let outDir = try Preflight.outputDirectory(out)
        let cpuPin = try CPUPinning.fromEnvironment()
        var cpu: [CPU] = []
        for clock in [Scenario.ClockMode.virtual, .fixed] {
            var sc = base
            sc.clock.mode = clock
            let runSeconds = clock == .virtual ? seconds : fixedSeconds
            let label = clock == .virtual ? "virtual" : "fixed \(Int(sc.clock.rate))x"
            var perDay: [String: [Double]] = ["watched": [], "scanned": []]
            var verdicts: [String: [String]] = ["watched": [], "scanned": []]
            let device = runSeconds + sc.settleSeconds
            for n in 0..<(2 * rounds) {
                let mode = n % 2 == 0 ? "watched" : "scanned"
                if mode == "scanned" { setenv("STH_TAMPER_DETECTION", "scan", 1) } else { unsetenv("STH_TAMPER_DETECTION") }
                defer { unsetenv("STH_TAMPER_DETECTION") }
                progress("harness CPU, \(label), \(mode): \(clock == .virtual ? duration : fixedDuration) of \(sc.name) [hardened] seed 1 (\(n + 1) of \(2 * rounds)) ...")
                var options = ScenarioRunner.Options(
                    scenario: sc, scenarioPath: scenario, variant: variant, seed: 1, durationOverride: .seconds(runSeconds),
                    outputDirectory: outDir, binDirectory: Executables.directory, progress: { _ in })
                options.cpu = cpuPin
                let before = TamperBenchmark.cpuSeconds()
                let o = ScenarioRunner(options: options).run()
                let used = TamperBenchmark.cpuSeconds() - before
                perDay[mode]!.append(used / (Double(device) / 86_400))
                verdicts[mode]!.append(o.exitCode == 0 ? "PASS" : (o.exitCode == 1 ? "VIOLATION" : "UNDECIDED"))
            }
            for m in ["watched", "scanned"] {
                cpu.append(CPU(
                    clock: label, mode: m, runs: perDay[m]!.count, deviceSeconds: device,
                    harnessCPUSecondsPerDeviceDay: perDay[m]!.map { ($0 * 1000).rounded() / 1000 },
                    medianCPUSecondsPerDeviceDay: (Self.median(perDay[m]!) * 1000).rounded() / 1000, verdicts: verdicts[m]!))
            }
        }
        func ratio(_ i: Int) -> Double { cpu[i].medianCPUSecondsPerDeviceDay / max(cpu[i + 1].medianCPUSecondsPerDeviceDay, 1e-9) }
        let result = Result(
            latency: latency, cpu: cpu, cpuRatio: ratio(0), cpuRatioFixed: ratio(2),
            latencyRatioP50: latency[0].p50Micros / max(latency[1].p50Micros, 1e-9))
        if json {
            try printJSON(result)
            return
        }
        print("tamper detection: a file planted in each area in turn, the check called every ms, participants writing every 2 ms")
        print("mode       plants    p50 µs    p99 µs    max µs  all found")
        for l in latency {
            print("\(l.mode.padding(toLength: 9, withPad: " ", startingAt: 0))\(String(l.samples).leftPad(8))\(String(format: "%10.0f%10.0f%10.0f", l.p50Micros, l.p99Micros, l.maxMicros))  \(l.allFound ? "yes" : "NO")")
        }
        print(String(format: "watched / scanned p50: %.3f", result.latencyRatioP50))
        print("the harness's own CPU per device day of \(base.name) [hardened] seed 1 (+ settling), \(rounds) run(s) per mode, alternating")
        for c in cpu {
            print("\(c.clock.padding(toLength: 11, withPad: " ", startingAt: 0)) \(c.mode.padding(toLength: 8, withPad: " ", startingAt: 0)) median \(String(format: "%.3f", c.medianCPUSecondsPerDeviceDay)) CPU-s  (runs: \(c.harnessCPUSecondsPerDeviceDay.map { String(format: "%.3f", $0) }.joined(separator: ", ")); \(c.verdicts.joined(separator: ", ")))")
        }
        print(String(format: "watched / scanned CPU: virtual %.3f, fixed rate %.3f", result.cpuRatio, result.cpuRatioFixed))
    }
}
