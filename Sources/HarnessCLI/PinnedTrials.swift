import Foundation
import HarnessKit

/// Runs a recorded scenario again with a subset of its steps pinned (`ShrinkInput.scenarioYAML`)
/// on the same seed and build — the trials of `harness shrink` and `harness why`. Each trial's
/// scenario and run directory are removed once judged; an undecided one's are kept (its logs say
/// why).
final class PinnedTrials {
    let workDir: String
    let name: String
    let binDirectory: String
    let cpu: CPUPinning.Choice
    private(set) var undecided = 0
    private(set) var lastSetupError: String?

    init(workDir: String, name: String, binDirectory: String, cpu: CPUPinning.Choice) {
        self.workDir = workDir
        self.name = name
        self.binDirectory = binDirectory
        self.cpu = cpu
    }

    /// Trial `number` with exactly `kept` of `input`'s steps pinned, in `variant`; nil when it
    /// could not be decided.
    func run(_ number: Int, _ input: ShrinkInput, _ kept: [Int], _ variant: ScenarioVariant, say: (String) -> Void) -> ScenarioRunner.Outcome? {
        let path = "\(workDir)/trial-\(number)-\(variant.rawValue).yaml"
        do {
            try input.scenarioYAML(keeping: kept, name: name).write(toFile: path, atomically: true, encoding: .utf8)
            let sc = try ScenarioParser.load(path: path, systems: HarnessCLI.catalog)
            var options = ScenarioRunner.Options(
                scenario: sc, scenarioPath: path, variant: variant, seed: input.seed, durationOverride: nil, outputDirectory: workDir + "/runs",
                binDirectory: binDirectory, progress: { _ in })
            options.cpu = cpu
            let outcome = ScenarioRunner(options: options).run()
            guard outcome.exitCode != 2 else {
                undecided += 1
                lastSetupError = outcome.setupError ?? outcome.report?.undecidedReason
                return nil
            }
            try? FileManager.default.removeItem(atPath: outcome.runDirectory)
            try? FileManager.default.removeItem(atPath: path)
            return outcome
        } catch {
            say("  [run \(number)] could not write or read the trial scenario: \(error)")
            undecided += 1
            return nil
        }
    }
}
