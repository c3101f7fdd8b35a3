import PropertyList
import Foundation
import SystemKit

/// Ours: the same App Group, server and extensions, with every promise of seed 000 kept; each
/// record it must read whole lives under one key (iOS writes one key at a time).
///
/// A session is *concluded* (FAILURE on a failure bound to it or a hand stop, SUCCESS at its end)
/// in one-key App Group writes that move it from "active" to the outbox
/// (`focuspledge_unsettled`); its shields and monitoring go at once, and the outbox is settled on
/// the server in the background, oldest first, with bounded retries. So the next session can start
/// while an earlier one still waits for the server, and a relaunch finishes whatever the previous
/// process left: an active session to conclude or resume, an outbox to settle.
extension HostApp {
    // MARK: - hardened

    mutating func hardened(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let now, let store):
            state = State()
            return hardenedReconcile(now: now, store: store)

        case .userSelectedApps(let bundleIds):
            // Screen Time access first, as the seed's flow has it (Testing Checklist: "Authorization
            // flow", then "App picker"); the answer comes back as `.screenTimeAuthorization` (H8).
            return [.requestAuthorization(Self.screenTimeRequest), AppGroupStorage.saveBlockedAppsTokens(bundleIds)]

        case .screenTimeAuthorization(let granted, let status, let now, let store):
            // Told to the user (the app can neither shield nor monitor without it); a start is
            // refused while the OS says `denied` (hardenedStart).
            var effects: [Effect] = granted ? [] : [.trace("error_reported", ["what": "screen_time_authorization", "error": status])]
            // A start that waited for this answer (access had been turned off): it goes ahead from
            // the user's tap, or is refused with the user's own answer.
            if let waiting = state.startWaitingForAccess, let now, let store {
                state.startWaitingForAccess = nil
                if granted {
                    effects += hardenedStart(
                        sessionId: waiting.sessionId, durationMinutes: waiting.durationMinutes, tappedAt: waiting.tappedAt, now: now,
                        store: store, screenTime: status)
                } else {
                    effects.append(.trace("start_rejected", ["sessionId": waiting.sessionId, "reason": Self.notAuthorizedReason]))
                }
            }
            return effects

        case .userStartsSession(let sessionId, let durationMinutes, let tappedAt, let now, let store, _, let screenTime):
            return hardenedStart(
                sessionId: sessionId, durationMinutes: durationMinutes, tappedAt: tappedAt, now: now, store: store, screenTime: screenTime)

        case .userStopsSession(let now, let store):
            guard case .running(let session) = state.phase else {
                return [.trace("stop_ignored", ["reason": "no_running_session"])]
            }
            // A failure that came first decides; after the end the pledge was kept; otherwise the
            // hand stop forfeits.
            let effects = hardenedCheck(session, now: now, store: store)
            guard case .running = state.phase else { return effects }
            if state.endingSessionId == session.sessionId {
                return effects + hardenedConclude(session, .success, reason: Self.completedReason, evidence: [:])
            }
            return effects + hardenedConclude(session, .failure, reason: Self.userStoppedReason, evidence: [:])

        case .pollTick(let now, let store), .failureNotified(let now, let store):
            var effects: [Effect] = []
            if case .running(let session) = state.phase {
                effects += heartbeat(session.sessionId) + hardenedCheck(session, now: now, store: store)
            }
            // A stalled outbox episode starts again on the next tick (bounded per episode).
            return effects + hardenedDrain()

        case .sessionTimerFired(let now, let store):
            guard case .running(let session) = state.phase, state.countdownSessionId == session.sessionId else { return [] }
            return hardenedCheck(session, now: now, store: store)

        case .httpResult(let requestId, let outcome):
            guard let call = state.inFlight.removeValue(forKey: requestId) else { return [] }
            return hardenedResult(call, requestId: requestId, outcome: outcome)

        case .httpReply:
            return []  // decoded into httpResult by handle(_:)

        case .retryTimerFired(let requestId, _):
            guard state.retryWaiting.removeValue(forKey: requestId) != nil, var sending = state.sending,
                sending.status == .retryScheduled(requestId: requestId)
            else { return [] }
            sending.attempt += 1
            return hardenedSend(sending)

