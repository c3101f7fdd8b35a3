import Foundation
import HarnessKit
import Supervision

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

    /// Trial `number` with exactly `kept` of `input`'s steps pinned, in `variant`: its verdict,
    /// nil when it could not be decided. With `fast` (and a scenario whose stand-ins can run inside
    /// the harness), in a `harness trial` process of its own with the stand-ins inside it — a
    /// FocusPledge rerun ~4× faster; `processes` asks for real processes regardless.
    func run(_ number: Int, _ input: ShrinkInput, _ kept: [Int], _ variant: ScenarioVariant, processes: Bool = false, say: (String) -> Void) -> CheckReport? {
        let path = "\(workDir)/trial-\(number)-\(variant.rawValue).yaml"
        do {
            try input.scenarioYAML(keeping: kept, name: name).write(toFile: path, atomically: true, encoding: .utf8)
            let sc = try ScenarioParser.load(path: path, systems: HarnessCLI.catalog)
            let inside = fast && !processes && InProcessScope.all.refusal(scenario: sc, failpoints: []) == nil
            let (dir, report, setupError) = inside ? inChild(path: path, input: input, variant: variant) : here(sc, path: path, input: input, variant: variant)
            guard let report, setupError == nil, report.decided else {
                undecided += 1
                lastSetupError = setupError ?? report?.undecidedReason ?? "no verdict"
                return nil
            }
            if let dir { try? FileManager.default.removeItem(atPath: dir) }
            try? FileManager.default.removeItem(atPath: path)
            return report
        } catch {
            say("  [run \(number)] could not write or read the trial scenario: \(error)")
            undecided += 1
            return nil
        }
    }

    /// Stand-ins inside the harness take a process each: faster reruns, same verdicts (the
    /// callers confirm a proven cause with real processes).
    var fast = false

    private func here(_ sc: Scenario, path: String, input: ShrinkInput, variant: ScenarioVariant) -> (String?, CheckReport?, String?) {
        var options = ScenarioRunner.Options(
            scenario: sc, scenarioPath: path, variant: variant, seed: input.seed, durationOverride: nil, outputDirectory: workDir + "/runs",
            binDirectory: binDirectory, progress: { _ in })
        options.cpu = cpu
        options.writeReportPage = false
        let outcome = ScenarioRunner(options: options).run()
        return (outcome.runDirectory, outcome.report, outcome.setupError)
    }

    /// Bound on one `harness trial` process (a rerun is seconds; a hung one is ended).
    static let childBound: Duration = .seconds(600)

    private func inChild(path: String, input: ShrinkInput, variant: ScenarioVariant) -> (String?, CheckReport?, String?) {
        var args = ["trial", path, "--variant", variant.rawValue, "--seed", String(input.seed), "--out", workDir + "/runs"]
        if case .cpu(let c) = cpu { args += ["--cpu", String(c)] }
        let child: ChildProcess
        do { child = try ChildProcess.spawn(binDirectory + "/" + Executables.currentName, args) } catch {
            return (nil, nil, "cannot start harness trial: \(error)")
        }
        let line = child.readLine(timeout: Self.childBound)
        let status = child.wait(timeout: .seconds(30)) ?? child.killAndReap()
        guard let line, let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], let dir = obj["runDirectory"] as? String else {
            return (nil, nil, "harness trial ended (\(status.map { "\($0)" } ?? "killed")) without a verdict")
        }
        if let e = obj["setupError"] as? String { return (dir, nil, e) }
        guard let data = FileManager.default.contents(atPath: dir + "/report.json"), let report = try? JSONDecoder().decode(CheckReport.self, from: data) else {
            return (dir, nil, "harness trial left no verdict in \(dir)/report.json")
        }
        return (dir, report, nil)
    }
}
