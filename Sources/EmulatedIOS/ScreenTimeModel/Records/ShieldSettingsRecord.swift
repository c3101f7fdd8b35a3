import Foundation

/// `ShieldSettings.ActivityCategoryPolicy` on disk:
/// `{"policy": "all", "except": [token…]}`, `{"policy": "specific", "categories": [token…], "except": […]}`
/// or `{"policy": "none"}`.
public struct CategoryPolicyRecord: Codable, Hashable, Sendable {
    public enum Policy: String, Codable, Sendable {
        case all, specific, none
    }

    public var policy: Policy
    /// Category tokens (`specific` only).
    public var categories: [String]
    /// Application or web-domain tokens not to shield.
    public var except: [String]

    public init(policy: Policy, categories: [String] = [], except: [String] = []) {
        self.policy = policy
        self.categories = categories
        self.except = except
    }

    enum CodingKeys: String, CodingKey { case policy, categories, except }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        policy = try c.decode(Policy.self, forKey: .policy)
        categories = try c.decodeIfPresent([String].self, forKey: .categories) ?? []
        except = try c.decodeIfPresent([String].self, forKey: .except) ?? []
    }
}

/// One `ManagedSettingsStore`'s shield settings: `system/managedsettings/<store>.json`, written
/// by the app or an extension on every change (temp + rename, then a post of
/// `system.managedsettings.changed`); deleted by `clearAllSettings()`. Every field `null` = not set.
public struct ShieldSettingsRecord: Codable, Hashable, Sendable {
    /// Tokens of `shield.applications`.
    public var applications: [String]?
    public var applicationCategories: CategoryPolicyRecord?
    /// Tokens of `shield.webDomains`.
    public var webDomains: [String]?
    public var webDomainCategories: CategoryPolicyRecord?

    public init(
        applications: [String]? = nil, applicationCategories: CategoryPolicyRecord? = nil, webDomains: [String]? = nil,
        webDomainCategories: CategoryPolicyRecord? = nil
    ) {
        self.applications = applications
        self.applicationCategories = applicationCategories
        self.webDomains = webDomains
        self.webDomainCategories = webDomainCategories
    }

    public var isEmpty: Bool { applications == nil && applicationCategories == nil && webDomains == nil && webDomainCategories == nil }
}

/// One store's file. `shield` is always present (records before the other groups had only it);
/// every other group is optional and absent when the store sets none of its properties, so a
/// record without them still decodes, as not set.
public struct ManagedSettingsStoreRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    /// The store's name (`default` for `ManagedSettingsStore()`).
    public var store: String
    public var shield: ShieldSettingsRecord
    public var account: AccountSettingsRecord?
    public var appStore: AppStoreSettingsRecord?
    public var application: ApplicationSettingsRecord?
    public var cellular: CellularSettingsRecord?
    public var dateAndTime: DateAndTimeSettingsRecord?
    public var gameCenter: GameCenterSettingsRecord?
    public var media: MediaSettingsRecord?
    public var passcode: PasscodeSettingsRecord?
    public var safari: SafariSettingsRecord?
    public var siri: SiriSettingsRecord?
    public var webContent: WebContentSettingsRecord?
    /// Device time of the write.
    public var writtenAt: Date
    public var writtenBy: WriterRecord

    public init(store: String, shield: ShieldSettingsRecord, writtenAt: Date, writtenBy: WriterRecord) {
        self.version = Self.currentVersion
        self.store = store
        self.shield = shield
        self.writtenAt = writtenAt
        self.writtenBy = writtenBy
    }
}

/// What every store together shields — the ground truth of the emulated OS, as identifiers
/// (bundle ids, category ids, domains) rather than tokens.
public struct ShieldUnion: Equatable, Sendable {
    /// Apps shielded by name (`shield.applications` of any store).
    public var applications: Set<String> = []
    /// Web domains shielded by name.
    public var webDomains: Set<String> = []
    /// `applicationCategories` policies of every store that set one.
    public var applicationCategoryPolicies: [CategoryPolicyRecord] = []
    public var webDomainCategoryPolicies: [CategoryPolicyRecord] = []
    /// Tokens that did not decode (a token the OS never issued): kept, never dropped silently.
    public var unknownTokens: Set<String> = []

    public init() {}

    public init(_ stores: [ShieldSettingsRecord]) {
        for s in stores {
            for t in s.applications ?? [] {
                if let id = OpaqueToken.identifier(t, of: .application) { applications.insert(id) } else { unknownTokens.insert(t) }
            }
            for t in s.webDomains ?? [] {
                if let id = OpaqueToken.identifier(t, of: .webDomain) { webDomains.insert(id) } else { unknownTokens.insert(t) }
            }
            if let p = s.applicationCategories { applicationCategoryPolicies.append(p) }
            if let p = s.webDomainCategories { webDomainCategoryPolicies.append(p) }
        }
    }

    /// Whether an app is shielded: by name in any store, or by a category policy of any store
    /// (`all` unless excepted; `specific` when its category is listed and it is not excepted).
    /// `category` is the app's category id, if the OS knows it.
    public func isShielded(application bundleIdentifier: String, category: String?) -> Bool {
        if applications.contains(bundleIdentifier) { return true }
        let appToken = OpaqueToken.encode(.application, bundleIdentifier)
        for p in applicationCategoryPolicies where !p.except.contains(appToken) {
            switch p.policy {
            case .all: return true
            case .specific:
                if let category, p.categories.contains(OpaqueToken.encode(.category, category)) { return true }
            case .none: break
            }
        }
        return false
    }
}
