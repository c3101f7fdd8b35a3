import FamilyControls
import Seed000
import SystemKit

/// As-written's Screen Time authorization (README, A16): the seed's own MethodChannel methods 2
/// and 1 (`getAuthorizationStatus`, `requestAuthorization`; Sources/Systems/SeedCode/Seed000), called as
/// the Dart side would before the app picker. The seed shows no Dart that reads either answer, so
/// nothing follows from them: each is only traced, as the Flutter engine hands it over.
enum AsWrittenAuthorization {
    static func ask() -> [Effect] {
        let status = Seed000NativeBridge.getAuthorizationStatus()
        let (answer, timedOut) = Seed000NativeBridge.requestAuthorization()
        var result = ["method": "requestAuthorization"]
        if let answer {
            result["authorized"] = (answer["authorized"] as? Bool).map { String($0) } ?? "?"
            if let error = answer["error"] as? String { result["error"] = error }
        } else {
            result["authorized"] = timedOut ? "no_answer" : "not_a_dictionary"
        }
        return [
            .trace("method_result", ["method": "getAuthorizationStatus", "status": status?["status"] as? String ?? "no_answer"]),
            .trace("method_result", result),
        ]
    }

    /// What a hardened start reads: the OS's status, as Apple's API reports it.
    static func status() -> String { AuthorizationCenter.shared.authorizationStatus.rawValue }
}
