import ArgumentParser
import Foundation
import HarnessKit


struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Print the plan a seed gives (schedule.json: the user's actions and the faults) without running it.")

    @Argument(help: "Scenario file (YAML).") var scenario: String
    @Option(parsing: .unconditional, help: "Seed of the workload and fault schedule (a whole number).", transform: Seed.parse)
    var seed: UInt64 = 1
    @Option(parsing: .unconditional, help: "Device time the workload covers, e.g. 2h or 90m (default: the scenario's).") var duration: String?

    func run() throws {
        let sc = try ScenarioParser.load(path: scenario, systems: HarnessCLI.catalog)
        let override = try Preflight.durationOverride(duration)
        try Preflight.timeline([(scenario, sc)], durationOverride: override)
        // Through stdio: `Harness.main` flushes it and reports a failed write (a full disk) as one line.
        print(String(decoding: try ScenarioPlan.make(scenario: sc, seed: seed, durationOverride: override).jsonData(), as: UTF8.self))
    }
}
