/// Apple's `ShieldAction`: which shield button the user pressed. Defined once, here: the
/// frameworks' `ManagedSettings.ShieldAction`, the extension call's and a machine's are this type.
public enum ShieldAction: String, Sendable, Equatable, Codable, CaseIterable {
    case primaryButtonPressed
    case secondaryButtonPressed
}

/// Apple's `ShieldActionResponse`: `.close` closes the shielded app, `.defer` redraws the shield
/// (the extension may have changed its configuration), `.none` does nothing. Defined once, here.
public enum ShieldActionResponse: String, Sendable, Equatable, Codable, CaseIterable {
    case none
    case close
    case `defer`
}
