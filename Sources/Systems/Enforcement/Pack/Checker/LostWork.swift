import Enforcement
import HarnessKit
import History

/// The user's work that never reached the app (CheckerKit's `LostWork`), listed beside the
/// verdict (`report.json`'s `lostByOS`) so a PASS never hides it. The rules judge the rules the
/// host recorded: a tap the host never took (a grant never created, an override never set, a mode never enabled, a
/// selection never saved) leaves nothing for them to judge — `checklist-steps` skips a step whose
/// rules disagree with it — so each such tap is said here: one the host never took (`user_input`)
/// before the user's next tap of that kind, and a "Close app" press none of whose shield-action
/// calls completed before the user's next move (the "next shield event" the fallback counts on).
extension EnforcementChecker {
    static func lostWork(_ run: EnforcementRun) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        for kind in [EnforcementKeys.selectAppsAction, EnforcementKeys.enableModeAction, EnforcementKeys.createGrantAction, EnforcementKeys.setOverrideAction] {
            let matching = kind == EnforcementKeys.createGrantAction ? ["app"] : kind == EnforcementKeys.setOverrideAction ? ["mode"] : []
            for tap in LostWork.untakenTaps(in: run.events, role: EnforcementRoles.host, action: kind, matching: matching) {
                out.append(InvariantViolation(
                    invariant: kind == EnforcementKeys.createGrantAction ? EnforcementInvariant.grantAppUsable.rawValue : EnforcementInvariant.shieldsMatchFormula.rawValue,
                    subject: .init(kind: "tap", id: "\(kind)@t=\(Int(tap.t))"),
                    explanation: "the user's \(kind) tap at t=\(tap.t)\(tap["step"].map { " (step \($0))" } ?? "") never reached the host (no user_input)",
                    relevantEvents: RelevantEvents.pick([tap, run.events.last { $0.isHarnessLine("exit") && $0["target"] == EnforcementRoles.host && $0.mono < tap.mono }])))
            }
        }
        for lost in LostWork.unansweredPresses(in: run.events, actions: ["press_close"], label: nil) {
            let press = lost.press
            out.append(InvariantViolation(
                invariant: EnforcementInvariant.grantEndReshields.rawValue, subject: .init(kind: "press", id: "close@t=\(Int(press.t))"),
                explanation: "the Close app press at t=\(press.t): no shield-action call of it completed before the user's next move (\(lost.calls.count) call(s))",
                relevantEvents: RelevantEvents.pick([press] + lost.calls.prefix(2).map { Optional($0.delivered) } + lost.calls.prefix(2).map { $0.outcomeEvent })))
        }
        return out
    }
}
