import PropertyList
import Foundation
import SystemKit

/// Seed 000 as written: the Dart `NativeBridge`, `ActiveSessionScreen` and `checkForActiveSession`
/// and the Swift bridge, literally — bugs included. Every deviation is a quoted seed line.
extension HostApp {
    // MARK: - as-written

    mutating func asWritten(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let now, let store):
            state = State()
            return asWrittenCheckForActiveSession(now: now, store: store)

        case .userSelectedApps(let bundleIds):
            return [AppGroupStorage.saveBlockedAppsTokens(bundleIds)]

        case .userStartsSession(let sessionId, let durationMinutes, _, let now, let store, let timeZone, _):
            // The seed's Dart never looks at the authorization (the stand-in runs the seed's
            // `requestAuthorization` before the app picker, A16, and drops its answer as Dart does).
            return asWrittenStart(sessionId: sessionId, durationMinutes: durationMinutes, now: now, store: store, timeZone: timeZone)

        case .userStopsSession:
            // Seed, stopNativeSession: "when session ends (success or manually stopped)"; the screen's
            // dispose() calls stopPolling(). No server call: the seed settles nothing on a manual
            // stop (the server's stale-session job eventually fails it).
            let sessionId: String?
            switch state.phase {
            case .idle: sessionId = state.countdownSessionId ?? state.pollingSessionId
            case .running(let s): sessionId = s.sessionId
            case .settling(let st): sessionId = st.session.sessionId
            }
            guard let sessionId else { return [] }
            var effects = asWrittenStopPolling()
            effects += asWrittenCloseScreen()
            effects += asWrittenStopNativeSession(sessionId)
            effects.append(.trace("session_stopped", ["sessionId": sessionId]))
            return effects

        case .pollTick(let now, let store), .failureNotified(let now, let store):
            // A tick after stopPolling() cannot happen in Dart (the timer is cancelled); a
            // notification with nobody polling finds no handler (the seed registers none at all).
            guard let sessionId = state.pollingSessionId else { return [] }
            return heartbeat(sessionId) + asWrittenCheckAndHandleFailure(sessionId, now: now, store: store)

        case .sessionTimerFired(let now, _):
            // Seed is silent on who settles SUCCESS. Summary: "Always call `stopNativeSession` on
            // success or failure"; MethodChannel 5: stopNativeSession "when session ends (success
            // ...)". Modelled: the screen's countdown calls `_settleSessionOnServer(SUCCESS)` and,
            // when that returns, `stopNativeSession`; like `_checkAndHandleFailure` it stops polling
            // first. The countdown does not look at the failure flag.
            guard let sessionId = state.countdownSessionId else { return [] }
            let session: ActiveSession
            if case .running(let s) = state.phase, s.sessionId == sessionId {
                session = s
            } else {
                session = ActiveSession(sessionId: sessionId, startTime: nil, endTime: nil)
            }
            state.countdownSessionId = nil
            return asWrittenStopPolling()
                + asWrittenSettle(session, .success, reason: Self.completedReason, evidence: [:], now: now)

        case .httpResult(let requestId, let outcome):
            guard let call = state.inFlight.removeValue(forKey: requestId) else { return [] }
            // The seed never looks at a heartbeat's answer.
            guard case .settle(let sessionId) = call,
                case .settling(var settlement) = state.phase,
                settlement.session.sessionId == sessionId,
                settlement.status == .inFlight(requestId: requestId)
            else { return [] }
            var effects: [Effect] = [
                .trace(
                    "settle_result",
                    Self.outcomeName(outcome).merging(
                        ["sessionId": sessionId, "resolution": settlement.resolution.rawValue,
                         "idempotencyKey": settlement.idempotencyKey]) { a, _ in a })
            ]
            switch outcome {
            case .settled, .duplicate, .alreadyResolved, .accepted:
                // `await callable.call(...)` returned: print('Session settled ...'), then
                // stopNativeSession (Security Considerations 4: "Always call `stopNativeSession` on
                // success or failure").
                effects += asWrittenStopNativeSession(sessionId)
                state.phase = .idle
                effects.append(.trace("session_closed", ["sessionId": sessionId]))
            case .notFound, .transportError:
                // The callable threw; `_checkAndHandleFailure`'s `catch (e) { print(...) }` swallows
                // it. Polling was already stopped, nothing retries: shields and state stay until a
                // relaunch runs checkForActiveSession.
                settlement.status = .gaveUp
                state.phase = .settling(settlement)
            }
            return effects

