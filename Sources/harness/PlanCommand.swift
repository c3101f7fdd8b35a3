import ArgumentParser
import Foundation
import HarnessKit
import SystemRegistry

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Print the plan a seed gives (schedule.json: the user's actions and the faults) without running it.")

    @Argument(help: "Scenario file (YAML).") var scenario: String
    @Option(help: "Seed of the workload and fault schedule.") var seed: UInt64 = 1
    @Option(help: "Device time the workload covers, e.g. 2h or 90m (default: the scenario's).") var duration: String?

    func run() throws {
        let sc: Scenario
        do { sc = try ScenarioParser.load(path: scenario, systems: SystemRegistry.catalog) } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var override: Duration?
        if let duration {
            guard let s = ScenarioDuration.seconds(from: duration), s > 0 else { throw ValidationError("--duration: use e.g. 90s, 15m, 2h, 1h30m") }
            override = .seconds(s)
        }
        FileHandle.standardOutput.write(try ScenarioPlan.make(scenario: sc, seed: seed, durationOverride: override).jsonData() + Data([0x0A]))
    }
}
