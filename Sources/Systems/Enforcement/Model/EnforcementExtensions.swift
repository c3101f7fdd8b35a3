import PropertyList
import Foundation
import SystemKit

/// The DeviceActivityMonitor extension: "toggle shields at schedule boundaries + handle grant
/// expiry" — "in the monitor's callback, re-apply shielding", from what it reads in the App Group.
public enum EnforcementMonitor {
    /// The callbacks that reconcile. As-written: the interval's start and end (the spec's
    /// "schedule boundaries" and "a schedule that ends at the grant expiration time").
    /// Hardened adds `intervalWillEndWarning` (H1: where the grant's end falls).
    public static func reconciles(_ callback: String, variant: EnforcementVariant) -> Bool {
        switch callback {
        case "intervalDidStart", "intervalDidEnd": return true
        case "intervalWillEndWarning": return variant == .hardened
        default: return false
        }
    }

    public static func handle(
        callback: String, activity: String, now: Double, timeZone: TimeZone, store: [String: PropertyListValue], variant: EnforcementVariant
    ) -> [Effect] {
        guard reconciles(callback, variant: variant) else { return [.trace("callback_ignored", ["callback": callback, "activity": activity])] }
        return EnforcementHost.reconcile(Rules(store: store), now: now, timeZone: timeZone, why: "\(callback) \(activity)")
    }
}

/// The shield-action extension. Buttons (README A6): primary "Close app" → `.close`; no
/// secondary button (the spec's "or none"). A press is the spec's "next shield event": the
/// extension reconciles the shields from the App Group before it answers (A5).
public enum EnforcementShieldAction {
    public static func handle(action: ShieldAction, now: Double, timeZone: TimeZone, store: [String: PropertyListValue]) -> [Effect] {
        EnforcementHost.reconcile(Rules(store: store), now: now, timeZone: timeZone, why: "shield_event") + [.respond(.close)]
    }
}

/// The shield-configuration extension: "App is blocked", "Which mode is blocking it (if
/// available)", the "Simple next step" — and no redirect (the seed's "no redirect" constraint).
public enum EnforcementShieldConfiguration {
    public struct Text: Sendable, Equatable {
        public var title: String
        public var subtitle: String
        public var primaryButton: String
        /// nil: no secondary button (A6).
        public var secondaryButton: String?
    }

    public static func text(now: Double, timeZone: TimeZone, store: [String: PropertyListValue]) -> Text {
        let mode = Rules(store: store).effectiveMode(at: now, timeZone: timeZone)
        let modeLine = mode.map { "Blocked by \($0.name). " } ?? ""
        return Text(
            title: EnforcementKeys.shieldTitle,
            subtitle: modeLine + EnforcementKeys.nextStepEarnedAccess + ". " + EnforcementKeys.nextStepFocus + ".",
            primaryButton: EnforcementKeys.closeButton, secondaryButton: nil)
    }
}
