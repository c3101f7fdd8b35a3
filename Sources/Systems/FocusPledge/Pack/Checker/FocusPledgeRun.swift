import HarnessKit
import History

extension FocusPledgeChecker {
    /// Everything the FocusPledge rules need, derived once from a history.
    struct FocusPledgeRun: Sendable {
        static let hostTarget = "host-app"

        var events: [HistoryEvent]
        var runStarted: HistoryEvent?
        var runFinished: HistoryEvent?
        var quiesce: HistoryEvent?
        var hostLives: [ProcessLifetime]
        var deliveries: [CallbackDelivery]
        var settlements: [String: [LedgerSettlement]]
        var sessions: [FocusSession]
        var shields: ShieldTimeline

        init(_ history: [HistoryEvent]) {
            // Stable sort: the merge is by mono already; equal monos keep their order.
            events = history.enumerated()
                .sorted { ($0.element.mono, $0.offset) < ($1.element.mono, $1.offset) }
                .map(\.element)
            runStarted = events.first { $0.isHarnessLine("run_started") }
            runFinished = events.last { $0.isHarnessLine("run_finished") }
            quiesce = events.first { $0.isHarnessLine("quiesce") }
            hostLives = ProcessLifetime.lifetimes(of: Self.hostTarget, in: events)
            deliveries = CallbackDelivery.deliveries(in: events)
            settlements = LedgerSettlement.bySession(in: events)
            sessions = SessionBuilder.sessions(in: events, deliveries: deliveries, settlements: settlements)
            shields = ShieldTimeline(events)
        }

        /// Device time of the last line: a session whose end is before it had time to be settled
        /// (the harness quiesces and lets the system settle before it finishes).
        var lastT: Double { events.map(\.t).max() ?? 0 }

        /// Run end by `mono`: `run_finished`, else the last line.
        var endMono: Int64 { runFinished?.mono ?? events.last?.mono ?? 0 }

        /// The host's first `name` line about `sessionId` (e.g. its `settle_requested`), for explanations.
        func firstHostLine(_ name: String, sessionId: String) -> HistoryEvent? {
            events.first { $0.isHostLine(name) && $0.sessionIdField == sessionId }
        }

        /// Why the run cannot be judged, or nil if it can.
        var undecidableReason: String? {
            if runStarted == nil { return "no run_started: the history is not a whole run" }
            if runFinished == nil { return "no run_finished: the run was cut short, settlements may be missing" }
            return nil
        }
    }
}
