import PropertyList
import SystemKit
import Foundation

/// Seed 000's optional `ShieldActionExtension`: the user pressed a button on a shield.
///
/// The hardened process runs this machine. The as-written process runs the seed's own class
/// (Sources/Systems/SeedCode/Seed000, StandIns/Principals.swift); the `.asWritten` branch here is its model,
/// for tests on `InMemoryDevice`.
public struct ShieldActionExtension: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    /// Apple's `ShieldAction` (the one type, `SystemKit.ShieldAction`).
    public typealias Action = ShieldAction

    public enum Event: Sendable, Equatable {
        /// `handle(action:for application:completionHandler:)`. `appBundleId` is what the seed's
        /// `application.bundleIdentifier` gives — `Application(token:).bundleIdentifier`, which is
        /// nil outside a shield-configuration extension (Apple; Sources/Systems/SeedCode/EDITS.md).
        case handle(action: Action, appBundleId: String?, now: Date, store: Snapshot)
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

    /// Writes (or not) the failure, posts the notification, then answers `.none` ("Return .none
    /// to keep shield active") — the response last, since iOS may end the process once it has it.
    public mutating func handle(_ event: Event) -> [Effect] {
        state.callbacksHandled += 1
        guard case .handle(_, let application, let now, let store) = event else { return [] }
        switch variant {
        case .asWritten:
            // Seed: both buttons alike, no check of any session.
            state.lastDecision = .recordedFailure(sessionId: nil)
            return AppGroupStorage.recordViolation(appBundleId: application, now: now, variant: .asWritten, sessionId: nil)
                + [.respond(.none)]
        case .hardened:
            // A shield carries no activity name: the failure belongs to the active session.
            guard let sessionId = AppGroupStorage.activeSessionId(store) else {
                return ignored("no_active_session", application)
            }
            if let reason = AppGroupStorage.reasonToIgnoreFailure(of: sessionId, now: now, store: store) {
                return ignored(reason, application)
            }
            state.lastDecision = .recordedFailure(sessionId: sessionId)
            return AppGroupStorage.recordViolation(appBundleId: application, now: now, variant: .hardened, sessionId: sessionId)
                + [.respond(.none)]
        }
    }

    private mutating func ignored(_ reason: String, _ application: String?) -> [Effect] {
        state.lastDecision = .ignored(reason: reason)
        var f = ["reason": reason]
        if let application { f["appBundleId"] = application }
        return [.trace("callback_ignored", f), .respond(.none)]
    }
}
