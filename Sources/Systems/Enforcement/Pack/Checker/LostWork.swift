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
        func tap(_ action: String, _ matching: [String] = [], _ invariant: EnforcementInvariant) -> LostWork.TapKind {
            .init(role: EnforcementRoles.host, action: action, matching: matching, invariant: invariant.rawValue)
        }
        return LostWork.violations(
            in: run.events,
            presses: [.init(action: "press_close", label: nil, invariant: EnforcementInvariant.grantEndReshields.rawValue, name: "Close app", id: "close")],
            taps: [
                tap(EnforcementKeys.selectAppsAction, [], .shieldsMatchFormula), tap(EnforcementKeys.enableModeAction, [], .shieldsMatchFormula),
                tap(EnforcementKeys.createGrantAction, ["app"], .grantAppUsable), tap(EnforcementKeys.setOverrideAction, ["mode"], .shieldsMatchFormula),
            ])
    }
}
