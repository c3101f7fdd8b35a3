import Foundation

/// A settings group of one store on disk (every `ManagedSettingsStore` group but `shield`, which
/// has its own record): one optional key per Apple property, absent = not set.
///
/// Every group is written and combined the same way, so each declares its properties once, in
/// `fields`: a write applies only what its writer changed since its read (two processes setting
/// different properties of one group must not undo each other), and the OS folds the stores into
/// the effective value, most restrictive first.
public protocol ManagedSettingsGroupRecord: Codable, Hashable, Sendable {
    init()
    static var fields: [SettingField<Self>] { get }
    /// Why this value cannot be written, if it cannot (a writer refuses rather than leave a file
    /// every reader would reject).
    var refusal: String? { get }
}

extension ManagedSettingsGroupRecord {
    public var refusal: String? { nil }

    public var isEmpty: Bool { self == Self() }

    /// This value (the store's current one) with the properties `mine` changed since `base` applied.
    public func applying(changesOf mine: Self, since base: Self) -> Self {
        var out = self
        for f in Self.fields { f.apply(&out, mine, base) }
        return out
    }

    /// This store's value combined with another store's, property by property, the most
    /// restrictive winning (a property one store leaves unset takes the other's).
    public func combined(with other: Self) -> Self {
        var out = self
        for f in Self.fields { f.combine?(&out, other) }
        return out
    }
}

/// One optional property of a group record: how a write applies it and how stores combine it.
public struct SettingField<Record> {
    let apply: (inout Record, _ mine: Record, _ base: Record) -> Void
    /// nil: the property has no single combined value (the web filter: `ManagedSettingsUnion`
    /// keeps every store's policy instead).
    let combine: ((inout Record, Record) -> Void)?

    public init<V: Equatable>(_ keyPath: WritableKeyPath<Record, V?>, combine: ((V, V) -> V)?) {
        apply = { out, mine, base in
            if mine[keyPath: keyPath] != base[keyPath: keyPath] { out[keyPath: keyPath] = mine[keyPath: keyPath] }
        }
        self.combine = combine.map { c in
            { acc, other in
                guard let b = other[keyPath: keyPath] else { return }
                acc[keyPath: keyPath] = acc[keyPath: keyPath].map { c($0, b) } ?? b
            }
        }
    }

    /// `true` wins: every Bool setting Apple documents restricts when true (deny…, lock…, require…).
    public static func restrictive(_ keyPath: WritableKeyPath<Record, Bool?>) -> Self { Self(keyPath, combine: { $0 || $1 }) }

    /// The lowest maximum rating wins.
    public static func lowest(_ keyPath: WritableKeyPath<Record, Int?>) -> Self { Self(keyPath, combine: { min($0, $1) }) }
}

/// An `Application` on disk: what the writer knew of it (app code builds one from a token or a
/// bundle id; the OS describes one with all three). At least one of `token`, `bundleIdentifier`.
public struct ApplicationRecord: Codable, Hashable, Sendable, Comparable {
    public var bundleIdentifier: String?
    public var localizedDisplayName: String?
    /// An opaque application token (EMULATED-IOS.md §7.1).
    public var token: String?

    public init(bundleIdentifier: String? = nil, localizedDisplayName: String? = nil, token: String? = nil) {
        self.bundleIdentifier = bundleIdentifier
        self.localizedDisplayName = localizedDisplayName
        self.token = token
    }

    /// Writers sort by this so a set's bytes are stable.
    public static func < (a: Self, b: Self) -> Bool {
        (a.token ?? "", a.bundleIdentifier ?? "", a.localizedDisplayName ?? "") < (b.token ?? "", b.bundleIdentifier ?? "", b.localizedDisplayName ?? "")
    }

    enum CodingKeys: String, CodingKey { case bundleIdentifier, localizedDisplayName, token }

    /// An entry naming no application would block nothing, silently: the file is malformed instead.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bundleIdentifier = try c.decodeIfPresent(String.self, forKey: .bundleIdentifier)
        localizedDisplayName = try c.decodeIfPresent(String.self, forKey: .localizedDisplayName)
        token = try c.decodeIfPresent(String.self, forKey: .token)
        if bundleIdentifier == nil && token == nil {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an application needs a token or a bundleIdentifier"))
        }
    }
}

/// A `WebDomain` on disk: a domain, a token, or both.
public struct WebDomainRecord: Codable, Hashable, Sendable, Comparable {
    public var domain: String?
    /// An opaque web-domain token (EMULATED-IOS.md §7.1).
    public var token: String?

    public init(domain: String? = nil, token: String? = nil) {
        self.domain = domain
        self.token = token
    }

    public static func < (a: Self, b: Self) -> Bool { (a.token ?? "", a.domain ?? "") < (b.token ?? "", b.domain ?? "") }

    enum CodingKeys: String, CodingKey { case domain, token }

