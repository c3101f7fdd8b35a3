import PropertyList
import Foundation
import SystemKit

// The hardened variant's extensions, pure. (As-written runs the seed's own Swift for all three:
// Sources/Systems/SeedCode/Seed004, through `Seed004Principals`.)

/// What a shield says: ManagedSettingsUI's `ShieldConfiguration` in plain values.
public struct ShieldText: Sendable, Equatable {
    public var title: String
    public var subtitle: String?
    public var primaryButton: String?

    public init(title: String, subtitle: String? = nil, primaryButton: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.primaryButton = primaryButton
    }
}

/// Hardened shield configuration: §3.3's window (the same arithmetic as the seed) and §3.1's
/// clarity and level on the locked shield, with the "Begin Breathing" button the flow needs.
public enum HardenedShieldConfiguration {
    public static func text(now: Double, store: [String: PropertyListValue]) -> ShieldText {
        let unlock = store[ExitKeys.unlockTimestamp]?.doubleValue ?? 0
        // §3.3: `if now - unlockTime < 60 { let remaining = Int(60 - (now - unlockTime))` — and not
        // before the unlock (a timestamp ahead of the clock grants nothing).
        let elapsed = now - unlock
        if elapsed >= 0, elapsed < ExitKeys.unlockWindowSeconds {
            return ShieldText(title: "Access Granted", subtitle: "\(Int(ExitKeys.unlockWindowSeconds - elapsed))s remaining")
        }
        // §3.1: `let clarity = appGroup?.integer(forKey: "clarity_score") ?? 100` (a missing key is 100).
        let clarity = store[ExitKeys.clarityScore]?.integerValue ?? 100
        let level = store[ExitKeys.userLevel]?.stringValue ?? ExitLevel.level(clarity: clarity)
        return ShieldText(title: "Locked", subtitle: "Clarity \(clarity)% · \(level)", primaryButton: "Begin Breathing")
    }
}

/// Hardened shield action: §3.2's two keys in one write (the host never sees the flag without the
/// app), `blocked_app` holding the app's token (opaque, but the app's own: H8) and the tap's time
/// — a new value per tap, which the host serves once (H7) — then `.none`.
public enum HardenedShieldAction {
    public static func handle(action: ShieldAction, token: String, now: Double) -> [Effect] {
        guard action == .primaryButtonPressed else { return [.respond(.none)] }
        return [
            .setDefaults([.set(ExitKeys.blockedApp, .string("\(token)@\(now)")), .set(ExitKeys.interventionRequested, .bool(true))], atomic: true),
            .trace("intervention_requested", ["token": token]),
            .respond(.none),
        ]
    }
}

/// Hardened monitor: writes only what the registry gives it (`extension_heartbeat`, H6), and puts
/// the shields back at any call once an unlock's window is over (H3).
public enum HardenedMonitor {
    public enum Callback: Sendable, Equatable {
        case intervalDidStart(activity: String)
        case intervalDidEnd(activity: String)
        case eventDidReachThreshold(event: String, activity: String)
    }

    public static func handle(_ callback: Callback, now: Double, store: [String: PropertyListValue]) -> [Effect] {
        var out: [Effect] = []
        // Any call after the window is a chance to put the shields back (iOS may have killed the
        // call of the unlock's own schedule); never inside a window.
        let unlock = store[ExitKeys.unlockTimestamp]?.doubleValue ?? 0
        if let apps = ExitHost.monitoredApps(store), !apps.isEmpty, now - unlock >= ExitKeys.unlockWindowSeconds {
            out.append(.applyShields(apps))
            if case .intervalDidEnd(let activity) = callback { out.append(.trace("reshielded", ["activity": activity])) }
        }
        // §6.1 "Extension (periodic)": the only times an extension runs are its callbacks.
        out.append(.setDefaults([.set(ExitKeys.extensionHeartbeat, .real(now))], atomic: true))
        return out
    }
}
