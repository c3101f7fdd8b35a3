import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HarnessKit
import Supervision

/// `harness trial`: one rerun of `harness why` (PinnedTrials) with its stand-ins inside a harness
/// process of its own — a seed's code keeps process-wide state, so one run per process, as
/// `explore-point` does for explore. Prints `{"exit": N, "runDirectory": "…", "setupError": "…"}`.
struct TrialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trial", abstract: "Internal: one pinned rerun of `why`, its stand-ins inside a process of its own.", shouldDisplay: false)

    @Argument var scenario: String
    @Option var variant: String
    @Option(parsing: .unconditional, transform: Seed.parse) var seed: UInt64
    @Option var out: String
    @Option(parsing: .unconditional) var cpu: Int32?

    func run() throws {
        Executables.dieWithParent()
        let sc = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
        var options = ScenarioRunner.Options(
            scenario: sc, scenarioPath: scenario, variant: try sc.variant(named: variant), seed: seed, durationOverride: nil, outputDirectory: out,
            binDirectory: Executables.directory, progress: { _ in })
        options.inProcess = .all
        options.writeReportPage = false
        if let cpu { options.cpu = .cpu(cpu) }
        let outcome = ScenarioRunner(options: options).run()
        var line: [String: Any] = ["exit": Int(outcome.exitCode), "runDirectory": outcome.runDirectory]
        if let e = outcome.setupError { line["setupError"] = e }
        let data = (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        let bytes = Array(data) + [UInt8(ascii: "\n")]
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        // The threads of the stand-ins the run ended are parked: the kernel tears them down.
        _exit(0)
    }
}
