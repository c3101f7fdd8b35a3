import Foundation
import ScreenTimeModel
import SystemKit

/// Authorization is the OS's (EMULATED-IOS.md §7.4, §10.3): FamilyControls decides whether the app may
/// monitor and shield at all, notification authorization whether anything it schedules is shown.
/// The scripted user answers prompts as the scenario says (`os.authorization`, `os.notifications`)
/// and may revoke FamilyControls later (`os.revokeAt`).
extension DeviceOS {
    /// With `os.authorization` set the OS models FamilyControls from the start: the status is
    /// `notDetermined` until the app asks, so `startMonitoring` before a prompt is `unauthorized`.
    mutating func boot(_ out: inout [OSEffect]) {
        guard configuration.familyControls != nil, familyControlsStatus == nil else { return }
        familyControlsStatus = "notDetermined"
        out.append(.record(.authorization, ["kind": "familyControls", "status": "notDetermined"]))
        out.append(.setAuthorization(.familyControls, status: "notDetermined", answering: nil))
    }

    /// The user answers an open prompt. iOS prompts for FamilyControls until approved, and for
    /// notifications only while `notDetermined` (the framework answers later calls itself).
    mutating func answer(_ kind: AuthorizationKind, requestId: String, _ out: inout [OSEffect]) {
        let status: String
        switch kind {
        case .familyControls:
            // A revoked app's prompt is answered like any other (the user may approve it again).
            status = configuration.familyControls ?? "approved"
            familyControlsStatus = status
        case .notifications:
            guard notificationStatus == "notDetermined" else { return }
            status = configuration.notifications ?? "authorized"
            notificationStatus = status
        }
        // Recorded before it is written: the app reads the answer as soon as it is there, and its
        // lines about it must come after the OS's (they raced: a checker reading "the OS's last
        // answer before the app's refusal" found the earlier one when the app was faster).
        out.append(.record(.authorization, ["kind": kind.rawValue, "status": status, "request": requestId]))
        out.append(.setAuthorization(kind, status: status, answering: requestId))
    }

    /// Whether ManagedSettings written now are refused: the OS models FamilyControls and the app
    /// is not approved (`notDetermined` or `denied`). Unmodelled authorization refuses nothing.
    var refusesManagedSettings: Bool {
        guard let status = familyControlsStatus else { return false }
        return status != "approved"
    }

    /// Shields written while the app is not approved are not applied, and not kept for later: iOS
    /// lets only an authorized app manage settings ("Managed Settings can't function without …
    /// authorizing your app using Family Controls"; "the ManagedSettingsStore only reports back the
    /// settings that have been set by your authorized application", EMULATED-IOS.md §10.3, §10.6). The
    /// stores are emptied, as revocation empties them, so the app reads back nothing and a later
    /// approval brings nothing back: the app must write its shields again once approved. While not
    /// approved nothing is shielded (revocation cleared it; `notDetermined` never had any), so the
    /// ground truth does not change.
    mutating func ignoreUnauthorizedShields(_ union: ShieldUnion, _ out: inout [OSEffect]) {
        var f = ["apps": union.applications.sorted().joined(separator: ","), "status": familyControlsStatus ?? "", "why": "FamilyControls not approved"]
        let policies = union.applicationCategoryPolicies.map(\.policy.rawValue).sorted()
        if !policies.isEmpty { f["categoryPolicies"] = policies.joined(separator: ",") }
        if !union.webDomains.isEmpty { f["webDomains"] = union.webDomains.sorted().joined(separator: ",") }
        out.append(.record(.shieldsIgnored, f))
        out.append(.clearManagedSettings)
    }

    /// The user turns the app's Screen Time access off. Apple documents no effect on the app's
    /// settings; field reports (EMULATED-IOS.md §10.6) say its restrictions are lifted at once, so every
    /// store is cleared and monitoring stops without callbacks: the app's extensions are no longer
    /// entitled to run.
    mutating func revoke(_ out: inout [OSEffect]) {
        familyControlsStatus = "denied"
        out.append(.record(.authorization, ["kind": "familyControls", "status": "denied", "why": "revoked"]))
        out.append(.setAuthorization(.familyControls, status: "denied", answering: nil))
        for name in activities.keys.sorted() {
            activities.removeValue(forKey: name)
            out.append(.record(.monitoringRemoved, ["activity": name, "why": "authorization revoked"]))
        }
        held.removeAll { if case .monitor = $0.call { true } else { false } }
        out.append(.clearRegistrations)
        out.append(.clearManagedSettings)
        shieldsChanged(ShieldUnion(), &out)
    }
}
