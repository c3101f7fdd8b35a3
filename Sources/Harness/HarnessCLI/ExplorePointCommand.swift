import AppGroup
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HarnessKit
import Supervision


/// `harness explore-point`: one point of an exploration whose stand-ins run inside the harness
/// (`explore --in-process`), in a process of its own (CrashPointExplorer.exploreInChild); prints
/// the finding as one JSON line.
struct ExplorePointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore-point", abstract: "Internal: one crash point of `explore --in-process`, in a process of its own.", shouldDisplay: false)

    @Argument var scenario: String
    @Option var variant: String
    @Option(parsing: .unconditional, transform: Seed.parse) var seed: UInt64
    @Option(parsing: .unconditional) var duration: String?
    @Option var out: String
    @Option(parsing: .unconditional) var index: Int
    @Option var point: String
    @Option(name: .customLong("in-process")) var inProcess: String
    @Flag(name: .customLong("keep-runs")) var keepRuns = false
    @Option(parsing: .unconditional) var cpu: Int32?
    @Flag(name: .customLong("no-pages")) var noPages = false
    @Option(name: .customLong("user-retry")) var userRetry: String?
    @Flag(name: .customLong("other-way")) var otherWay = false

    func run() throws {
        Executables.dieWithParent()
        let sc = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
        let v = try sc.variant(named: variant)
        var durationOverride: Duration?
        if let duration {
            guard let s = ScenarioDuration.seconds(from: duration), s > 0 else { throw InputError("--duration \(duration): not a duration") }
            durationOverride = .seconds(s)
        }
        var options = ScenarioRunner.Options(
            scenario: sc, scenarioPath: scenario, variant: v, seed: seed, durationOverride: durationOverride, outputDirectory: out,
            binDirectory: Executables.directory, progress: { _ in })
        options.inProcess = try InProcessScope.flag(inProcess)
        if let cpu { options.cpu = .cpu(cpu) }
        options.pagesForKeptRuns = !noPages
        options.userRetry = try RunCommand.userRetry(userRetry)
        CrashPointExplorer.pointsRunHere = true
        guard let finding = CrashPointExplorer.explore(point: point, index: index, base: options, keepPassingRuns: keepRuns, otherWay: otherWay) else {
            throw InputError("--point \(point): no #n to aim at")
        }
        let line = Array((finding.jsonLine + "\n").utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        // The run is over and recorded: nothing else to tear down but the threads of the stand-ins
        // it ended (parked, InProcessChild) — the kernel's work, which the explorer need not wait for.
        _exit(0)
    }
}
