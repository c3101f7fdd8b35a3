/// Apple's `ShieldAction`: which shield button the user pressed.
public enum ShieldAction: String, Sendable, Equatable, CaseIterable {
    case primaryButtonPressed
    case secondaryButtonPressed
}

/// Apple's `ShieldActionResponse`: `.close` closes the shielded app, `.defer` redraws the shield
/// (the extension may have changed its configuration), `.none` does nothing.
public enum ShieldActionResponse: String, Sendable, Equatable, CaseIterable {
    case none
    case close
    case `defer`
}
