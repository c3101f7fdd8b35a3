import FocusPledge
import HarnessKit
import History

extension FocusPledgeChecker {
    /// A start the host refused because the user had said no to Screen Time access (README, H8):
    /// no app can enforce a pledge then (iOS refuses its monitoring, EMULATED-IOS.md §10.3), so the
    /// refusal is excused in `start-enforced` and the session is not "enforced" for
    /// `blocked-app-shielded` — and it is listed beside the verdict (`lostByOS`), never silent.
    ///
    /// Excused only when the history shows the app could not have done better: the host's
    /// `start_rejected` says `not_authorized`, and the OS's last FamilyControls line before it is a
    /// `denied` answer to a prompt (`authorization` with a `request`). After a revocation the app
    /// could have asked again, and a `denied` it never asked for is not the user's answer.
    struct UnauthorizedStart: Sendable {
        var start: HistoryEvent
        var rejected: HistoryEvent
        /// The OS's answer that made it so.
        var answer: HistoryEvent

        var sessionId: String? { rejected.sessionIdField }

        static func all(in run: FocusPledgeRun) -> [UnauthorizedStart] {
            var out: [UnauthorizedStart] = []
            for start in run.events where start.isUserAction("start_session") {
                guard let sid = start.sessionIdField,
                    let rejected = run.events.first(where: { $0.isHostLine("start_rejected") && $0.sessionIdField == sid && $0.mono > start.mono }),
                    rejected["reason"] == HostApp.notAuthorizedReason,
                    let answer = run.events.last(where: {
                        $0.isHarnessLine("authorization") && $0["kind"] == "familyControls" && $0.mono < rejected.mono
                    }),
                    answer["status"] == "denied", answer["request"] != nil
                else { continue }
                out.append(UnauthorizedStart(start: start, rejected: rejected, answer: answer))
            }
            return out
        }

        /// For `lostByOS`: the user's start that no app could have enforced.
        var listed: InvariantViolation {
            InvariantViolation(
                invariant: "start-not-authorized", subject: .init(kind: "session", id: sessionId ?? "?"),
                explanation: "the user's start at t=\(start.t) was refused: the user denied Screen Time access "
                    + "(the OS's answer at t=\(answer.t)); no app can enforce a pledge without it",
                relevantEvents: RelevantEvents.pick([answer, start, rejected]))
        }
    }
}
