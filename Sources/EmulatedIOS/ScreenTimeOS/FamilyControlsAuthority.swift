import Foundation
import ScreenTimeModel
import SystemFiles

/// The OS's side of FamilyControls authorization (EMULATED-IOS.md §7.4): the app's open request, and
/// the scripted user's answer.
public enum FamilyControlsAuthority {
    /// The app's latest request, if it has not been answered yet.
    public static func openRequest(on device: EmulatedDevice) throws(SystemFileError) -> AuthorizationRequestRecord? {
        let area = try device.area(SystemPaths.authorization)
        guard let r = try area.read(AuthorizationRequestRecord.self, SystemPaths.familyControlsRequest) else { return nil }
        let status = try area.read(AuthorizationStatusRecord.self, SystemPaths.familyControlsStatus)
        return status?.answeredRequest == r.id ? nil : r
    }

    /// Writes the status (`notDetermined`, `denied`, `approved`), answering `request` if given,
    /// and posts `system.authorization.changed`.
    public static func setStatus(_ status: String, answering request: String? = nil, on device: EmulatedDevice) throws(SystemFileError) {
        guard ["notDetermined", "denied", "approved"].contains(status) else {
            throw .malformed(path: "\(SystemPaths.authorization)/\(SystemPaths.familyControlsStatus)", reason: "status \(status) is not notDetermined, denied or approved")
        }
        try device.area(SystemPaths.authorization).write(
            AuthorizationStatusRecord(status: status, answeredRequest: request, writtenAt: device.now()), SystemPaths.familyControlsStatus,
            post: SystemPaths.authorizationChanged)
    }
}
