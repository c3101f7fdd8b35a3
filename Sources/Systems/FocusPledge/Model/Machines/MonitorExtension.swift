import PropertyList
import SystemKit
import Foundation

/// Seed 000's `DeviceActivityMonitorExtension`. iOS starts a fresh process per callback, so a
/// machine handles one event (more only in tests); `state` is that process's memory.
///
/// The hardened process runs this machine. The as-written process runs the seed's own class
/// (Sources/Systems/SeedCode/Seed000, StandIns/Principals.swift); the `.asWritten` branch here is its model,
/// for tests on `InMemoryDevice`.
public struct MonitorExtension: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    public enum Event: Sendable, Equatable {
        case intervalDidStart(activity: String)
        case intervalDidEnd(activity: String, now: Date, store: Snapshot)
        case eventDidReachThreshold(event: String, activity: String, now: Date, store: Snapshot)
    }

    public struct State: Sendable, Equatable {
        public var callbacksHandled = 0
        public var lastDecision: ExtensionDecision?
        public init() {}
    }

    public let variant: Variant
    public private(set) var state = State()

    public init(variant: Variant) {
        self.variant = variant
    }

    public mutating func handle(_ event: Event) -> [Effect] {
        state.callbacksHandled += 1
        let (decision, effects) = decide(event)
        state.lastDecision = decision
        return effects
    }

    private func decide(_ event: Event) -> (ExtensionDecision, [Effect]) {
        switch (variant, event) {
        case (_, .intervalDidStart):
            // Seed: "Session monitoring has started / Optionally log or set a flag" — nothing.
            return (.nothing, [])

        case (.asWritten, .intervalDidEnd):
            // Seed: only comments ("Remove shields in host app via stopNativeSession") — nothing.
            return (.nothing, [])

        case (.hardened, .intervalDidEnd(let activity, let now, let store)):
            guard let sessionId = FocusPledgeKeys.sessionId(fromActivity: activity) else {
                return ignored("foreign_activity", activity)
            }
            guard let active = AppGroupStorage.activeSession(store), active.sessionId == sessionId else {
                return ignored("not_the_active_session", activity)
            }
            if active.ended { return ignored("already_ended", activity) }
            // stopMonitoring of an ongoing interval (or a re-issued schedule) also delivers
            // intervalDidEnd: only the real end counts, or SUCCESS would be settled early.
            if let end = active.endTime, now < end { return ignored("before_session_end", activity) }
            return (.markedEnded(sessionId: sessionId), [
                AppGroupStorage.markSessionEnded(sessionId: sessionId),
                .trace("session_end_recorded", ["sessionId": sessionId]),
            ])

        case (.asWritten, .eventDidReachThreshold(_, _, let now, _)):
            // Seed: markSessionFailed(reason: "app_opened", appBundleId: nil) — whatever the activity,
            // whichever session is active (or none).
            return (.recordedFailure(sessionId: nil), AppGroupStorage.recordViolation(appBundleId: nil, now: now, variant: .asWritten, sessionId: nil))

        case (.hardened, .eventDidReachThreshold(_, let activity, let now, let store)):
            guard let sessionId = FocusPledgeKeys.sessionId(fromActivity: activity) else {
                return ignored("foreign_activity", activity)
            }
            if let reason = AppGroupStorage.reasonToIgnoreFailure(of: sessionId, now: now, store: store) {
                return ignored(reason, activity)
            }
            return (
                .recordedFailure(sessionId: sessionId),
                AppGroupStorage.recordViolation(appBundleId: nil, now: now, variant: .hardened, sessionId: sessionId))
        }
    }

    private func ignored(_ reason: String, _ activity: String) -> (ExtensionDecision, [Effect]) {
        (.ignored(reason: reason), [.trace("callback_ignored", ["activity": activity, "reason": reason])])
    }
}