    /// An entry naming no domain would block or except nothing, silently: the file is malformed instead.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        domain = try c.decodeIfPresent(String.self, forKey: .domain)
        token = try c.decodeIfPresent(String.self, forKey: .token)
        if domain == nil && token == nil {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a web domain needs a token or a domain"))
        }
    }

    /// The domain the OS reads: the named one, else the token's.
    public var resolvedDomain: String? { domain ?? token.flatMap { OpaqueToken.identifier($0, of: .webDomain) } }
}

/// `WebContentSettings.FilterPolicy` on disk: `{"policy": "all", "except": [domain…]}`,
/// `{"policy": "auto", "domains": […], "except": […]}`, `{"policy": "specific", "domains": […]}`
/// or `{"policy": "none"}`.
public struct WebFilterPolicyRecord: Codable, Hashable, Sendable {
    /// Declared from the least to the most restrictive kind: the OS's summary of several stores
    /// is the highest (`all` blocks every site; `auto` adult sites and its domains; `specific`
    /// only its domains).
    public enum Policy: String, Codable, Sendable, Comparable, CaseIterable {
        case none, specific, auto, all

        public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    public var policy: Policy
    /// Blocked domains (`specific`, `auto`).
    public var domains: [WebDomainRecord]
    /// Domains not to block (`all`, `auto`).
    public var except: [WebDomainRecord]

    public init(policy: Policy, domains: [WebDomainRecord] = [], except: [WebDomainRecord] = []) {
        self.policy = policy
        self.domains = domains
        self.except = except
    }

    enum CodingKeys: String, CodingKey { case policy, domains, except }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        policy = try c.decode(Policy.self, forKey: .policy)
        domains = try c.decodeIfPresent([WebDomainRecord].self, forKey: .domains) ?? []
        except = try c.decodeIfPresent([WebDomainRecord].self, forKey: .except) ?? []
    }

    /// Whether this one policy blocks `domain` (`adult`: the OS's adult-content classifier says so).
    /// A subdomain falls under a listed domain.
    public func blocks(domain: String, adult: Bool) -> Bool {
        func listed(_ list: [WebDomainRecord]) -> Bool {
            list.contains { r in r.resolvedDomain.map { domain == $0 || domain.hasSuffix("." + $0) } ?? false }
        }
        switch policy {
        case .none: return false
        case .specific: return listed(domains)
        case .auto: return (adult || listed(domains)) && !listed(except)
        case .all: return !listed(except)
        }
    }
}

/// Apple's `SafariSettings.CookiePolicy` (the one definition: ManagedSettings aliases it), on
/// disk as its raw value. Declared from the most to the least restrictive.
public enum SafariCookiePolicy: String, Codable, Hashable, Sendable, Comparable, CaseIterable {
    case never, currentWebsite, visitedWebsites, always

    /// The more restrictive policy is the lesser.
    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

// MARK: The groups, each under its `ManagedSettingsStore` property name

/// `store.account`.
public struct AccountSettingsRecord: ManagedSettingsGroupRecord {
    public var lockAccounts: Bool?

    public init() {}
    public init(lockAccounts: Bool?) { self.lockAccounts = lockAccounts }

    public static var fields: [SettingField<Self>] { [.restrictive(\.lockAccounts)] }
}

/// `store.appStore`.
public struct AppStoreSettingsRecord: ManagedSettingsGroupRecord {
    public var denyInAppPurchases: Bool?
    /// Apple's scale: 0 none … 100 4+ … 600 17+, 1000 all.
    public var maximumRating: Int?
    public var requirePasswordForPurchases: Bool?

    public init() {}
    public init(denyInAppPurchases: Bool?, maximumRating: Int?, requirePasswordForPurchases: Bool?) {
        self.denyInAppPurchases = denyInAppPurchases
        self.maximumRating = maximumRating
        self.requirePasswordForPurchases = requirePasswordForPurchases
    }

    public static var fields: [SettingField<Self>] {
        [.restrictive(\.denyInAppPurchases), .lowest(\.maximumRating), .restrictive(\.requirePasswordForPurchases)]
    }
}

/// `store.application`.
public struct ApplicationSettingsRecord: ManagedSettingsGroupRecord {
    /// Sorted, no duplicates.
    public var blockedApplications: [ApplicationRecord]?
    public var denyAppInstallation: Bool?
    public var denyAppRemoval: Bool?

    public init() {}
    public init(blockedApplications: [ApplicationRecord]?, denyAppInstallation: Bool?, denyAppRemoval: Bool?) {
        self.blockedApplications = blockedApplications
        self.denyAppInstallation = denyAppInstallation
        self.denyAppRemoval = denyAppRemoval
    }

    public static var fields: [SettingField<Self>] {
        [
            SettingField(\.blockedApplications, combine: { Array(Set($0).union($1)).sorted() }),
            .restrictive(\.denyAppInstallation), .restrictive(\.denyAppRemoval),
        ]
    }

