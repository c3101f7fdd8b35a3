import FocusPledge
import HarnessKit
import History

extension FocusPledgeChecker {
    /// `start-enforced` (Testing Checklist, "Start session — Shields apply immediately,
    /// DeviceActivity starts"): by the time the host has run `graceSeconds` after the user's start,
    /// every selected app has been shielded and the session's activity registered. A start the host refused
    /// is a violation too: the user's start is never silently dropped — unless the user had denied
    /// Screen Time access (`UnauthorizedStart`, listed beside the verdict), or the tap that would have
    /// started it died with the host before anything came of it, or every pick of apps before it
    /// before it reached the App Group, and the user did not tap again (`LostTap`, listed by the core). Not judged
    /// when the session was settled or stopped before that, or the host never ran long enough.
    enum StartEnforcedRule {
        /// The planner keeps violations out of a session's first minute.
        static let graceSeconds = 60.0

        static func judge(_ run: FocusPledgeRun) -> RuleOutcome {
            var outcome = RuleOutcome(FocusPledgeInvariant.startEnforced.rawValue, subjectKind: "session")
            let unauthorized = Set(UnauthorizedStart.all(in: run).map(\.rejected.mono))
            let lost = lostWithTheHost(run)
            for start in run.events where start.isUserAction("start_session") {
                guard let sid = start.sessionIdField else { continue }
                let session = run.sessions.first { $0.sessionId == sid }
                if lost.contains(sid) {
                    outcome.checkedCount += 1
                    continue
                }
                if let rejected = run.events.first(where: { $0.isHostLine("start_rejected") && $0.sessionIdField == sid && $0.mono > start.mono }),
                    unauthorized.contains(rejected.mono)
                {
                    // The user denied Screen Time access: listed in `lostByOS` (UnauthorizedStart).
                    outcome.checkedCount += 1
                    continue
                }
                if let rejected = run.events.first(where: { $0.isHostLine("start_rejected") && $0.sessionIdField == sid && $0.mono > start.mono }) {
                    outcome.checkedCount += 1
                    outcome.fail(sid, "the host refused the user's start: \(rejected["reason"] ?? "?")", [start, rejected])
                    continue
                }
                guard let deadline = run.host.deadline(after: start.t, seconds: graceSeconds) else { continue }
                if let session {
                    if let end = session.activeEndT, end <= deadline { continue }
                    if let settled = session.settlements.first?.deviceT, settled <= deadline { continue }
                }
                outcome.checkedCount += 1
                let activity = FocusPledgeKeys.activityName(sessionId: sid)
                // Applied at some point in [start, deadline]: what happens to them later (a violation
                // concludes the session) is other rules' business.
                let states = [run.shieldedApps(atT: start.t)]
                    + run.shields.changes.filter { $0.t >= start.t && $0.t <= deadline }.map {
                        Set(($0["apps"] ?? "").split(separator: ",").map(String.init))
                    }
                let best = states.min { run.selectedApps.subtracting($0).count < run.selectedApps.subtracting($1).count } ?? []
                let missing = run.selectedApps.subtracting(best)
                // Registered in [start, deadline], or already in force at the tap: a second Start of
                // a running pledge (which the host rightly ignores) is enforced by the first's.
                let registered = run.registration(activity, from: start.t, through: deadline)
                    ?? (run.isRegistered(activity, atT: start.t) ? start : nil)
                var problems: [String] = []
                if !missing.isEmpty { problems.append("\(missing.sorted().joined(separator: ",")) not shielded") }
                if registered == nil { problems.append("\(activity) not monitored") }
                guard !problems.isEmpty else { continue }
                let errors = run.events.filter {
                    $0.process == HistoryEvent.hostProcessName && ($0.event == "monitoring_error" || $0.event == "shield_error"
                        || $0.event == "start_native_failed") && $0.t >= start.t && $0.t <= deadline
                }
                outcome.fail(
                    sid, "started at t=\(start.t); at t=\(deadline) (\(Int(graceSeconds)) s of host running time later): "
                        + problems.joined(separator: ", "),
                    [start, session?.hostStarted] + errors.prefix(2).map { Optional($0) } + [run.shields.changes.last { $0.t <= deadline }])
            }
            return outcome
        }

        /// The sessions whose start no process could have made, because a tap of the user's died
        /// with the host and was not made again (`user.retry`; each listed in `lostByOS` by the
        /// core): the start's own tap before anything came of it, or — the host refusing the start
        /// for want of apps — every pick of apps before it, before it reached the App Group.
        static func lostWithTheHost(_ run: FocusPledgeRun) -> Set<String> {
            let lostTaps = run.index.lostTaps
            guard !lostTaps.isEmpty else { return [] }
            var out = Set<String>()
            for start in run.events where start.isUserAction("start_session") {
                guard let sid = start.sessionIdField else { continue }
                if lostTaps.contains(where: {
                    $0.action == FocusPledgeActions.startSession && $0["sessionId"] == sid && $0.line.mono > start.mono && $0.beforeAnyEffect
                }) {
                    out.insert(sid)
                    continue
                }
                let refusedForWantOfApps = run.events.contains {
                    $0.isHostLine("start_rejected") && $0.sessionIdField == sid && $0.mono > start.mono && $0["reason"] == "no_blocked_apps"
                }
                let picks = run.events.filter { $0.isUserAction("select_apps") && $0.mono < start.mono }.count
                let picksLost = lostTaps.filter { $0.action == FocusPledgeActions.selectApps && $0.writes.isEmpty && $0.line.mono < start.mono }.count
                if refusedForWantOfApps && picks > 0 && picksLost >= picks { out.insert(sid) }
            }
            return out
        }
    }
}