        case .retryTimerFired:
            return []  // as-written never schedules a retry
        case .screenTimeAuthorization:
            return []  // as-written asks through the seed's own Swift (A16), never through this machine
        case .effectFailed:
            // startNativeSession's `catch { result(["success": false, "error": ...]) }` hands the
            // error to Dart, whose `_startNativeSession()` awaits `invokeMethod` and drops the
            // answer. ManagedSettings' setters cannot throw on iOS. Nothing is reported.
            return []
        case .httpReply:
            return []  // decoded into httpResult by handle(_:)
        }
    }

    /// Seed, "Resilience & Edge Cases 1":
    /// ```
    /// final sessionId = await _nativeBridge.getActiveSessionId();
    /// if (sessionId != null) {
    ///   final status = await _nativeBridge.checkSessionStatus(sessionId);
    ///   if (status['failed']) { await _settleFailedSession(sessionId, status); }
    ///   else { _nativeBridge.startPolling(sessionId); }   // no expiry check, despite the prose
    /// }
    /// ```
    /// `_settleFailedSession` is not defined by the seed: read as `_settleSessionOnServer(FAILURE)`
    /// exactly as in `_checkAndHandleFailure` (+ stopNativeSession once it returns).
    mutating func asWrittenCheckForActiveSession(now: Date, store: Snapshot) -> [Effect] {
        guard let record = AppGroupStorage.activeSession(store) else {
            return [.trace("reconciled", ["action": "none"])]
        }
        let session = Self.session(from: record)
        let status = AppGroupStorage.checkSessionFailed(store)
        if status.failed {
            return [.trace("reconciled", ["action": "settle_failure", "sessionId": session.sessionId])]
                + traceFailureSeen(session.sessionId, status)
                + asWrittenSettle(
                    session, .failure, reason: status.reason ?? FocusPledgeKeys.fallbackFailureReason,
                    evidence: status.nativeEvidence, now: now)
        }
        state.phase = .running(session)
        return [.trace("reconciled", ["action": "resume_polling", "sessionId": session.sessionId])]
            + asWrittenStartPolling(session.sessionId)
    }

    /// `ActiveSessionScreen.initState`: `_startNativeSession()` (not awaited) then
    /// `_nativeBridge.startPolling(widget.sessionId)`. The pledge already exists server-side (the
    /// seed's "Call startSession()" is not shown; README, A1): nothing is sent to the server.
    mutating func asWrittenStart(sessionId: String, durationMinutes: Int, now: Date, store: Snapshot, timeZone: TimeZone) -> [Effect] {
        var effects: [Effect] = []
        // The countdown runs for the pledge's real duration (seed silent; see sessionTimerFired).
        state.countdownSessionId = sessionId
        effects.append(.startTimer(Self.sessionTimer, .at(now.addingTimeInterval(TimeInterval(durationMinutes * 60)))))
        // `_startNativeSession()` is not awaited, so Dart's startPolling runs before the platform
        // side handles the call.
        effects += asWrittenStartPolling(sessionId)
        effects += asWrittenStartNativeSession(sessionId, now: now, store: store, timeZone: timeZone)
        effects.append(.trace("session_started", ["sessionId": sessionId, "durationMinutes": String(durationMinutes)]))
        return effects
    }

    /// Seed: MethodChannel 4, `startNativeSession` — called by the screen with `durationMinutes: 60`.
    mutating func asWrittenStartNativeSession(_ sessionId: String, now: Date, store: Snapshot, timeZone: TimeZone) -> [Effect] {
        let startTime = now
        let endTime = startTime.addingTimeInterval(TimeInterval(Self.asWrittenNativeDurationMinutes * 60))
        let session = ActiveSession(sessionId: sessionId, startTime: startTime, endTime: endTime)
        state.phase = .running(session)
        // "Save session state to App Group" BEFORE the tokens are checked.
        var effects = [AppGroupStorage.setActiveSession(id: sessionId, startTime: startTime, endTime: endTime, variant: .asWritten)]
        guard let apps = AppGroupStorage.blockedApps(store) else {
            // `result(["success": false, "error": "No blocked apps selected"])` — which the Dart side
            // ignores: polling runs, the state is written, nothing is shielded or monitored.
            effects.append(.trace("start_native_failed", ["sessionId": sessionId, "error": "No blocked apps selected"]))
            return effects
        }
        // `store.shield.applications = selection.applicationTokens`; the seed's
        // `applicationCategories = .all` is not modelled (README, A7).
        effects.append(.applyShields(apps))
        effects.append(.startMonitoringSchedule(
            activity: session.activityName, schedule: Self.seedSchedule(start: startTime, end: endTime, timeZone: timeZone), events: [:]))
        return effects
    }

    /// Seed:
    /// ```
    /// DeviceActivitySchedule(
    ///     intervalStart: DateComponents(calendar: .current, hour: startTime.hour, minute: startTime.minute),
    ///     intervalEnd: DateComponents(calendar: .current, hour: endTime.hour, minute: endTime.minute),
    ///     repeats: false)
    /// ```
    /// `Date` has no `.hour`; read as `Calendar.current.component(.hour, from:)` in the device's time
    /// zone. The calendar is left out of the components: the OS evaluates them in the device's
    /// calendar and time zone, which is what `.current` is on the device. No `events:` — so
    /// `eventDidReachThreshold` can never fire.
    public static func seedSchedule(start: Date, end: Date, timeZone: TimeZone) -> MonitoringSchedule {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        func hourMinute(_ d: Date) -> DateComponents {
            DateComponents(hour: calendar.component(.hour, from: d), minute: calendar.component(.minute, from: d))
        }
        return MonitoringSchedule(intervalStart: hourMinute(start), intervalEnd: hourMinute(end), repeats: false)
    }

    /// Seed: `startPolling(sessionId)` — `_pollingTimer?.cancel(); Timer.periodic(5 s)`.
    mutating func asWrittenStartPolling(_ sessionId: String) -> [Effect] {
        state.pollingSessionId = sessionId
        return [.startTimer(Self.pollTimer, .every(seconds: Double(Self.pollIntervalSeconds)))]
    }

    /// Seed: `stopPolling()`.
    mutating func asWrittenStopPolling() -> [Effect] {
        guard state.pollingSessionId != nil else { return [] }
        state.pollingSessionId = nil
        return [.cancelTimer(Self.pollTimer)]
    }

    /// The screen goes away (its countdown with it). Seed silent on what the screen does after a
    /// failure: we assume it leaves, as otherwise its countdown would later settle SUCCESS too.
    mutating func asWrittenCloseScreen() -> [Effect] {
        guard state.countdownSessionId != nil else { return [] }
        state.countdownSessionId = nil
        return [.cancelTimer(Self.sessionTimer)]
    }

    /// Seed: `_checkAndHandleFailure(sessionId)`.
    mutating func asWrittenCheckAndHandleFailure(_ sessionId: String, now: Date, store: Snapshot) -> [Effect] {
        let status = AppGroupStorage.checkSessionFailed(store)
        // No session id in the record: whatever failure is in the suite is taken as this session's.
        guard status.failed else { return [] }
        // (Seed: `result['timestamp'] as int?` of the Swift Double would throw on the Dart VM and
        // the catch would swallow every failure; not modelled, or as-written would never settle.)
        var effects = traceFailureSeen(sessionId, status)
        effects += asWrittenStopPolling()  // "Stop polling" — BEFORE the server call.
        effects += asWrittenCloseScreen()
        let session: ActiveSession
        if case .running(let s) = state.phase, s.sessionId == sessionId {
            session = s
        } else {
            session = ActiveSession(sessionId: sessionId, startTime: nil, endTime: nil)
        }
        effects += asWrittenSettle(
            session, .failure, reason: status.reason ?? FocusPledgeKeys.fallbackFailureReason,
            evidence: status.nativeEvidence, now: now)
        return effects
    }

    /// Seed: `_settleSessionOnServer` — a fresh idempotency key per call
    /// (`'flutter_${sessionId}_${DateTime.now().millisecondsSinceEpoch}'`), no `ifActive`.
    mutating func asWrittenSettle(
        _ session: ActiveSession, _ resolution: Resolution, reason: String, evidence: [String: String], now: Date
    ) -> [Effect] {
        let key = "flutter_\(session.sessionId)_\(Self.milliseconds(now))"
        let request = ResolveSessionRequest(
            sessionId: session.sessionId, resolution: resolution, idempotencyKey: key, reason: reason,
            nativeEvidence: evidence, ifActive: false)
        let http = send(.resolveSession(request), as: .settle(sessionId: session.sessionId))
        guard case .http(let requestId, _) = http else { preconditionFailure("send returns .http") }
        state.phase = .settling(Settlement(
            session: session, resolution: resolution, reason: reason, nativeEvidence: evidence,
            idempotencyKey: key, attempt: 1, status: .inFlight(requestId: requestId)))
        return [
            .trace("settle_requested", [
                "sessionId": session.sessionId, "resolution": resolution.rawValue, "idempotencyKey": key,
                "attempt": "1",
            ]),
            http,
        ]
    }

    /// Seed: MethodChannel 5, `stopNativeSession` — shields off, monitoring stopped, then
    /// `clearActiveSession()` as seven separate removes.
    func asWrittenStopNativeSession(_ sessionId: String) -> [Effect] {
        [
            .removeShields,
            .stopMonitoring([FocusPledgeKeys.activityName(sessionId: sessionId)]),
            AppGroupStorage.clearActiveSession(),
        ]
    }
}
