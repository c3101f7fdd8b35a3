import Foundation
import ScreenTimeModel
import OSFiles

/// The OS's side of FamilyControls authorization (EMULATED-IOS.md §7.4): the app's open request, and
/// the scripted user's answer.
public enum FamilyControlsAuthority {
    /// The app's latest request, if it has not been answered yet.
    public static func openRequest(on device: EmulatedDevice) throws(OSFileError) -> AuthorizationRequestRecord? {
        let area = try device.area(OSPaths.authorization)
        guard let r = try area.read(AuthorizationRequestRecord.self, OSPaths.familyControlsRequest) else { return nil }
        let status = try area.read(AuthorizationStatusRecord.self, OSPaths.familyControlsStatus)
        return status?.answeredRequest == r.id ? nil : r
    }

    /// Writes the status (`notDetermined`, `denied`, `approved`), answering `request` if given,
    /// and posts `system.authorization.changed`.
    public static func setStatus(_ status: String, answering request: String? = nil, on device: EmulatedDevice) throws(OSFileError) {
        guard ["notDetermined", "denied", "approved"].contains(status) else {
            throw .malformed(path: "\(OSPaths.authorization)/\(OSPaths.familyControlsStatus)", reason: "status \(status) is not notDetermined, denied or approved")
        }
        try device.area(OSPaths.authorization).write(
            AuthorizationStatusRecord(status: status, answeredRequest: request, writtenAt: device.now()), OSPaths.familyControlsStatus,
            post: OSPaths.authorizationChanged)
    }
}
