/// Apple's `Application`. Built from a token in app code, it knows nothing else (iOS keeps the
/// bundle id and name private); the OS hands extensions fully described ones, e.g. the shielded
/// app in `ShieldConfigurationDataSource.configuration(shielding:)`.
public struct Application: Codable, Hashable, Sendable {
    public let bundleIdentifier: String?
    public let token: ApplicationToken?
    public let localizedDisplayName: String?

    public init(bundleIdentifier: String) {
        self.bundleIdentifier = bundleIdentifier
        self.token = nil
        self.localizedDisplayName = nil
    }

    public init(token: ApplicationToken) {
        self.bundleIdentifier = nil
        self.token = token
        self.localizedDisplayName = nil
    }

    /// As the OS describes an app to an extension.
    @_spi(ScreenTimeHarness) public init(bundleIdentifier: String?, token: ApplicationToken?, localizedDisplayName: String?) {
        self.bundleIdentifier = bundleIdentifier
        self.token = token
        self.localizedDisplayName = localizedDisplayName
    }
}

/// Apple's `ActivityCategory`.
public struct ActivityCategory: Codable, Hashable, Sendable {
    public let token: ActivityCategoryToken?
    public let localizedDisplayName: String?

    public init(token: ActivityCategoryToken) {
        self.token = token
        self.localizedDisplayName = nil
    }

    @_spi(ScreenTimeHarness) public init(token: ActivityCategoryToken?, localizedDisplayName: String?) {
        self.token = token
        self.localizedDisplayName = localizedDisplayName
    }
}

/// Apple's `WebDomain`.
public struct WebDomain: Codable, Hashable, Sendable {
    public let domain: String?
    public let token: WebDomainToken?

    public init(domain: String) {
        self.domain = domain
        self.token = nil
    }

    public init(token: WebDomainToken) {
        self.domain = nil
        self.token = token
    }

    @_spi(ScreenTimeHarness) public init(domain: String?, token: WebDomainToken?) {
        self.domain = domain
        self.token = token
    }
}
