import HarnessKit
import History

/// Judges a Rally run from its merged history alone: the spec's promise (R3), one rule.
public enum RallyChecker {
    public static let name = "Rally"

    public static let everyReturnWon = InvariantDescriptor(
        name: "every-return-won", promise: "A ball the returner returned is won by the player before the run ends.",
        source: "Rally spec R3: the player, told of a return, wins the rally")

    public static let returnToWin = LatencySeriesDescriptor(
        name: "return-to-win", what: "the returner stored a returned ball -> the player won that rally")

    public static func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: name, reason: "the history has no run_finished line")
        }
        let (outcome, latency) = judge(history)
        let outcomes = [outcome, CoreRules.noStoreCorrupt(history), CoreRules.runSettles(history)]
        return CheckReport(
            checker: name, decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations),
            latencies: [latency])
    }

    /// Every `returned ball=N` of the returner is followed by the player's `rally_won ball=N` —
    /// judged when the player had a chance after the return: it launched or came to the
    /// foreground again. A return made while the player stays suspended (or dead) to the end of
    /// the run is not lost (the ball waits in the App Group); it is not judged.
    static func judge(_ history: [HistoryEvent]) -> (RuleOutcome, LatencySeries) {
        var outcome = RuleOutcome(everyReturnWon.name, subjectKind: "ball")
        var samples: [Int64] = []
        for returned in history where returned.isLine(of: RallyPack.returnerRole, "returned") {
            guard let ball = returned["ball"] else { continue }
            let won = history.first { $0.isLine(of: RallyPack.playerRole, "rally_won") && $0["ball"] == ball && $0.mono >= returned.mono }
            if let won {
                outcome.checkedCount += 1
                samples.append(won.mono - returned.mono)
                continue
            }
            let chances = history.filter {
                $0.mono > returned.mono
                    && ($0.isLine(of: RallyPack.playerRole, "launched") || ($0.isHarnessLine("host_state") && $0["state"] == "foreground"))
            }
            guard !chances.isEmpty else { continue }
            outcome.checkedCount += 1
            outcome.fail(
                ball, "ball \(ball) was returned and never won, though the player launched or came to the foreground \(chances.count) time(s) after",
                [history.last { $0.isUserAction("serve") && $0["ball"] == ball }, returned] + chances.prefix(3).map { Optional($0) })
        }
        return (outcome, returnToWin.series(samplesNanos: samples))
    }
}
