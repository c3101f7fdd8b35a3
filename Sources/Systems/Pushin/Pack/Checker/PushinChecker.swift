import HarnessKit
import History

/// Judges a Pushin run from its merged history alone: seed 002's promises, one rule each.
public enum PushinChecker {
    public static let name = "Pushin"

    static let invariants = [
        PromptOwedRule.descriptor, OnePromptPerSignalRule.descriptor, ThrottleRule.descriptor, NoExpiredPromptRule.descriptor,
        ShieldAnswerRule.descriptor, EmergencyUnlockRule.descriptor, TapOpensWorkoutRule.descriptor,
    ]

    /// Shield press → first prompt answering it, in device time, by where iOS had the host at the
    /// press. (Never in the foreground: the user is on the blocked app's shield.)
    public static let pressToPromptHostBackground = LatencySeriesDescriptor(
        name: "press-to-prompt-host-background",
        what: "workout shield press -> its prompt shown (device time), Pushin in the background and not yet suspended")
    public static let pressToPromptHostSuspended = LatencySeriesDescriptor(
        name: "press-to-prompt-host-suspended",
        what: "workout shield press -> its prompt shown (device time), Pushin suspended or not running")
    static let latencySeries = [pressToPromptHostBackground, pressToPromptHostSuspended]

    static func series(forHostState state: String) -> String {
        state == "background" || state == "foreground" ? pressToPromptHostBackground.name : pressToPromptHostSuspended.name
    }

    public static func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: name, reason: "the history has no run_finished line")
        }
        let run = PushinRun(history)
        let (owed, samples) = PromptOwedRule.judge(run)
        let outcomes = [
            owed, OnePromptPerSignalRule.judge(run, history), ThrottleRule.judge(run), NoExpiredPromptRule.judge(run), ShieldAnswerRule.judge(run),
            EmergencyUnlockRule.judge(run), TapOpensWorkoutRule.judge(run), CoreRules.noStoreCorrupt(history), CoreRules.runSettles(history),
        ]
        var report = CheckReport(
            checker: name, decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations),
            latencies: latencySeries.map { $0.series(samplesNanos: samples[$0.name] ?? []) })
        let lost = lostWork(history)
        if !lost.isEmpty { report.lostByOS = lost }
        return report
    }
}
