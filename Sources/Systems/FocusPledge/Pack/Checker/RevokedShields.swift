import HarnessKit
import History

extension FocusPledgeChecker {
    /// A blocked app opened unshielded after the user revoked Screen Time access (Settings →
    /// Screen Time; `os.revokeAt`): iOS removed every shield with the authorization (EMULATED-IOS.md
    /// §10.6) and tells the app nothing. Excused in `blocked-app-shielded` — and listed in
    /// `lostByOS` — only when the app could not have done better: no approval came back between the
    /// revocation and the opening, and the host was never in the foreground in between (where it
    /// could have seen the status and asked again). Docs: SCENARIOS.md "Field reports", 2.
    struct RevokedShields: Sendable {
        var violation: UserViolation
        var revocation: HistoryEvent
        static let hostTaps: Set<String> = ["open_host", "select_apps", "start_session", "stop_session"]

        static func revocation(before v: UserViolation, in run: FocusPledgeRun) -> HistoryEvent? {
            guard let last = run.index.screenTimeRevocation(before: v.action.mono) else { return nil }
            // In front: iOS put it there, or the user tapped in it.
            let hostWasInFront = run.events.contains {
                $0.mono > last.mono && $0.mono < v.action.mono
                    && (($0.isHarnessLine("host_state") && $0["state"] == "foreground")
                        || ($0.isHarnessLine("user_action") && hostTaps.contains($0["action"] ?? "")))
            }
            return hostWasInFront ? nil : last
        }

        var listed: InvariantViolation {
            InvariantViolation(
                invariant: "shield-removed-by-revocation", subject: .init(kind: "session", id: violation.sessionId ?? "?"),
                explanation: "the user opened \(violation.app ?? "?") at t=\(violation.t) unshielded: the user had revoked Screen Time "
                    + "access at t=\(revocation.t), iOS removed the shields, and the app was not in front since to ask again",
                relevantEvents: RelevantEvents.pick([revocation, violation.action, violation.response]))
        }
    }
}