        case .effectFailed(let failure):
            return hardenedReport(failure)
        }
    }

    /// Relaunch: the App Group is the only memory. The active session is concluded (a failure
    /// bound to it, or its end passed) or resumed (enforcement re-applied: the previous process may
    /// have died between its state write and the shields or the schedule); the outbox is settled.
    mutating func hardenedReconcile(now: Date, store: Snapshot) -> [Effect] {
        state.outbox = AppGroupStorage.unsettled(store)
        var effects: [Effect] = []
        if let record = AppGroupStorage.activeSession(store) {
            let session = Self.session(from: record)
            state.phase = .running(session)
            state.pollingSessionId = session.sessionId
            effects.append(.startTimer(Self.pollTimer, .every(seconds: Double(Self.pollIntervalSeconds))))
            var checked: [Effect]
            if let pending = state.outbox.first(where: { $0.sessionId == session.sessionId }) {
                // Already in the outbox: the previous process died between concluding the session
                // and removing it from "active". Finish the move, with the outbox's resolution.
                checked = hardenedConclude(session, pending.resolution, reason: pending.reason, evidence: pending.nativeEvidence)
            } else {
                checked = hardenedCheck(session, now: now, store: store)
            }
            // A record without an end time is corruption we were handed (hardened writes each
            // record under one key): it cannot be enforced, so it is concluded as if it had ended.
            if case .running = state.phase, session.endTime == nil {
                checked += hardenedConclude(session, .success, reason: Self.completedReason, evidence: [:])
            }
            if case .running = state.phase, state.endingSessionId != session.sessionId {
                effects.append(.trace("reconciled", ["action": "resume", "sessionId": session.sessionId]))
                if let apps = AppGroupStorage.blockedApps(store) { effects.append(.applyShields(apps)) }
                if let start = session.startTime, let end = session.endTime {
                    effects.append(.startMonitoring(activity: session.activityName, start: start, end: end, repeats: false))
                    state.countdownSessionId = session.sessionId
                    effects.append(.startTimer(Self.sessionTimer, .at(end)))
                }
            } else {
                let action = state.endingSessionId == session.sessionId ? "ending" : "conclude"
                effects.append(.trace("reconciled", ["action": action, "sessionId": session.sessionId]))
            }
            effects += checked
        } else if !state.outbox.isEmpty {
            // No active session, so nothing may stay shielded or monitored: the previous process may
            // have died between concluding a session and removing its shields.
            effects.append(.trace("reconciled", ["action": "settle_outbox", "count": String(state.outbox.count)]))
            effects += [.removeShields, .stopMonitoring(state.outbox.map(\.activityName))]
        } else {
            effects.append(.trace("reconciled", ["action": "none"]))
        }
        if !state.outbox.isEmpty && state.pollingSessionId == nil {
            effects.append(.startTimer(Self.pollTimer, .every(seconds: Double(Self.pollIntervalSeconds))))
        }
        return effects + hardenedDrain()
    }

    /// Checks the tokens before touching anything, writes the whole session atomically, then
    /// enforces it. A session still running past its end (the host was in the background) is
    /// concluded first; a start while a session runs before its end is refused (the UI offers no
    /// such button, and the planner never asks for it), and so is one without selected apps — both
    /// are reported, never silent.
    mutating func hardenedStart(
        sessionId: String, durationMinutes: Int, tappedAt: Date?, now: Date, store: Snapshot, screenTime: String? = nil
    ) -> [Effect] {
        func reject(_ reason: String) -> [Effect] {
            [.trace("start_rejected", ["sessionId": sessionId, "reason": reason])]
        }
        var effects: [Effect] = []
        if case .running(let old) = state.phase {
            if old.sessionId == sessionId { return [.trace("start_ignored", ["sessionId": sessionId, "reason": "already_running"])] }
            effects += hardenedCheck(old, now: now, store: store)
            // Past its end and waiting for late calls: the user has moved on to the next pledge.
            if case .running = state.phase, state.endingSessionId == old.sessionId {
                effects += hardenedConclude(old, .success, reason: Self.completedReason, evidence: [:])
            }
            if case .running = state.phase { return effects + reject("session_in_progress") }
        }
        // Without Screen Time access the session cannot be enforced (iOS refuses its monitoring,
        // EMULATED-IOS.md §10.3): refused and told, never started half-way (H8). `notDetermined` goes
        // on: without `os.authorization` the OS does not model it, and where it does, the request
        // at the app picker came first.
        if screenTime == "denied" {
            // Access was there and is gone (turned off in Settings: docs/SCENARIOS.md "Field
            // reports", 2), or the user said no before: ask again — iOS shows the prompt to an app
            // whose access was turned off — and let the start wait for the answer.
            guard state.startWaitingForAccess == nil else { return effects + reject(Self.notAuthorizedReason) }
            state.startWaitingForAccess = WaitingStart(sessionId: sessionId, durationMinutes: durationMinutes, tappedAt: min(tappedAt ?? now, now))
            return effects + [
                .requestAuthorization(Self.screenTimeRequest),
                .trace("start_waiting", ["sessionId": sessionId, "for": "screen_time_authorization"]),
            ]
        }
        guard durationMinutes > 0 else { return effects + reject("invalid_duration") }
        guard let apps = AppGroupStorage.blockedApps(store), !apps.isEmpty else { return effects + reject("no_blocked_apps") }
        // The pledge runs from the user's tap (H7): a host that iOS or the nemesis held stopped
        // reads the tap late, and its own clock would move the pledge's end by as much.
        let start = min(tappedAt ?? now, now)
        let end = start.addingTimeInterval(TimeInterval(durationMinutes * 60))
        let session = ActiveSession(sessionId: sessionId, startTime: start, endTime: end)
        state.phase = .running(session)
        state.pollingSessionId = sessionId
        state.countdownSessionId = sessionId
        return effects + [
            AppGroupStorage.setActiveSession(id: sessionId, startTime: start, endTime: end, variant: .hardened),
            .applyShields(apps),
            .startMonitoring(activity: session.activityName, start: start, end: end, repeats: false),
            .startTimer(Self.sessionTimer, .at(end)),
            .startTimer(Self.pollTimer, .every(seconds: Double(Self.pollIntervalSeconds))),
            .trace("session_started", ["sessionId": sessionId, "durationMinutes": String(durationMinutes)]),
        ]
    }

    /// While running: a failure bound to this session → FAILURE (failures of other sessions are
    /// ignored). Its end reached (by the clock or the monitor's marker) → enforcement stops at once,
    /// and SUCCESS waits `lateCallbackGraceSeconds` for a violation iOS delivers late (H6). Failure
    /// wins over end. Nothing to do → no effects; callers read `state.phase`.
    mutating func hardenedCheck(_ session: ActiveSession, now: Date, store: Snapshot) -> [Effect] {
        let status = AppGroupStorage.checkSessionFailed(store)
        if status.failed && status.sessionId == session.sessionId {
            return traceFailureSeen(session.sessionId, status)
                + hardenedConclude(
                    session, .failure, reason: status.reason ?? FocusPledgeKeys.appOpenedReason, evidence: status.nativeEvidence)
        }
        let endedMarker = AppGroupStorage.activeSession(store).map { $0.sessionId == session.sessionId && $0.ended } ?? false
        guard let end = session.endTime, endedMarker || now >= end else { return [] }
        let graceEnd = min(end, now).addingTimeInterval(AppGroupStorage.lateCallbackGraceSeconds)
        if now >= graceEnd {
            return hardenedConclude(session, .success, reason: Self.completedReason, evidence: [:])
        }
        guard state.endingSessionId != session.sessionId else { return [] }
        state.endingSessionId = session.sessionId
        state.countdownSessionId = session.sessionId
        return [
            .removeShields,
            .stopMonitoring([session.activityName]),
            .startTimer(Self.sessionTimer, .at(graceEnd)),
            .trace("session_ending", ["sessionId": session.sessionId, "successAt": String(graceEnd.timeIntervalSince1970)]),
        ]
    }

    /// The session is over: into the outbox, then out of "active" (one key per write,
    /// `AppGroupStorage.concludeSession`), then its shields and monitoring go, then the outbox is settled.
    mutating func hardenedConclude(
        _ session: ActiveSession, _ resolution: Resolution, reason: String, evidence: [String: String]
    ) -> [Effect] {
        if !state.outbox.contains(where: { $0.sessionId == session.sessionId }) {
            state.outbox.append(PendingSettlement(
                sessionId: session.sessionId, resolution: resolution, reason: reason, nativeEvidence: evidence))
        }
        state.phase = .idle
        state.countdownSessionId = nil
        state.endingSessionId = nil
        if state.pollingSessionId == session.sessionId { state.pollingSessionId = nil }
        return AppGroupStorage.concludeSession(outbox: state.outbox) + [
            .removeShields,
            .stopMonitoring([session.activityName]),
            .cancelTimer(Self.sessionTimer),
            // The poll timer keeps running while the outbox is not empty (it restarts a stalled episode).
            .startTimer(Self.pollTimer, .every(seconds: Double(Self.pollIntervalSeconds))),
            .trace("session_concluded", ["sessionId": session.sessionId, "resolution": resolution.rawValue, "reason": reason]),
        ] + hardenedDrain()
    }

    /// Sends the outbox's head unless a settlement is already in flight or waiting for its retry.
    mutating func hardenedDrain() -> [Effect] {
        if let sending = state.sending, sending.status != .gaveUp { return [] }
        guard let head = state.outbox.first else {
            state.sending = nil
            guard case .idle = state.phase else { return [] }
            return [.cancelTimer(Self.pollTimer)]
        }
        let settlement = Settlement(
            session: ActiveSession(sessionId: head.sessionId, startTime: nil, endTime: nil), resolution: head.resolution,
            reason: head.reason, nativeEvidence: head.nativeEvidence, idempotencyKey: "settle_\(head.sessionId)", attempt: 1,
            status: .gaveUp)
        return hardenedSend(settlement)
    }

    mutating func hardenedSend(_ settlement: Settlement) -> [Effect] {
        var settlement = settlement
        let request = ResolveSessionRequest(
            sessionId: settlement.session.sessionId, resolution: settlement.resolution,
            idempotencyKey: settlement.idempotencyKey, reason: settlement.reason,
            nativeEvidence: settlement.nativeEvidence, ifActive: true)
        let http = send(.resolveSession(request), as: .settle(sessionId: settlement.session.sessionId))
        guard case .http(let requestId, _) = http else { preconditionFailure("send returns .http") }
        settlement.status = .inFlight(requestId: requestId)
        state.sending = settlement
        return [
            .trace("settle_requested", [
                "sessionId": settlement.session.sessionId, "resolution": settlement.resolution.rawValue,
                "idempotencyKey": settlement.idempotencyKey, "attempt": String(settlement.attempt),
            ]),
            http,
        ]
    }

    mutating func hardenedResult(_ call: Call, requestId: Int, outcome: HTTPOutcome) -> [Effect] {
        switch call {
        case .heartbeat(let sessionId):
            // The server settled the session itself (seed: "On next app open, Flutter detects
            // server-side settlement"): conclude it; the settle then meets `alreadyResolved`.
            guard case .alreadyResolved(let resolution) = outcome, case .running(let session) = state.phase,
                session.sessionId == sessionId
            else { return [] }
            return [.trace("server_resolved", ["sessionId": sessionId, "serverResolution": resolution.rawValue])]
                + hardenedConclude(session, resolution, reason: "server_resolved", evidence: [:])

        case .settle(let sessionId):
            guard var sending = state.sending, sending.session.sessionId == sessionId,
                sending.status == .inFlight(requestId: requestId)
            else { return [] }
            var effects: [Effect] = [
                .trace(
                    "settle_result",
                    Self.outcomeName(outcome).merging(
                        ["sessionId": sessionId, "resolution": sending.resolution.rawValue,
                         "idempotencyKey": sending.idempotencyKey, "attempt": String(sending.attempt)]) { a, _ in a })
            ]
            switch outcome {
            case .settled, .duplicate, .alreadyResolved:
                return effects + hardenedSettled(sessionId)
            case .notFound where sending.attempt >= RetryPolicy.maxAttemptsPerEpisode:
                // The server does not know the pledge (it lost it): nothing can be settled. Reported.
                effects.append(.trace("settle_abandoned", ["sessionId": sessionId, "why": "server does not know the session"]))
                return effects + hardenedSettled(sessionId)
            case .notFound, .transportError, .accepted:
                guard sending.attempt < RetryPolicy.maxAttemptsPerEpisode else {
                    sending.status = .gaveUp
                    state.sending = sending
                    effects.append(.trace("settle_stalled", ["sessionId": sessionId]))
                    return effects
                }
                sending.status = .retryScheduled(requestId: requestId)
                state.sending = sending
                state.retryWaiting[requestId] = call
                effects.append(.startTimer(
                    Self.retryTimer(requestId), .after(seconds: RetryPolicy.backoffSeconds(afterFailedAttempts: sending.attempt))))
                return effects
            }
        }
    }

    /// The server has the session (or never will): out of the outbox, durably; then the next.
    mutating func hardenedSettled(_ sessionId: String) -> [Effect] {
        state.outbox.removeAll { $0.sessionId == sessionId }
        state.sending = nil
        return [
            .setDefaults([AppGroupStorage.unsettledWrite(state.outbox)], atomic: true),
            .trace("session_closed", ["sessionId": sessionId]),
        ] + hardenedDrain()
    }

    /// Every effect that threw is reported (the seed's `result(["success": false, "error": …])`,
    /// which hardened shows the user instead of dropping). Enforcement keeps going: the countdown
    /// still ends the session, and a relaunch re-applies what a running session needs.
    func hardenedReport(_ failure: EffectFailure) -> [Effect] {
        var fields = ["error": failure.error]
        switch failure.effect {
        case .startMonitoring(let activity, _, _, _), .startMonitoringSchedule(let activity, _, _):
            fields["op"] = "startMonitoring"
            fields["activity"] = activity
        case .stopMonitoring(let names):
            fields["op"] = "stopMonitoring"
            fields["activities"] = names.joined(separator: ",")
        case .setShield(let write): fields["op"] = write.applications == .cleared ? "removeShields" : "applyShields"
        case .setDefaults: fields["op"] = "setDefaults"
        case .postNotification(let name):
            fields["op"] = "postNotification"
            fields["name"] = name
        default: fields["op"] = "other"
        }
        if let sessionId = currentSessionId { fields["sessionId"] = sessionId }
        return [.trace("error_reported", fields)]
    }

    var currentSessionId: String? {
        if case .running(let s) = state.phase { return s.sessionId }
        return nil
    }
}
