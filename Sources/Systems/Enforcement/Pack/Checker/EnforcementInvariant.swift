import HarnessKit

/// What seed 001 promises, one case per promise, each quoting the spec. (`no-store-corrupt` and
/// `run-settles` are the core's.)
public enum EnforcementInvariant: String, CaseIterable, Codable, Sendable {
    case shieldsMatchFormula = "shields-match-formula"
    case grantEndReshields = "grant-end-reshields"
    case overrideEndApplied = "override-end-applied"
    case grantAppUsable = "grant-app-usable"
    case noFlap = "shields-no-flap"
    case mirrorAgrees = "sqlite-mirror-agrees"
    case shieldContent = "shield-content"
    case checklist = "checklist-steps"

    public var descriptor: InvariantDescriptor { promise.bounded(by: boundSeconds) }

    /// The shortest device-time bound each rule judges by (`InvariantDescriptor.boundSeconds`): the
    /// minute the rules must have been still, or the shields have to follow a change.
    var boundSeconds: Double? {
        switch self {
        case .shieldsMatchFormula, .grantEndReshields, .overrideEndApplied: EnforcementRun.settleSeconds
        case .grantAppUsable, .noFlap, .mirrorAgrees, .shieldContent, .checklist: nil
        }
    }

    var promise: InvariantDescriptor {
        switch self {
        case .shieldsMatchFormula:
            InvariantDescriptor(
                name: rawValue,
                promise: "Whenever the rules have been still for a minute, the OS's shielded apps are the formula's for the effective mode and the active grants (a grant's end: see grant-end-reshields).",
                source: "\"At any time we compute: shieldedApps = blockedAppsByEffectiveMode - appsWithActiveGrant\"; \"When a mode becomes active (or overrides change), update ManagedSettingsStore.shield.applications\"")
        case .grantEndReshields:
            InvariantDescriptor(
                name: rawValue,
                promise: "A blocked app is shielded again within a minute of its grant's end — or, when iOS lost the monitor's callback, within a minute of the next fallback trigger (app foreground, a mode boundary, the next shield event).",
                source: "\"schedule a re-shield at grant_end_ts\"; \"If a grant expiry callback is missed: Ensure shields are reconciled on: app foreground, mode boundary triggers, next shield event. This keeps you from 'permanently unshielding'\"; checklist 6")
        case .overrideEndApplied:
            InvariantDescriptor(
                name: rawValue,
                promise: "When an override ends, every app whose expected state it changed is shielded or unshielded as the formula says within a minute — or, when iOS lost the monitor's callback, within a minute of the next fallback trigger (app foreground, a mode boundary, the next shield event).",
                source: "\"Blocked apps are from the effective mode (schedule + overrides + precedence)\"; \"When a mode becomes active (or overrides change), update ManagedSettingsStore.shield.applications with shieldedApps\"; the fallback \"app foreground, mode boundary triggers, next shield event\"")
        case .grantAppUsable:
            InvariantDescriptor(
                name: rawValue, promise: "An app the user granted time is not shielded from a minute after the host had the grant to its end — judged from the user's tap, whether or not the host recorded the grant.",
                source: "\"When a grant is created for app X: remove X from shields (allow it)\"; checklist 5: \"Open blocked app → should open\"")
        case .noFlap:
            InvariantDescriptor(
                name: rawValue, promise: "The shields never move away from the formula while the rules have been still for a minute (no flapping).",
                source: "\"At any time we compute: shieldedApps = …\" (the shield set is a function of the rules and the time alone)")
        case .mirrorAgrees:
            InvariantDescriptor(
                name: rawValue,
                promise: "After the run the host's SQLite database opens read-only, passes integrity_check, is in WAL mode, and its selected app ids equal the App Group's selection.",
                source: "\"Store selection data under App Group container (native)\"; \"Mirror 'selected app ids' into your SQLite for display and for Android parity\"")
        case .shieldContent:
            InvariantDescriptor(
                name: rawValue,
                promise: "Every shield says the app is blocked, names the mode blocking it, gives the next step (Earned Access or a Focus session) and offers Close app — and no redirect.",
                source: "\"Required content: App is blocked; Which mode is blocking it (if available); Simple next step\"; \"Primary: Close app\"")
        case .checklist:
            InvariantDescriptor(
                name: rawValue,
                promise: "The manual checklist's outcomes, where its steps are run: opening a blocked app shows the shield (3, 7); opening it inside the grant opens it (5).",
                source: "Manual test checklist: \"3. Open a blocked app → shield appears\", \"5. Open blocked app → should open\", \"7. Confirm: after expiration, the shield shows again\"")
        }
    }
}
