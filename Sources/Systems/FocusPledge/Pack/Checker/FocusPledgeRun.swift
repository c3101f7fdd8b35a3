import HarnessKit
import History

extension FocusPledgeChecker {
    /// Everything the FocusPledge rules need, derived once from a history.
    struct FocusPledgeRun: Sendable {
        static let hostTarget = "host-app"
        static let serverTarget = "settlement-server"

        let index: HistoryIndex
        var events: [HistoryEvent] { index.events }
        var runStarted: HistoryEvent? { index.runStarted }
        var runFinished: HistoryEvent? { index.runFinished }
        var quiesce: HistoryEvent? { index.quiesce }
        var hostLives: [ProcessLifetime] { index.lifetimes(of: Self.hostTarget) }
        var deliveries: [CallbackDelivery] { index.deliveries }
        var settlements: [String: [LedgerSettlement]]
        var sessions: [FocusSession]
        var shields: ShieldTimeline { index.shields }
        var userViolations: [UserViolation]
        /// When the host could act.
        var host: HostAvailability
        /// When the host ran while the settlement server was up: the only time it can learn of a
        /// settlement the server made by itself (the stale job).
        var hostWithServer: HostAvailability
        /// The apps the user picked (`select_apps`): what every session's shield must cover.
        var selectedApps: Set<String> { Set(index.selectedApps) }
        /// Device time of the last line: a session whose end is before it had time to be settled
        /// (the harness quiesces and lets the system settle before it finishes).
        let lastT: Double

        init(_ history: [HistoryEvent]) {
            index = HistoryIndex(history)
            let events = index.events
            settlements = LedgerSettlement.bySession(in: events)
            userViolations = UserViolation.all(in: events)
            sessions = SessionBuilder.sessions(in: events, deliveries: index.deliveries, settlements: settlements, userViolations: userViolations)
            // Ledger lines copied after the run may carry a later device time than run_finished.
            lastT = events.map(\.t).max() ?? 0
            host = HostAvailability.running(index.lifetimes(of: Self.hostTarget), endT: lastT)
            hostWithServer = host.intersection(HostAvailability.running(index.lifetimes(of: Self.serverTarget), endT: lastT))
        }

        /// Run end by `mono`: `run_finished`, else the last line.
        var endMono: Int64 { index.endMono }

        /// The host's first `name` line about `sessionId` (e.g. its `settle_requested`), for explanations.
        func firstHostLine(_ name: String, sessionId: String) -> HistoryEvent? {
            events.first { $0.isHostLine(name) && $0.sessionIdField == sessionId }
        }

        /// The applications shielded (ManagedSettings ground truth) at device time `t`, after every
        /// change recorded at or before it.
        func shieldedApps(atT t: Double) -> Set<String> {
            guard let last = shields.changes.last(where: { $0.t <= t }) else { return [] }
            return Set((last["apps"] ?? "").split(separator: ",").map(String.init))
        }

        /// Whether a DeviceActivity registration named `activity` exists at device time `t`
        /// (the OS's `monitoring_registered` / `monitoring_removed` lines).
        func isRegistered(_ activity: String, atT t: Double) -> Bool {
            let last = events.last {
                ($0.isHarnessLine("monitoring_registered") || $0.isHarnessLine("monitoring_removed")) && $0["activity"] == activity
                    && $0.t <= t
            }
            return last?.event == "monitoring_registered"
        }

        /// The first `monitoring_registered` of `activity` in [from, through].
        func registration(_ activity: String, from: Double, through: Double) -> HistoryEvent? {
            events.first { $0.isHarnessLine("monitoring_registered") && $0["activity"] == activity && $0.t >= from && $0.t <= through }
        }

        /// When a settled session's cleanup is judged: once the host has run `graceSeconds` after the
        /// settlement — with the server up, for a settlement only the stale job made (the seed: "On next
        /// app open, Flutter detects server-side settlement"). Nil —
        /// not judged — when the host never ran that long before the next session started, or the
        /// history ended.
        func cleanupDeadline(after session: FocusSession, graceSeconds: Double) -> Double? {
            let settledT = session.settlements.compactMap { $0.serverSettled?.t ?? $0.deviceT }.max() ?? session.startT
            // A settlement only the server made (the stale job) reaches the host through the server:
            // count the host's running time while the server was up too.
            let byServerOnly = !session.settlements.isEmpty && session.settlements.allSatisfy { $0.origin == LedgerSettlement.staleJobOrigin }
            let clock = byServerOnly ? hostWithServer : host
            guard let d = clock.deadline(after: max(settledT, session.startT), seconds: graceSeconds) else { return nil }
            if sessions.contains(where: { $0.sessionId != session.sessionId && $0.startT > session.startT && $0.startT <= d }) { return nil }
            return d
        }

        /// Another session than `session` was live at `t`: started, and not settled yet.
        func anotherSessionLive(than session: FocusSession, atT t: Double) -> Bool {
            sessions.contains { s in
                s.sessionId != session.sessionId && s.startT <= t && !s.settlements.contains { ($0.serverSettled?.t ?? $0.deviceT ?? .infinity) <= t }
            }
        }

        /// Why the run cannot be judged, or nil if it can.
        var undecidableReason: String? { index.undecidableReason }
    }
}
