import AppGroup
import Foundation
import SystemKit

/// Ours: the same App Group keys, server and extensions, with every promise of seed 000 kept.
extension HostApp {
    // MARK: - hardened

    mutating func hardened(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let now, let store):
            state = State()
            return hardenedReconcile(now: now, store: store)

        case .userSelectedApps(let bundleIds):
            return [AppGroupStorage.saveBlockedAppsTokens(bundleIds)]

        case .userStartsSession(let sessionId, let durationMinutes, let now, let store):
            return hardenedStart(sessionId: sessionId, durationMinutes: durationMinutes, now: now, store: store)

        case .userStopsSession:
            guard case .running(let session) = state.phase else { return [] }
            return hardenedBeginSettle(session, .failure, reason: Self.userStoppedReason, evidence: [:])

        case .pollTick(let now, let store), .failureNotified(let now, let store):
            switch state.phase {
            case .idle:
                return []
            case .running(let session):
                return heartbeat(session.sessionId) + hardenedCheck(session, now: now, store: store)
            case .settling(let settlement):
                // A used-up retry episode starts again on the next tick (bounded per episode).
                guard settlement.status == .gaveUp else { return [] }
                return hardenedSendSettle(settlement, attempt: 1)
            }

        case .sessionTimerFired(let now, let store):
            guard case .running(let session) = state.phase, state.countdownSessionId == session.sessionId else { return [] }
            // A stale timer (e.g. of an earlier session) is harmless: hardenedCheck looks at the clock.
            return hardenedCheck(session, now: now, store: store)

        case .httpResult(let requestId, let outcome):
            guard let call = state.inFlight.removeValue(forKey: requestId) else { return [] }
            return hardenedResult(call, requestId: requestId, outcome: outcome)

        case .httpReply:
            return []  // decoded into httpResult by handle(_:)

