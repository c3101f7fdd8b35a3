/// Apple's `AuthorizationStatus` (FamilyControls).
public enum AuthorizationStatus: String, Codable, Sendable, Equatable, CaseIterable {
    case notDetermined
    case denied
    case approved
}

/// Apple's `FamilyControlsMember`: who is being authorized.
public enum FamilyControlsMember: String, Codable, Sendable, Equatable {
    /// The device's own user (iOS 16).
    case individual
    /// A child in Family Sharing (a parent approves).
    case child
}

/// Apple's `FamilyControlsError`.
public enum FamilyControlsError: Error, Sendable, Equatable, CustomStringConvertible {
    case restricted
    case unavailable
    case invalidAccountType
    case invalidArgument
    case authorizationConflict
    /// The user declined (the emulated OS answered `denied`).
    case authorizationCanceled
    case networkError
    case authenticationMethodUnavailable

    public var description: String { "FamilyControlsError.\(self.name)" }

    var name: String {
        switch self {
        case .restricted: "restricted"
        case .unavailable: "unavailable"
        case .invalidAccountType: "invalidAccountType"
        case .invalidArgument: "invalidArgument"
        case .authorizationConflict: "authorizationConflict"
        case .authorizationCanceled: "authorizationCanceled"
        case .networkError: "networkError"
        case .authenticationMethodUnavailable: "authenticationMethodUnavailable"
        }
    }
}
