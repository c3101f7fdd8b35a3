import AppGroup
import Foundation

/// Seed 000's host process: the Flutter app (`NativeBridge`, `ActiveSessionScreen`,
/// `checkForActiveSession`) and the Swift `NativeBridge` behind the MethodChannel, as one pure
/// state machine. Its `state` is the process's memory and is lost when the process is killed:
/// a relaunch is a NEW `HostApp` that receives `.launched`.
///
/// No I/O, no clock, no randomness: every event carries `now` and, where the seed reads the App
/// Group, a fresh snapshot `store` of the suite taken by the shell just before delivery.
public struct HostApp: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    public enum Event: Sendable, Equatable {
        /// Process start or relaunch: the seed's `checkForActiveSession()`.
        case launched(now: Date, store: Snapshot)
        /// `presentAppPicker` returned a selection: `saveBlockedAppsTokens`.
        case userSelectedApps([String])
        /// The user starts a pledge: server createSession, `startNativeSession`, `startPolling`.
        case userStartsSession(sessionId: String, durationMinutes: Int, now: Date, store: Snapshot)
        /// The user stops the session by hand (seed: `stopNativeSession`, "success or manually stopped").
        case userStopsSession(now: Date)
        /// The 5 s `Timer.periodic` fired: `_checkAndHandleFailure` / `checkSessionStatus`.
        case pollTick(now: Date, store: Snapshot)
        /// An extension posted `FocusPledgeKeys.failureNotification`: handled as a poll, now.
        case failureNotified(now: Date, store: Snapshot)
        /// The session countdown (`scheduleSessionTimer`) reached its time.
        case sessionTimerFired(now: Date, store: Snapshot)
        case httpResult(requestId: Int, HTTPOutcome)
        case retryTimerFired(requestId: Int, now: Date)
    }

    /// A session as this process knows it.
    public struct ActiveSession: Sendable, Equatable {
        public var sessionId: String
        public var startTime: Date?
        public var endTime: Date?
        public var activityName: String { FocusPledgeKeys.activityName(sessionId: sessionId) }
        /// Whole minutes between start and end, when both are known (to re-create it server-side).
        public var durationMinutes: Int? {
            guard let s = startTime, let e = endTime, e > s else { return nil }
            return max(1, Int((e.timeIntervalSince(s) / 60).rounded()))
        }

        public init(sessionId: String, startTime: Date?, endTime: Date?) {
            self.sessionId = sessionId
            self.startTime = startTime
            self.endTime = endTime
        }
    }

    /// A settlement this process has asked the server for.
    public struct Settlement: Sendable, Equatable {
        public enum Status: Sendable, Equatable {
            case inFlight(requestId: Int)
            case retryScheduled(requestId: Int)
            /// No request and no timer outstanding. as-written: the call threw and the Dart code
            /// only printed — nothing will happen until a relaunch. hardened: the retry episode was
            /// used up; the next poll tick starts a new one.
            case gaveUp
        }

        public var session: ActiveSession
        public var resolution: Resolution
        public var reason: String
        public var nativeEvidence: [String: String]
        /// The key of the latest attempt (as-written makes a fresh one per attempt).
        public var idempotencyKey: String
        /// Attempts in the current episode.
        public var attempt: Int
        public var status: Status
    }

    public enum Phase: Sendable, Equatable {
        case idle
        case running(ActiveSession)
        case settling(Settlement)
    }

    /// What an outstanding request (or a retry waiting for its timer) was for.
    public enum Call: Sendable, Equatable {
        case createSession(sessionId: String, durationMinutes: Int, attempt: Int)
        case heartbeat(sessionId: String)
        case settle(sessionId: String)
    }

    public struct State: Sendable, Equatable {
        public var phase: Phase = .idle
        /// The session the poll timer runs for (Dart: `_activeSessionId` / `_pollingTimer`).
        public var pollingSessionId: String?
        /// The session whose countdown is scheduled (as-written: `ActiveSessionScreen`'s).
        public var countdownSessionId: String?
        /// Requests sent and not yet answered.
        public var inFlight: [Int: Call] = [:]
        /// hardened: failed requests waiting for their retry timer, by the id given in `scheduleRetry`.
        public var retryWaiting: [Int: Call] = [:]
        public var nextRequestId = 1
        /// The last session `failure_seen` was traced for (once per session per process).
        public var failureSeenSessionId: String?
        /// `resolveSession` requests sent by this process (tests and bounds).
        public var settleRequestsSent = 0

        public init() {}
    }

    /// Poll period. Seed: `Timer.periodic(Duration(seconds: 5), ...)`.
    public static let pollIntervalSeconds = 5
    /// Seed (ActiveSessionScreen): `'durationMinutes': 60` — the as-written screen starts every
    /// native session for 60 minutes whatever the pledge's duration.
    public static let asWrittenNativeDurationMinutes = 60
    /// At most this many heartbeats in flight per process: a poll skips its heartbeat otherwise,
    /// so a server that never answers cannot grow `inFlight` without bound.
    public static let maxHeartbeatsInFlight = 1
    /// Reason sent with a SUCCESS (the seed never shows one; `_settleSessionOnServer` requires one).
    public static let completedReason = "completed"
    /// hardened: a manual stop before the end forfeits the pledge.
    public static let userStoppedReason = "user_stopped"

    public let variant: Variant
    public private(set) var state = State()

    public init(variant: Variant) {
        self.variant = variant
    }

    public mutating func handle(_ event: Event) -> [Effect] {
        switch variant {
        case .asWritten: return asWritten(event)
        case .hardened: return hardened(event)
        }
    }

    // MARK: - Shared helpers

    private mutating func send(_ request: HTTPRequest, as call: Call) -> Effect {
        let id = state.nextRequestId
        state.nextRequestId += 1
        state.inFlight[id] = call
        if case .resolveSession = request { state.settleRequestsSent += 1 }
        return .http(requestId: id, request)
    }

    private mutating func heartbeat(_ sessionId: String) -> [Effect] {
        let heartbeatsInFlight = state.inFlight.values.filter {
            if case .heartbeat = $0 { return true } else { return false }
        }.count
        guard heartbeatsInFlight < Self.maxHeartbeatsInFlight else { return [] }
        return [send(.heartbeat(sessionId: sessionId), as: .heartbeat(sessionId: sessionId))]
    }

    private mutating func traceFailureSeen(_ sessionId: String, _ status: AppGroupStorage.FailureStatus) -> [Effect] {
        guard state.failureSeenSessionId != sessionId else { return [] }
        state.failureSeenSessionId = sessionId
        var fields = ["sessionId": sessionId, "reason": status.reason ?? "nil"]
        if let failureSession = status.sessionId { fields["failureSessionId"] = failureSession }
        return [.trace("failure_seen", fields)]
    }

    private static func session(from record: AppGroupStorage.ActiveSessionRecord) -> ActiveSession {
        ActiveSession(sessionId: record.sessionId, startTime: record.startTime, endTime: record.endTime)
    }

    private static func outcomeName(_ outcome: HTTPOutcome) -> [String: String] {
        switch outcome {
        case .settled(let r): return ["outcome": "settled", "serverResolution": r.rawValue]
        case .duplicate(let r): return ["outcome": "duplicate", "serverResolution": r.rawValue]
        case .alreadyResolved(let r): return ["outcome": "alreadyResolved", "serverResolution": r.rawValue]
        case .accepted: return ["outcome": "accepted"]
        case .notFound: return ["outcome": "notFound"]
        case .transportError(let message): return ["outcome": "transportError", "error": message]
        }
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `DateComponents(hour:minute:)` keeps whole minutes only.
    private static func wholeMinute(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
    }

    // MARK: - as-written

    private mutating func asWritten(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let now, let store):
            state = State()
            return asWrittenCheckForActiveSession(now: now, store: store)

        case .userSelectedApps(let bundleIds):
            return [AppGroupStorage.saveBlockedAppsTokens(bundleIds)]

        case .userStartsSession(let sessionId, let durationMinutes, let now, let store):
            return asWrittenStart(sessionId: sessionId, durationMinutes: durationMinutes, now: now, store: store)

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
            // The seed never looks at createSession's or a heartbeat's answer.
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
    private mutating func asWrittenCheckForActiveSession(now: Date, store: Snapshot) -> [Effect] {
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
    /// `_nativeBridge.startPolling(widget.sessionId)`.
    private mutating func asWrittenStart(sessionId: String, durationMinutes: Int, now: Date, store: Snapshot) -> [Effect] {
        // createSession is not in the seed's text; it is what makes the session server-authoritative
        // ("Server settlement ... resolveSession"). Its answer is never looked at.
        var effects = [
            send(
                .createSession(sessionId: sessionId, durationMinutes: durationMinutes),
                as: .createSession(sessionId: sessionId, durationMinutes: durationMinutes, attempt: 1))
        ]
        // The countdown runs for the pledge's real duration (seed silent; see sessionTimerFired).
        state.countdownSessionId = sessionId
        effects.append(.scheduleSessionTimer(at: now.addingTimeInterval(TimeInterval(durationMinutes * 60))))
        // `_startNativeSession()` is not awaited, so Dart's startPolling runs before the platform
        // side handles the call.
        effects += asWrittenStartPolling(sessionId)
        effects += asWrittenStartNativeSession(sessionId, now: now, store: store)
        effects.append(.trace("session_started", ["sessionId": sessionId, "durationMinutes": String(durationMinutes)]))
        return effects
    }

    /// Seed: MethodChannel 4, `startNativeSession` — called by the screen with `durationMinutes: 60`.
    private mutating func asWrittenStartNativeSession(_ sessionId: String, now: Date, store: Snapshot) -> [Effect] {
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
        // `store.shield.applicationCategories = .all` is not modelled (bundle ids only).
        effects.append(.applyShields(apps))
        // DeviceActivitySchedule(intervalStart: DateComponents(hour:minute:), ..., repeats: false):
        // whole minutes only. (The seed passes no `events:`, so on iOS eventDidReachThreshold could
        // never fire; the emulated OS delivers it anyway or nothing would be tested.)
        effects.append(.startMonitoring(
            activity: session.activityName, start: Self.wholeMinute(startTime), end: Self.wholeMinute(endTime), repeats: false))
        return effects
    }

    /// Seed: `startPolling(sessionId)` — `_pollingTimer?.cancel(); Timer.periodic(5 s)`.
    private mutating func asWrittenStartPolling(_ sessionId: String) -> [Effect] {
        state.pollingSessionId = sessionId
        return [.startPollTimer(seconds: Self.pollIntervalSeconds)]
    }

    /// Seed: `stopPolling()`.
    private mutating func asWrittenStopPolling() -> [Effect] {
        guard state.pollingSessionId != nil else { return [] }
        state.pollingSessionId = nil
        return [.stopPollTimer]
    }

    /// The screen goes away (its countdown with it). Seed silent on what the screen does after a
    /// failure: we assume it leaves, as otherwise its countdown would later settle SUCCESS too.
    private mutating func asWrittenCloseScreen() -> [Effect] {
        guard state.countdownSessionId != nil else { return [] }
        state.countdownSessionId = nil
        return [.cancelSessionTimer]
    }

    /// Seed: `_checkAndHandleFailure(sessionId)`.
    private mutating func asWrittenCheckAndHandleFailure(_ sessionId: String, now: Date, store: Snapshot) -> [Effect] {
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
    private mutating func asWrittenSettle(
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
    private func asWrittenStopNativeSession(_ sessionId: String) -> [Effect] {
        [
            .removeShields,
            .stopMonitoring([FocusPledgeKeys.activityName(sessionId: sessionId)]),
            AppGroupStorage.clearActiveSession(variant: .asWritten),
        ]
    }

    // MARK: - hardened

    private mutating func hardened(_ event: Event) -> [Effect] {
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

    private var currentSessionId: String? {
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
    private mutating func hardenedReconcile(now: Date, store: Snapshot) -> [Effect] {
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
        effects.append(.startPollTimer(seconds: Self.pollIntervalSeconds))
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
            effects.append(.scheduleSessionTimer(at: end))
        }
        return effects
    }

    /// Checks tokens before touching anything, writes the whole session atomically, then creates
    /// it on the server and enforces it. The suite record comes first: it is the durable to-do a
    /// relaunch works from.
    private mutating func hardenedStart(sessionId: String, durationMinutes: Int, now: Date, store: Snapshot) -> [Effect] {
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
            .scheduleSessionTimer(at: end),
            .startPollTimer(seconds: Self.pollIntervalSeconds),
            .trace("session_started", ["sessionId": sessionId, "durationMinutes": String(durationMinutes)]),
        ]
    }

    /// While running: a failure bound to this session → FAILURE (failures of other sessions are
    /// ignored); else the end reached → SUCCESS. Failure wins over end.
    private mutating func hardenedCheck(_ session: ActiveSession, now: Date, store: Snapshot) -> [Effect] {
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
    private mutating func hardenedBeginSettle(
        _ session: ActiveSession, _ resolution: Resolution, reason: String, evidence: [String: String]
    ) -> [Effect] {
        let settlement = Settlement(
            session: session, resolution: resolution, reason: reason, nativeEvidence: evidence,
            idempotencyKey: "settle_\(session.sessionId)", attempt: 0, status: .gaveUp)
        return hardenedSendSettle(settlement, attempt: 1)
    }

    private mutating func hardenedSendSettle(_ settlement: Settlement, attempt: Int) -> [Effect] {
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

    private mutating func hardenedResult(_ call: Call, requestId: Int, outcome: HTTPOutcome) -> [Effect] {
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
            return [.scheduleRetry(requestId: requestId, afterSeconds: RetryPolicy.backoffSeconds(afterFailedAttempts: attempt))]

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
                effects.append(.scheduleRetry(
                    requestId: requestId, afterSeconds: RetryPolicy.backoffSeconds(afterFailedAttempts: settlement.attempt)))
                return effects
            }
        }
    }

    /// Only after the server confirmed. Shields and monitoring go first and the suite record last,
    /// so a kill in between leaves the record, and the relaunch settles again (same key →
    /// duplicate) and finishes the cleanup.
    private mutating func hardenedCleanup(_ session: ActiveSession) -> [Effect] {
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
            .stopPollTimer,
            .cancelSessionTimer,
            AppGroupStorage.clearActiveSession(variant: .hardened),
            .trace("session_closed", ["sessionId": session.sessionId]),
        ]
    }
}
