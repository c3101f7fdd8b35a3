import HarnessKit
import History

/// Judges a run from its history alone: the App Group writes the app's processes made
/// (`defaults_set` lines) and when the host could act.
enum __Name__Checker {
    static let name = "__Name__"

    static let everyReturnWon = InvariantDescriptor(
        name: "every-return-won", promise: "A ball the returner returned is won by the host once the host runs again.",
        source: "__Name__ README: a returned ball is won; the shield comes off")

    static func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: name, reason: "the history has no run_finished line")
        }
        let outcomes = [everyReturnWonRule(history), CoreRules.noStoreCorrupt(history), CoreRules.runSettles(history)]
        return CheckReport(checker: name, decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations), latencies: [])
    }

    /// Each `returned = N` the returner wrote is followed by the host's `won = N` — judged when
    /// the host had a chance after the return: it launched or came to the foreground again.
    static func everyReturnWonRule(_ history: [HistoryEvent]) -> RuleOutcome {
        var outcome = RuleOutcome(everyReturnWon.name, subjectKind: "ball")
        for returned in history where returned.isLine(of: __Name__System.returner, "defaults_set") {
            guard let ball = returned["v.returned"] else { continue }
            let won = history.contains {
                $0.isLine(of: __Name__System.host, "defaults_set") && $0["v.won"] == ball && $0.mono >= returned.mono
            }
            if won {
                outcome.checkedCount += 1
                continue
            }
            let chances = history.filter {
                $0.mono > returned.mono
                    && ($0.isLine(of: __Name__System.host, "launched") || ($0.isHarnessLine("host_state") && $0["state"] == "foreground"))
            }
            guard !chances.isEmpty else { continue }
            outcome.checkedCount += 1
            outcome.fail(
                ball, "ball \(ball) was returned and never won, though the host launched or came to the foreground \(chances.count) time(s) after",
                [history.last { $0.isUserAction("serve") && $0["ball"] == ball }, returned] + chances.prefix(3).map { Optional($0) })
        }
        return outcome
    }
}
