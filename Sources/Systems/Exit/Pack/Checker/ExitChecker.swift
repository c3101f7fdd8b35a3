import HarnessKit
import History

/// Judges an Exit (seed 004) run from its merged history alone.
public enum ExitChecker {
    public static let name = "Exit"

    public static let tapToIntervention = LatencySeriesDescriptor(
        name: "tap-to-intervention",
        what: "device time from a waiting tap and the host in the foreground (the later) -> the intervention on screen")
    public static let crashToReinitialize = LatencySeriesDescriptor(
        name: "crash-to-reinitialize", what: "device time from a monitor call that died -> the host's next reinitializeExtensions()")

    public static func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: name, reason: "the history has no run_finished line")
        }
        let run = ExitRun(history)
        let (served, tapSamples) = TapServedRule.judge(run)
        let heartbeat = HeartbeatRule.judge(run)
        let outcomes = [
            KeyRegistryRule.judge(run), served, UnlockWindowRule.judge(run), UnlockAccessRule.judge(run), DailyResetRule.judge(run),
            CountMatchesDayRule.judge(run), heartbeat.outcome(ExitInvariant.heartbeatNoFalseAlarm.rawValue), CoreRules.noStoreCorrupt(history), CoreRules.runSettles(history),
        ]
        var report = CheckReport(
            checker: name, decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations),
            latencies: [tapToIntervention.series(samplesNanos: tapSamples), crashToReinitialize.series(samplesNanos: heartbeat.detectionSamplesNanos)])
        let lost = lostWork(run)
        if !lost.isEmpty { report.lostByOS = lost }
        return report
    }
}
