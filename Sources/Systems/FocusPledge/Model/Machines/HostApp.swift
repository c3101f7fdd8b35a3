import PropertyList
import Foundation
import SystemKit

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
        /// The user starts a pledge (which exists server-side already: README, A1):
        /// `startNativeSession`, `startPolling`. `timeZone` is the device's (`Calendar.current`'s),
        /// in which the seed takes the start's and end's hour and minute.
        /// `tappedAt`: when the user tapped (the UI's time; nil = unknown, `now`).
        /// `screenTime`: FamilyControls' `AuthorizationCenter.shared.authorizationStatus` as the
        /// shell read it at the tap (`approved`, `denied`, `notDetermined`; nil = not read).
        case userStartsSession(
            sessionId: String, durationMinutes: Int, tappedAt: Date? = nil, now: Date, store: Snapshot, timeZone: TimeZone,
            screenTime: String? = nil)
        /// iOS answered the Screen Time (FamilyControls) prompt this machine asked for
        /// (`Effect.requestAuthorization`): `granted`, and the status or error as the app saw it.
        /// hardened also gets the time and the App Group (a start may wait for the answer, H8).
        case screenTimeAuthorization(granted: Bool, status: String, now: Date? = nil, store: Snapshot? = nil)
        /// The user stops the session by hand (seed: `stopNativeSession`, "success or manually stopped").
        case userStopsSession(now: Date, store: Snapshot)
        /// The 5 s `Timer.periodic` fired: `_checkAndHandleFailure` / `checkSessionStatus`.
        case pollTick(now: Date, store: Snapshot)
        /// An extension posted `FocusPledgeKeys.failureNotification`: handled as a poll, now.
        case failureNotified(now: Date, store: Snapshot)
        /// The session countdown (`scheduleSessionTimer`) reached its time.
        case sessionTimerFired(now: Date, store: Snapshot)
        /// The server's answer as the machine understands it (tests inject these directly).
        case httpResult(requestId: Int, HTTPOutcome)
        /// The server's answer as it came off the wire: decoded with `SettlementCall.outcome(of:)`.
        case httpReply(requestId: Int, HTTPReply)
        case retryTimerFired(requestId: Int, now: Date)
        /// An effect this machine asked for threw (e.g. `startMonitoring`'s `MonitoringError`).
        case effectFailed(EffectFailure)
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
        /// What went on the wire for each request in flight (to decode its reply).
        public var sent: [Int: SettlementCall] = [:]
        /// hardened: failed requests waiting for their retry timer, by the id given in `scheduleRetry`.
        public var retryWaiting: [Int: Call] = [:]
        public var nextRequestId = 1
        /// The last session `failure_seen` was traced for (once per session per process).
        public var failureSeenSessionId: String?
        /// `resolveSession` requests sent by this process (tests and bounds).
        public var settleRequestsSent = 0
        /// hardened: sessions concluded and not yet confirmed by the server, oldest first — the
        /// memory of `focuspledge_unsettled` (the durable outbox).
        public var outbox: [PendingSettlement] = []
        /// hardened: the outbox head's settlement as it is being sent (nil = nothing in flight,
        /// retrying or stalled).
        public var sending: Settlement?
        /// hardened: the session past its end whose enforcement is over and whose SUCCESS waits for
        /// late extension calls (`AppGroupStorage.lateCallbackGraceSeconds`, README H6).
        public var endingSessionId: String?
        /// hardened: a start tapped while Screen Time access was `denied` (revoked in Settings),
        /// waiting for the answer to the prompt it asked again with (README, H8).
        public var startWaitingForAccess: WaitingStart?

        public init() {}
    }

    public struct WaitingStart: Sendable, Equatable {
        public var sessionId: String
        public var durationMinutes: Int
        public var tappedAt: Date
        public init(sessionId: String, durationMinutes: Int, tappedAt: Date) {
            self.sessionId = sessionId
            self.durationMinutes = durationMinutes
            self.tappedAt = tappedAt
        }
    }

    // Timer names; the shell turns their firings into `pollTick`, `sessionTimerFired` and
    // `retryTimerFired`.
    public static let pollTimer = "poll"
    public static let sessionTimer = "session"
    public static func retryTimer(_ requestId: Int) -> String { "retry-\(requestId)" }
    /// The request id of a `retryTimer(_:)` name, or nil for another timer.
    public static func retryRequestId(timer: String) -> Int? {
        timer.hasPrefix("retry-") ? Int(timer.dropFirst("retry-".count)) : nil
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
    /// hardened: a start refused because the user denied Screen Time access (README, H8).
    public static let notAuthorizedReason = "not_authorized"
    /// hardened: what it asks FamilyControls for (seed: `requestAuthorization(for: .individual)`).
    public static let screenTimeRequest = AuthorizationRequest.screenTime(member: "individual")

    public let variant: Variant
    public internal(set) var state = State()

    public init(variant: Variant) {
        self.variant = variant
    }

    public mutating func handle(_ event: Event) -> [Effect] {
        var event = event
        if case .httpReply(let requestId, let reply) = event {
            // An answer to a request this process never sent (or already answered) decodes as
            // nothing and is dropped, like any unknown request id.
            guard let request = state.sent[requestId] else { return [] }
            event = .httpResult(requestId: requestId, request.outcome(of: reply))
        }
        if case .httpResult(let requestId, _) = event { state.sent.removeValue(forKey: requestId) }
        switch variant {
        case .asWritten: return asWritten(event)
        case .hardened: return hardened(event)
        }
    }

    // MARK: - Shared helpers

    mutating func send(_ request: SettlementCall, as call: Call) -> Effect {
        let id = state.nextRequestId
        state.nextRequestId += 1
        state.inFlight[id] = call
        state.sent[id] = request
        if case .resolveSession = request { state.settleRequestsSent += 1 }
        return .http(requestId: id, request.http)
    }

    mutating func heartbeat(_ sessionId: String) -> [Effect] {
        let heartbeatsInFlight = state.inFlight.values.filter {
            if case .heartbeat = $0 { return true } else { return false }
        }.count
        guard heartbeatsInFlight < Self.maxHeartbeatsInFlight else { return [] }
        return [send(.heartbeat(sessionId: sessionId), as: .heartbeat(sessionId: sessionId))]
    }

    mutating func traceFailureSeen(_ sessionId: String, _ status: AppGroupStorage.FailureStatus) -> [Effect] {
        guard state.failureSeenSessionId != sessionId else { return [] }
        state.failureSeenSessionId = sessionId
        var fields = ["sessionId": sessionId, "reason": status.reason ?? "nil"]
        if let failureSession = status.sessionId { fields["failureSessionId"] = failureSession }
        return [.trace("failure_seen", fields)]
    }

    static func session(from record: AppGroupStorage.ActiveSessionRecord) -> ActiveSession {
        ActiveSession(sessionId: record.sessionId, startTime: record.startTime, endTime: record.endTime)
    }

    static func outcomeName(_ outcome: HTTPOutcome) -> [String: String] {
        switch outcome {
        case .settled(let r): return ["outcome": "settled", "serverResolution": r.rawValue]
        case .duplicate(let r): return ["outcome": "duplicate", "serverResolution": r.rawValue]
        case .alreadyResolved(let r): return ["outcome": "alreadyResolved", "serverResolution": r.rawValue]
        case .accepted: return ["outcome": "accepted"]
        case .notFound: return ["outcome": "notFound"]
        case .transportError(let message): return ["outcome": "transportError", "error": message]
        }
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