        case .retryTimerFired(let requestId, _):
            guard let call = state.retryWaiting.removeValue(forKey: requestId) else { return [] }
            switch call {
            case .settle(let sessionId):
                guard case .settling(let settlement) = state.phase, settlement.session.sessionId == sessionId,
                    settlement.status == .retryScheduled(requestId: requestId)
                else { return [] }
                return hardenedSendSettle(settlement, attempt: settlement.attempt + 1)
            case .createSession(let sessionId, let durationMinutes, let attempt):
                guard currentSessionId == sessionId else { return [] }
                return [send(
                    .createSession(sessionId: sessionId, durationMinutes: durationMinutes),
                    as: .createSession(sessionId: sessionId, durationMinutes: durationMinutes, attempt: attempt + 1))]
            case .heartbeat:
                return []
            }
        }
    }

    var currentSessionId: String? {
        switch state.phase {
        case .idle: return nil
        case .running(let s): return s.sessionId
        case .settling(let st): return st.session.sessionId
        }
    }

    /// Relaunch: the suite is the only memory. A failure bound to the active session is settled
    /// FAILURE; a session whose end passed (or whose interval the monitor saw end) is settled
    /// SUCCESS; otherwise enforcement is re-applied and polling resumes. createSession is re-sent
    /// (idempotent) in case the previous process died between its state write and that call.
    mutating func hardenedReconcile(now: Date, store: Snapshot) -> [Effect] {
        guard let record = AppGroupStorage.activeSession(store) else {
            return [.trace("reconciled", ["action": "none"])]
        }
        let session = Self.session(from: record)
        var effects: [Effect] = []
        if let start = session.startTime, let end = session.endTime {
            let minutes = max(1, Int((end.timeIntervalSince(start) / 60).rounded()))
            effects.append(send(
                .createSession(sessionId: session.sessionId, durationMinutes: minutes),
                as: .createSession(sessionId: session.sessionId, durationMinutes: minutes, attempt: 1)))
        }
        state.pollingSessionId = session.sessionId
        effects.append(.startTimer(Self.pollTimer, .every(seconds: Double(Self.pollIntervalSeconds))))
        let status = AppGroupStorage.checkSessionFailed(store)
        if status.failed && status.sessionId == session.sessionId {
            effects.append(.trace("reconciled", ["action": "settle_failure", "sessionId": session.sessionId]))
            effects += traceFailureSeen(session.sessionId, status)
            return effects + hardenedBeginSettle(
                session, .failure, reason: status.reason ?? FocusPledgeKeys.appOpenedReason, evidence: status.nativeEvidence)
        }
        // A record without an end time is corruption we were handed (our writes are atomic): it
        // cannot be enforced, so it is closed as if it had ended.
        if record.ended || session.endTime.map({ now >= $0 }) ?? true {
            effects.append(.trace("reconciled", ["action": "settle_success", "sessionId": session.sessionId]))
            return effects + hardenedBeginSettle(session, .success, reason: Self.completedReason, evidence: [:])
        }
        state.phase = .running(session)
        effects.append(.trace("reconciled", ["action": "resume", "sessionId": session.sessionId]))
        // The previous process may have died between its state write and the shields/schedule.
        if let apps = AppGroupStorage.blockedApps(store) { effects.append(.applyShields(apps)) }
        if let start = session.startTime, let end = session.endTime {
            effects.append(.startMonitoring(activity: session.activityName, start: start, end: end, repeats: false))
            state.countdownSessionId = session.sessionId
            effects.append(.startTimer(Self.sessionTimer, .at(end)))
        }
        return effects
    }

    /// Checks tokens before touching anything, writes the whole session atomically, then creates
    /// it on the server and enforces it. The suite record comes first: it is the durable to-do a
    /// relaunch works from.
    mutating func hardenedStart(sessionId: String, durationMinutes: Int, now: Date, store: Snapshot) -> [Effect] {
        func reject(_ reason: String) -> [Effect] {
            [.trace("start_rejected", ["sessionId": sessionId, "reason": reason])]
        }
        guard state.phase == .idle else { return reject("session_in_progress") }
        if let other = AppGroupStorage.activeSessionId(store), other != sessionId {
            return reject("unsettled_session_in_store")
        }
        guard durationMinutes > 0 else { return reject("invalid_duration") }
        guard let apps = AppGroupStorage.blockedApps(store), !apps.isEmpty else { return reject("no_blocked_apps") }
        let end = now.addingTimeInterval(TimeInterval(durationMinutes * 60))
        let session = ActiveSession(sessionId: sessionId, startTime: now, endTime: end)
        state.phase = .running(session)
        state.pollingSessionId = sessionId
        state.countdownSessionId = sessionId
        return [
            AppGroupStorage.setActiveSession(id: sessionId, startTime: now, endTime: end, variant: .hardened),
            send(
                .createSession(sessionId: sessionId, durationMinutes: durationMinutes),
                as: .createSession(sessionId: sessionId, durationMinutes: durationMinutes, attempt: 1)),
            .applyShields(apps),
            .startMonitoring(activity: session.activityName, start: now, end: end, repeats: false),
            .startTimer(Self.sessionTimer, .at(end)),
            .startTimer(Self.pollTimer, .every(seconds: Double(Self.pollIntervalSeconds))),
            .trace("session_started", ["sessionId": sessionId, "durationMinutes": String(durationMinutes)]),
        ]
    }

    /// While running: a failure bound to this session → FAILURE (failures of other sessions are
    /// ignored); else the end reached → SUCCESS. Failure wins over end.
    mutating func hardenedCheck(_ session: ActiveSession, now: Date, store: Snapshot) -> [Effect] {
        let status = AppGroupStorage.checkSessionFailed(store)
        if status.failed && status.sessionId == session.sessionId {
            return traceFailureSeen(session.sessionId, status)
                + hardenedBeginSettle(
                    session, .failure, reason: status.reason ?? FocusPledgeKeys.appOpenedReason,
                    evidence: status.nativeEvidence)
        }
        let endedMarker = AppGroupStorage.activeSession(store).map { $0.sessionId == session.sessionId && $0.ended } ?? false
        if endedMarker || session.endTime.map({ now >= $0 }) ?? false {
            return hardenedBeginSettle(session, .success, reason: Self.completedReason, evidence: [:])
        }
        return []
    }

    /// Settle first; shields, monitoring and state stay until the server confirms. The poll timer
    /// keeps running so a stalled episode restarts.
    mutating func hardenedBeginSettle(
        _ session: ActiveSession, _ resolution: Resolution, reason: String, evidence: [String: String]
    ) -> [Effect] {
        let settlement = Settlement(
            session: session, resolution: resolution, reason: reason, nativeEvidence: evidence,
            idempotencyKey: "settle_\(session.sessionId)", attempt: 0, status: .gaveUp)
        return hardenedSendSettle(settlement, attempt: 1)
    }

    mutating func hardenedSendSettle(_ settlement: Settlement, attempt: Int) -> [Effect] {
        var settlement = settlement
        let request = ResolveSessionRequest(
            sessionId: settlement.session.sessionId, resolution: settlement.resolution,
            idempotencyKey: settlement.idempotencyKey, reason: settlement.reason,
            nativeEvidence: settlement.nativeEvidence, ifActive: true)
        let http = send(.resolveSession(request), as: .settle(sessionId: settlement.session.sessionId))
        guard case .http(let requestId, _) = http else { preconditionFailure("send returns .http") }
        settlement.attempt = attempt
        settlement.status = .inFlight(requestId: requestId)
        state.phase = .settling(settlement)
        return [
            .trace("settle_requested", [
                "sessionId": settlement.session.sessionId, "resolution": settlement.resolution.rawValue,
                "idempotencyKey": settlement.idempotencyKey, "attempt": String(attempt),
            ]),
            http,
        ]
    }

    mutating func hardenedResult(_ call: Call, requestId: Int, outcome: HTTPOutcome) -> [Effect] {
        switch call {
        case .heartbeat(let sessionId):
            // The server settled the session itself (seed: "On next app open, Flutter detects
            // server-side settlement"): clean up without settling.
            guard case .alreadyResolved(let resolution) = outcome, case .running(let session) = state.phase,
                session.sessionId == sessionId
            else { return [] }
            return [.trace("server_resolved", ["sessionId": sessionId, "serverResolution": resolution.rawValue])]
                + hardenedCleanup(session)

        case .createSession(let sessionId, _, let attempt):
            guard case .transportError = outcome, currentSessionId == sessionId else { return [] }
            guard attempt < RetryPolicy.maxAttemptsPerEpisode else {
                // Not fatal: a settle that meets notFound re-creates the session first.
                return [.trace("create_gave_up", ["sessionId": sessionId])]
            }
            state.retryWaiting[requestId] = call
            return [.startTimer(Self.retryTimer(requestId), .after(seconds: RetryPolicy.backoffSeconds(afterFailedAttempts: attempt)))]

        case .settle(let sessionId):
            guard case .settling(var settlement) = state.phase, settlement.session.sessionId == sessionId,
                settlement.status == .inFlight(requestId: requestId)
            else { return [] }
            var effects: [Effect] = [
                .trace(
                    "settle_result",
                    Self.outcomeName(outcome).merging(
                        ["sessionId": sessionId, "resolution": settlement.resolution.rawValue,
                         "idempotencyKey": settlement.idempotencyKey, "attempt": String(settlement.attempt)]) { a, _ in a })
            ]
            switch outcome {
            case .settled, .duplicate, .alreadyResolved:
                return effects + hardenedCleanup(settlement.session)
            case .notFound where settlement.attempt >= RetryPolicy.maxAttemptsPerEpisode:
                // The server never learnt of this session (createSession was retried meanwhile):
                // nothing can be settled, and shields must not stay up forever.
                effects.append(.trace("settle_abandoned", ["sessionId": sessionId]))
                return effects + hardenedCleanup(settlement.session)
            case .notFound, .transportError, .accepted:
                if case .notFound = outcome, let minutes = settlement.session.durationMinutes {
                    // The server never learnt of the session (createSession met a dead server
                    // and gave up): create it now — idempotent — so the retried settle can land.
                    effects.append(send(
                        .createSession(sessionId: sessionId, durationMinutes: minutes),
                        as: .createSession(sessionId: sessionId, durationMinutes: minutes, attempt: 1)))
                }
                guard settlement.attempt < RetryPolicy.maxAttemptsPerEpisode else {
                    settlement.status = .gaveUp
                    state.phase = .settling(settlement)
                    effects.append(.trace("settle_stalled", ["sessionId": sessionId]))
                    return effects
                }
                settlement.status = .retryScheduled(requestId: requestId)
                state.phase = .settling(settlement)
                state.retryWaiting[requestId] = call
                effects.append(.startTimer(Self.retryTimer(requestId), .after(seconds: RetryPolicy.backoffSeconds(afterFailedAttempts: settlement.attempt))))
                return effects
            }
        }
    }

    /// Only after the server confirmed. Shields and monitoring go first and the suite record last,
    /// so a kill in between leaves the record, and the relaunch settles again (same key →
    /// duplicate) and finishes the cleanup.
    mutating func hardenedCleanup(_ session: ActiveSession) -> [Effect] {
        state.phase = .idle
        state.pollingSessionId = nil
        state.countdownSessionId = nil
        state.retryWaiting = state.retryWaiting.filter { _, call in
            switch call {
            case .settle(let id), .heartbeat(let id), .createSession(let id, _, _): return id != session.sessionId
            }
        }
        return [
            .removeShields,
            .stopMonitoring([session.activityName]),
            .cancelTimer(Self.pollTimer),
            .cancelTimer(Self.sessionTimer),
            AppGroupStorage.clearActiveSession(variant: .hardened),
            .trace("session_closed", ["sessionId": session.sessionId]),
        ]
    }
}
