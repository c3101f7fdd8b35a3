import Exit
import HarnessKit
import History

/// §3.3 "User completed breathing, allow 60s access": the user who goes back to the app inside
/// the window after an exercise the host finished (`intervention_finished` completed, written and
/// traced) gets the app, not its shield. Judged at the user's `open_unlocked_app`, by what iOS
/// did next with that app (`app_in_use` or `shield_shown`).
enum UnlockAccessRule {
    static func judge(_ run: ExitRun) -> RuleOutcome {
        var outcome = RuleOutcome(ExitInvariant.unlockGrantsAccess.rawValue, subjectKind: "episode")
        let completions = run.events.filter { $0.isLine(of: ExitRoles.host, "intervention_finished") && $0["outcome"] == "completed" }
        for open in run.events where open.isUserAction("open_unlocked_app") {
            guard let app = open["app"],
                let done = completions.last(where: { $0.mono < open.mono }), let u = done["at"].flatMap(Double.init),
                open.t - u >= 0, open.t - u < ExitKeys.unlockWindowSeconds
            else { continue }
            guard let next = run.events.first(where: {
                $0.mono > open.mono && $0.process == HistoryEvent.harnessProcessName && ($0.event == "app_in_use" || $0.event == "shield_shown") && $0["app"] == app
            }) else { continue }
            outcome.checkedCount += 1
            if next.event == "shield_shown" {
                let text = run.events.first { $0.isLine(of: ExitRoles.shieldConfiguration, "shield_configuration") && $0.mono > next.mono }
                outcome.fail(
                    open["episode"] ?? "?",
                    "the exercise was completed at t=\(u); the user opened \(app) \(Int(open.t - u)) s later and got its shield"
                        + (text.map { " (\"\($0["title"] ?? "")\($0["subtitle"].map { " — " + $0 } ?? "")\")" } ?? ""),
                    [done, open, next, text])
            }
        }
        return outcome
    }
}
