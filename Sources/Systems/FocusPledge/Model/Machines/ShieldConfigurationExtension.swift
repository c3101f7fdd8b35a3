import PropertyList
import Foundation
import SystemKit

/// The shield-configuration extension: iOS asks it for the shield's look each time it shows the
/// shield over a blocked app — i.e. each time the user opens one.
///
/// Seed 000 has none: as-written's answers the system's default and does nothing else (what iOS
/// shows an app without one). hardened records the violation here (README, H2): the seed's
/// "Open blocked app → violation detected in App Group" cannot be kept otherwise, because a
/// shielded app accumulates no use, so no `DeviceActivityEvent` threshold on it ever fires, and
/// not every user presses a shield button.
public struct ShieldConfigurationExtension: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    public enum Event: Sendable, Equatable {
        /// `configuration(shielding application:)`: here Apple sets the app's bundle identifier.
        case configuration(appBundleId: String?, now: Date, store: Snapshot)
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
        guard case .configuration(let application, let now, let store) = event else { return [] }
        var app: [String: String] = [:]
        if let application { app["appBundleId"] = application }
        switch variant {
        case .asWritten:
            state.lastDecision = .nothing
            return []
        case .hardened:
            guard let sessionId = AppGroupStorage.activeSessionId(store) else {
                return ignored("no_active_session", app)
            }
            if let reason = AppGroupStorage.reasonToIgnoreFailure(of: sessionId, now: now, store: store) {
                return ignored(reason, app)
            }
            state.lastDecision = .recordedFailure(sessionId: sessionId)
            return AppGroupStorage.recordViolation(appBundleId: application, now: now, variant: .hardened, sessionId: sessionId)
        }
    }

    private mutating func ignored(_ reason: String, _ app: [String: String]) -> [Effect] {
        state.lastDecision = .ignored(reason: reason)
        return [.trace("callback_ignored", app.merging(["reason": reason]) { a, _ in a })]
    }
}
