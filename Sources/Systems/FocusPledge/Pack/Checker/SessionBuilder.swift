import HarnessKit
import History

extension FocusPledgeChecker {
    /// Derives the sessions of a run from the user's `start_session` actions and the host's
    /// `session_started` lines.
    enum SessionBuilder {
        static func sessions(
            in events: [HistoryEvent], deliveries: [CallbackDelivery], settlements: [String: [LedgerSettlement]],
            userViolations: [UserViolation] = []
        ) -> [FocusSession] {
            var sessions = started(in: events, deliveries: deliveries, settlements: settlements)
            attachStops(in: events, to: &sessions)
            for i in sessions.indices {
                sessions[i].settlements = settlements[sessions[i].sessionId] ?? []
                attachViolations(deliveries, to: &sessions[i])
                let sid = sessions[i].sessionId
                sessions[i].userViolations = userViolations.filter {
                    $0.sessionId == sid && sessions[i].isInsideActiveInterval($0.action)
                }
            }
            return sessions
        }

        /// A session counts as started if the host said so, or — when the host was killed between
        /// applying the session and tracing it — if iOS started its interval or the server settled it.
        private static func started(
            in events: [HistoryEvent], deliveries: [CallbackDelivery], settlements: [String: [LedgerSettlement]]
        ) -> [FocusSession] {
            var actions: [String: HistoryEvent] = [:]
            var hostStarts: [String: HistoryEvent] = [:]
            var order: [String] = []
            for event in events {
                guard let sid = event.sessionIdField else { continue }
                if event.isUserAction("start_session"), actions[sid] == nil {
                    actions[sid] = event
                    if hostStarts[sid] == nil { order.append(sid) }
                } else if event.isHostLine("session_started"), hostStarts[sid] == nil {
                    hostStarts[sid] = event
                    if actions[sid] == nil { order.append(sid) }
                }
            }
            let intervalStarted = Set(deliveries.filter { $0.callback == "intervalDidStart" }.compactMap(\.sessionId))
            return order.compactMap { sid in
                let host = hostStarts[sid]
                guard host != nil || intervalStarted.contains(sid) || settlements[sid] != nil,
                    let first = host ?? actions[sid]
                else { return nil }
                let minutes = (actions[sid]?["durationMinutes"] ?? host?["durationMinutes"]).flatMap { Double($0) }
                return FocusSession(
                    sessionId: sid, startAction: actions[sid], hostStarted: host, startT: first.t, durationMinutes: minutes)
            }.sorted { $0.startMono < $1.startMono }
        }

        /// The first `stop_session` per session; one without a sid stops the latest session started before it.
        private static func attachStops(in events: [HistoryEvent], to sessions: inout [FocusSession]) {
            for event in events where event.isUserAction("stop_session") {
                let index = event.sessionIdField.flatMap { sid in sessions.firstIndex { $0.sessionId == sid } }
                    ?? sessions.lastIndex { $0.startMono < event.mono }
                guard let index, sessions[index].stopAction == nil, event.mono > sessions[index].startMono else { continue }
                sessions[index].stopAction = event
            }
        }

        private static func attachViolations(_ deliveries: [CallbackDelivery], to session: inout FocusSession) {
            for delivery in deliveries where delivery.isViolationCallback {
                guard session.isInsideActiveInterval(delivery), let sid = delivery.sessionId else { continue }
                if sid != session.sessionId {
                    session.callsOfOtherSessions.append(delivery)
                } else if delivery.isCompleted {
                    session.violations.append(delivery)
                } else {
                    session.maybeViolations.append(delivery)
                }
            }
        }
    }
}
