import Foundation
import ScreenTimeModel
import SystemKit

/// Authorization is the OS's (PROTOCOL.md §7.4, §10.3): FamilyControls decides whether the app may
/// monitor and shield at all, notification authorization whether anything it schedules is shown.
/// The scripted user answers prompts as the scenario says (`os.authorization`, `os.notifications`)
/// and may revoke FamilyControls later (`os.revokeAt`).
extension DeviceOS {
    /// With `os.authorization` set the OS models FamilyControls from the start: the status is
    /// `notDetermined` until the app asks, so `startMonitoring` before a prompt is `unauthorized`.
    mutating func boot(_ out: inout [OSEffect]) {
        guard configuration.familyControls != nil, familyControlsStatus == nil else { return }
        familyControlsStatus = "notDetermined"
        out.append(.setAuthorization(.familyControls, status: "notDetermined", answering: nil))
        out.append(.record("authorization", ["kind": "familyControls", "status": "notDetermined"]))
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
        out.append(.setAuthorization(kind, status: status, answering: requestId))
        out.append(.record("authorization", ["kind": kind.rawValue, "status": status, "request": requestId]))
    }

    /// The user turns the app's Screen Time access off. Apple documents no effect on the app's
    /// settings; field reports (PROTOCOL.md §10.6) say its restrictions are lifted at once, so every
    /// store is cleared and monitoring stops without callbacks: the app's extensions are no longer
    /// entitled to run.
    mutating func revoke(_ out: inout [OSEffect]) {
        familyControlsStatus = "denied"
        out.append(.setAuthorization(.familyControls, status: "denied", answering: nil))
        out.append(.record("authorization", ["kind": "familyControls", "status": "denied", "why": "revoked"]))
        for name in activities.keys.sorted() {
            activities.removeValue(forKey: name)
            out.append(.record("monitoring_removed", ["activity": name, "why": "authorization revoked"]))
        }
        held.removeAll { if case .monitor = $0.call { true } else { false } }
        out.append(.clearRegistrations)
        out.append(.clearManagedSettings)
        shieldsChanged(ShieldUnion(), &out)
    }
}