    /// An application the OS could not name could never be blocked.
    public var refusal: String? {
        (blockedApplications ?? []).contains { $0.token == nil && $0.bundleIdentifier == nil }
            ? "application.blockedApplications holds an Application with neither a token nor a bundle identifier" : nil
    }
}

/// `store.cellular`.
public struct CellularSettingsRecord: ManagedSettingsGroupRecord {
    public var lockAppCellularData: Bool?
    public var lockCellularPlan: Bool?
    public var lockESIM: Bool?

    public init() {}
    public init(lockAppCellularData: Bool?, lockCellularPlan: Bool?, lockESIM: Bool?) {
        self.lockAppCellularData = lockAppCellularData
        self.lockCellularPlan = lockCellularPlan
        self.lockESIM = lockESIM
    }

    public static var fields: [SettingField<Self>] {
        [.restrictive(\.lockAppCellularData), .restrictive(\.lockCellularPlan), .restrictive(\.lockESIM)]
    }
}

/// `store.dateAndTime`.
public struct DateAndTimeSettingsRecord: ManagedSettingsGroupRecord {
    public var requireAutomaticDateAndTime: Bool?

    public init() {}
    public init(requireAutomaticDateAndTime: Bool?) { self.requireAutomaticDateAndTime = requireAutomaticDateAndTime }

    public static var fields: [SettingField<Self>] { [.restrictive(\.requireAutomaticDateAndTime)] }
}

/// `store.gameCenter`.
public struct GameCenterSettingsRecord: ManagedSettingsGroupRecord {
    public var denyAddingFriends: Bool?
    public var denyMultiplayerGaming: Bool?

    public init() {}
    public init(denyAddingFriends: Bool?, denyMultiplayerGaming: Bool?) {
        self.denyAddingFriends = denyAddingFriends
        self.denyMultiplayerGaming = denyMultiplayerGaming
    }

    public static var fields: [SettingField<Self>] { [.restrictive(\.denyAddingFriends), .restrictive(\.denyMultiplayerGaming)] }
}

/// `store.media`.
public struct MediaSettingsRecord: ManagedSettingsGroupRecord {
    public var denyBookstoreErotica: Bool?
    public var denyExplicitContent: Bool?
    public var denyMusicService: Bool?
    /// Apple's scale: 0 none, 100 G … 500 NC-17, 1000 all.
    public var maximumMovieRating: Int?
    /// Apple's scale: 0 none, 100 TV-Y … 600 TV-MA, 1000 all.
    public var maximumTVShowRating: Int?

    public init() {}
    public init(
        denyBookstoreErotica: Bool?, denyExplicitContent: Bool?, denyMusicService: Bool?, maximumMovieRating: Int?,
        maximumTVShowRating: Int?
    ) {
        self.denyBookstoreErotica = denyBookstoreErotica
        self.denyExplicitContent = denyExplicitContent
        self.denyMusicService = denyMusicService
        self.maximumMovieRating = maximumMovieRating
        self.maximumTVShowRating = maximumTVShowRating
    }

    public static var fields: [SettingField<Self>] {
        [
            .restrictive(\.denyBookstoreErotica), .restrictive(\.denyExplicitContent), .restrictive(\.denyMusicService),
            .lowest(\.maximumMovieRating), .lowest(\.maximumTVShowRating),
        ]
    }
}

/// `store.passcode`.
public struct PasscodeSettingsRecord: ManagedSettingsGroupRecord {
    public var lockPasscode: Bool?

    public init() {}
    public init(lockPasscode: Bool?) { self.lockPasscode = lockPasscode }

    public static var fields: [SettingField<Self>] { [.restrictive(\.lockPasscode)] }
}

/// `store.safari`.
public struct SafariSettingsRecord: ManagedSettingsGroupRecord {
    public var cookiePolicy: SafariCookiePolicy?
    public var denyAutoFill: Bool?

    public init() {}
    public init(cookiePolicy: SafariCookiePolicy?, denyAutoFill: Bool?) {
        self.cookiePolicy = cookiePolicy
        self.denyAutoFill = denyAutoFill
    }

    public static var fields: [SettingField<Self>] { [SettingField(\.cookiePolicy, combine: { min($0, $1) }), .restrictive(\.denyAutoFill)] }
}

/// `store.siri`.
public struct SiriSettingsRecord: ManagedSettingsGroupRecord {
    public var denySiri: Bool?

    public init() {}
    public init(denySiri: Bool?) { self.denySiri = denySiri }

    public static var fields: [SettingField<Self>] { [.restrictive(\.denySiri)] }
}

/// `store.webContent`.
public struct WebContentSettingsRecord: ManagedSettingsGroupRecord {
    public var blockedByFilter: WebFilterPolicyRecord?

    public init() {}
    public init(blockedByFilter: WebFilterPolicyRecord?) { self.blockedByFilter = blockedByFilter }

    public static var fields: [SettingField<Self>] { [SettingField(\.blockedByFilter, combine: nil)] }

    public var refusal: String? {
        guard let p = blockedByFilter else { return nil }
        return (p.domains + p.except).contains { $0.domain == nil && $0.token == nil }
            ? "webContent.blockedByFilter holds a WebDomain with neither a token nor a domain" : nil
    }
}
