import ScreenTimeModel

/// Apple's `ShieldSettings`: what a store covers with a shield. Every property nil = not set.
///
/// `store.shield.applications = x` reads the store, changes one property and writes it back; the
/// store writes only the properties that changed since the read (under its lock), so an app and
/// an extension setting different properties of one store do not undo each other.
public struct ShieldSettings: Sendable, Equatable {
    public var applications: Set<ApplicationToken>?
    public var applicationCategories: ActivityCategoryPolicy<Application>?
    public var webDomains: Set<WebDomainToken>?
    public var webDomainCategories: ActivityCategoryPolicy<WebDomain>?

    /// What the store held when this value was read (nil for a value made by hand).
    var baseline: ShieldSettingsRecord?

    public init() {}

    public static func == (a: ShieldSettings, b: ShieldSettings) -> Bool { a.record == b.record }

    /// Apple's `ShieldSettings.ActivityCategoryPolicy`.
    public enum ActivityCategoryPolicy<Child>: Equatable, Sendable {
        /// Nothing is shielded.
        case none
        /// Every app (or site) is shielded except these (Apple: up to 50 exceptions).
        case all(except: Set<Token<Child>> = [])
        /// These categories are shielded, except these apps (or sites).
        case specific(Set<ActivityCategoryToken>, except: Set<Token<Child>> = [])

        var record: CategoryPolicyRecord {
            switch self {
            case .none: CategoryPolicyRecord(policy: .none)
            case .all(let except): CategoryPolicyRecord(policy: .all, except: except.map(\.opaque).sorted())
            case .specific(let cats, let except):
                CategoryPolicyRecord(policy: .specific, categories: cats.map(\.opaque).sorted(), except: except.map(\.opaque).sorted())
            }
        }

        init(_ r: CategoryPolicyRecord) {
            let except = Set(r.except.map(Token<Child>.init(opaque:)))
            switch r.policy {
            case .none: self = .none
            case .all: self = .all(except: except)
            case .specific: self = .specific(Set(r.categories.map(ActivityCategoryToken.init(opaque:))), except: except)
            }
        }
    }

    var record: ShieldSettingsRecord {
        ShieldSettingsRecord(
            applications: applications.map { $0.map(\.opaque).sorted() },
            applicationCategories: applicationCategories?.record,
            webDomains: webDomains.map { $0.map(\.opaque).sorted() },
            webDomainCategories: webDomainCategories?.record)
    }

    init(_ r: ShieldSettingsRecord) {
        applications = r.applications.map { Set($0.map(ApplicationToken.init(opaque:))) }
        applicationCategories = r.applicationCategories.map(ActivityCategoryPolicy.init)
        webDomains = r.webDomains.map { Set($0.map(WebDomainToken.init(opaque:))) }
        webDomainCategories = r.webDomainCategories.map(ActivityCategoryPolicy.init)
        baseline = r
    }

    /// `current` with the properties this value changed since it was read applied.
    func merged(into current: ShieldSettingsRecord) -> ShieldSettingsRecord {
        let mine = record
        guard let base = baseline else { return mine }
        var out = current
        if mine.applications != base.applications { out.applications = mine.applications }
        if mine.applicationCategories != base.applicationCategories { out.applicationCategories = mine.applicationCategories }
        if mine.webDomains != base.webDomains { out.webDomains = mine.webDomains }
        if mine.webDomainCategories != base.webDomainCategories { out.webDomainCategories = mine.webDomainCategories }
        return out
    }
}
