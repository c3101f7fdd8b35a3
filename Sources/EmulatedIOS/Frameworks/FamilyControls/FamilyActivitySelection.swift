@_spi(ScreenTimeHarness) import ManagedSettings

/// Apple's `FamilyActivitySelection`: what the user picked in `FamilyActivityPicker`, as opaque
/// tokens. Codable (apps store it in their App Group as JSON or a property list).
public struct FamilyActivitySelection: Codable, Hashable, Sendable {
    public var applicationTokens: Set<ApplicationToken>
    public var categoryTokens: Set<ActivityCategoryToken>
    public var webDomainTokens: Set<WebDomainToken>
    /// iOS 15.4: a picked category stands for all its apps and sites.
    public var includeEntireCategory: Bool

    public init() { self.init(includeEntireCategory: false) }

    public init(includeEntireCategory: Bool) {
        applicationTokens = []
        categoryTokens = []
        webDomainTokens = []
        self.includeEntireCategory = includeEntireCategory
    }

    /// Apple's `applications`: the picked apps, known to the app by token only.
    public var applications: Set<Application> { Set(applicationTokens.map(Application.init(token:))) }
    public var categories: Set<ActivityCategory> { Set(categoryTokens.map(ActivityCategory.init(token:))) }
    public var webDomains: Set<WebDomain> { Set(webDomainTokens.map(WebDomain.init(token:))) }

    /// What the OS's picker hands the app when the scripted user picks these.
    @_spi(ScreenTimeHarness)
    public init(pickedApplications bundleIdentifiers: [String], categories: [String] = [], webDomains: [String] = [], includeEntireCategory: Bool = false) {
        applicationTokens = Set(bundleIdentifiers.map(ApplicationToken.init(bundleIdentifier:)))
        categoryTokens = Set(categories.map(ActivityCategoryToken.init(categoryIdentifier:)))
        webDomainTokens = Set(webDomains.map(WebDomainToken.init(domain:)))
        self.includeEntireCategory = includeEntireCategory
    }
}
