import HarnessKit
import History

extension FocusPledgeChecker {
    /// One pledge session as the history shows it: when it was active, what the user did wrong in
    /// it, and how the server settled it.
    struct FocusSession: Sendable {
        var sessionId: String
        var startAction: HistoryEvent?
        /// The host's `session_started` (shields are applied before it is traced).
        var hostStarted: HistoryEvent?
        var stopAction: HistoryEvent?
        /// Device time, unix seconds.
        var startT: Double
        var durationMinutes: Double?
        /// Completed violation callbacks inside the active interval, before the first settlement.
        var violations: [CallbackDelivery] = []
        /// Violation callbacks whose extension died mid-callback (or outlived the history).
        var maybeViolations: [CallbackDelivery] = []
        /// Violation calls the history tags with another session (the one the user meant) that iOS
        /// delivered inside this one's active interval, before its first settlement — late (a held
        /// call, `os.faults`). The app cannot tell them from a violation of this session: Apple's
        /// calls carry the application or the activity, never when the user acted.
        var callsOfOtherSessions: [CallbackDelivery] = []
        var settlements: [LedgerSettlement] = []
        /// The user's violating actions inside the active interval, before the first settlement.
        var userViolations: [UserViolation] = []

        /// The user broke the pledge and iOS showed the shield (the violation iOS then tells the app about).
        var shownViolations: [UserViolation] { userViolations.filter(\.shielded) }

        /// A blocked app was opened and iOS did not shield it: any resolution is right.
        var hasUnshieldedUse: Bool { userViolations.contains(where: \.unshielded) }

        /// Shown violations none of whose calls into the app completed: iOS lost them.
        var violationsLostByOS: [UserViolation] { violations.isEmpty ? shownViolations : [] }

        /// The scheduled end; nil when no duration was recorded (the session never "ends").
        var endT: Double? { durationMinutes.map { startT + $0 * 60 } }

        /// The end of what the user pledged: from the tap (the server's pledge, A1), however late
        /// the host read it.
        var pledgeEndT: Double? { durationMinutes.map { (startAction?.t ?? startT) + $0 * 60 } }

        /// The end of the active interval: the scheduled end, or an earlier manual stop.
        var activeEndT: Double? {
            guard let stopT = stopAction?.t else { return endT }
            return min(endT ?? stopT, stopT)
        }

        var startMono: Int64 { (startAction ?? hostStarted)?.mono ?? 0 }

        var wasStoppedByUser: Bool {
            guard let stopT = stopAction?.t else { return false }
            return endT.map { stopT < $0 } ?? true
        }

        /// True if `delivery`, a callback for this session, counts against it: delivered at a device
        /// time inside [start, active end) and before the server settled the session.
        func isInsideActiveInterval(_ delivery: CallbackDelivery) -> Bool { isInsideActiveInterval(delivery.delivered) }

        func isInsideActiveInterval(_ event: HistoryEvent) -> Bool {
            let t = event.t
            guard t >= startT, t < (activeEndT ?? .infinity) else { return false }
            return settlements.allSatisfy { $0.isAfter(event) }
        }

        /// The session's start lines, for explanations.
        var startEvents: [HistoryEvent?] { [startAction, hostStarted] }
    }
}
