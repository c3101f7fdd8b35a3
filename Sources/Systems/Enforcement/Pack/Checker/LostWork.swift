import Enforcement
import HarnessKit
import History

/// The user's work that never reached the app, listed beside the verdict (`report.json`'s
/// `lostByOS`) so a PASS never hides it (DESIGN.md "No pass by lost work"). The rules judge the
/// rules the host recorded: a tap the host never took (a grant never created, a mode never
/// enabled, a selection never saved) leaves nothing for them to judge — `checklist-steps` skips a
/// step whose rules disagree with it — so each such tap is said here: one the host never took
/// (`user_input`) before the user's next tap of that kind, and a "Close app" press none of whose
/// shield-action calls completed (the "next shield event" the fallback counts on).
enum LostWork {
    static func list(_ run: EnforcementRun) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        let users = run.events.filter { $0.isHarnessLine("user_action") }
        for kind in [EnforcementKeys.selectAppsAction, EnforcementKeys.enableModeAction, EnforcementKeys.createGrantAction] {
            let taps = users.filter { $0["action"] == kind }
            for (i, tap) in taps.enumerated() {
                let until = taps.dropFirst(i + 1).first?.mono ?? .max
                let taken = run.events.contains {
                    $0.isLine(of: EnforcementRoles.host, "user_input") && $0["action"] == kind && $0.mono > tap.mono && $0.mono < until
                        && (kind != EnforcementKeys.createGrantAction || $0["app"] == tap["app"])
                }
                guard !taken else { continue }
                out.append(InvariantViolation(
                    invariant: kind == EnforcementKeys.createGrantAction ? EnforcementInvariant.grantAppUsable.rawValue : EnforcementInvariant.shieldsMatchFormula.rawValue,
                    subject: .init(kind: "tap", id: "\(kind)@t=\(Int(tap.t))"),
                    explanation: "the user's \(kind) tap at t=\(tap.t)\(tap["step"].map { " (step \($0))" } ?? "") never reached the host (no user_input)",
                    relevantEvents: RelevantEvents.pick([tap, run.events.last { $0.isHarnessLine("exit") && $0["target"] == EnforcementRoles.host && $0.mono < tap.mono }])))
            }
        }
        let calls = CallbackDelivery.deliveries(in: run.events).filter { $0.callback == "shieldAction" }
        for (i, press) in users.enumerated() where press["action"] == "press_close" {
            let next = users.dropFirst(i + 1).first?.mono ?? .max
            let mine = calls.filter { $0.delivered.mono > press.mono && $0.delivered.mono < next }
            guard !mine.contains(where: \.isCompleted) else { continue }
            // No shield on screen, no press (step 7 of an as-written run whose re-shield never
            // came): whether the shield should have been there is `checklist-steps`' to judge.
            if mine.isEmpty, run.events.contains(where: { $0.isHarnessLine("shield_button_unavailable") && $0.mono > press.mono && $0.mono < next }) { continue }
            out.append(InvariantViolation(
                invariant: EnforcementInvariant.grantEndReshields.rawValue, subject: .init(kind: "press", id: "close@t=\(Int(press.t))"),
                explanation: "the Close app press at t=\(press.t): no shield-action call of it completed before the user's next move (\(mine.count) call(s))",
                relevantEvents: RelevantEvents.pick([press] + mine.prefix(2).map { Optional($0.delivered) } + mine.prefix(2).map { $0.outcomeEvent })))
        }
        return out
    }
}
