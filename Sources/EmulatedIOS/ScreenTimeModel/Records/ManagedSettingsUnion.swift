import Foundation

/// What every store together says, group by group: the effective settings of the emulated OS.
/// iOS applies the most restrictive of what all stores say, so here:
///
/// * a Bool setting is `true` if any store says `true`, `false` if stores set it and none says
///   `true`, nil if no store sets it (every Bool Apple documents restricts when true);
/// * a maximum rating is the lowest any store sets; a cookie policy the most restrictive
///   (`never` < `currentWebsite` < `visitedWebsites` < `always`);
/// * `blockedApplications` is the union of every store's, as bundle ids;
/// * web content filters are not merged into one policy (no single policy says what `.all` of
///   one store and `.auto` of another block together): every store's policy is kept and a domain
///   is blocked if any of them blocks it, each store's exceptions lifting only its own policy,
///   as the shield's category policies do. `webContentFilterKind` summarises them by the most
///   restrictive kind: `all` > `auto` > `specific` > `none`.
public struct ManagedSettingsUnion: Equatable, Sendable {
    public var shield = ShieldUnion()
    public var account = AccountSettingsRecord()
    public var appStore = AppStoreSettingsRecord()
    /// Its `blockedApplications` are every store's entries; `blockedApplications` below names them.
    public var application = ApplicationSettingsRecord()
    public var cellular = CellularSettingsRecord()
    public var dateAndTime = DateAndTimeSettingsRecord()
    public var gameCenter = GameCenterSettingsRecord()
    public var media = MediaSettingsRecord()
    public var passcode = PasscodeSettingsRecord()
    public var safari = SafariSettingsRecord()
    public var siri = SiriSettingsRecord()
    /// Bundle ids of the applications some store blocks (the user cannot open them).
    public var blockedApplications: Set<String> = []
    /// `webContent.blockedByFilter` of every store that set one, in the order of their files.
    public var webContentFilters: [WebFilterPolicyRecord] = []
    /// Application tokens in `blockedApplications` that did not decode (a token the OS never
    /// issued): kept, never dropped silently. The shield's are in `shield.unknownTokens`.
    public var unknownTokens: Set<String> = []

    public init() {}

    public init(_ stores: [ManagedSettingsStoreRecord]) {
        shield = ShieldUnion(stores.map(\.shield))
        for s in stores {
            Self.fold(&account, s.account)
            Self.fold(&appStore, s.appStore)
            Self.fold(&application, s.application)
            Self.fold(&cellular, s.cellular)
            Self.fold(&dateAndTime, s.dateAndTime)
            Self.fold(&gameCenter, s.gameCenter)
            Self.fold(&media, s.media)
            Self.fold(&passcode, s.passcode)
            Self.fold(&safari, s.safari)
            Self.fold(&siri, s.siri)
            if let p = s.webContent?.blockedByFilter { webContentFilters.append(p) }
        }
        for a in application.blockedApplications ?? [] {
            if let id = a.bundleIdentifier { blockedApplications.insert(id) }
            guard let t = a.token else { continue }
            if let id = OpaqueToken.identifier(t, of: .application) { blockedApplications.insert(id) } else { unknownTokens.insert(t) }
        }
    }

    private static func fold<G: ManagedSettingsGroupRecord>(_ acc: inout G, _ store: G?) {
        if let store { acc = acc.combined(with: store) }
    }

    public func isBlocked(application bundleIdentifier: String) -> Bool { blockedApplications.contains(bundleIdentifier) }

    /// Whether some store's web filter blocks `domain` (`adult`: the OS classifies it as adult
    /// content, which `auto` blocks).
    public func isBlocked(webDomain domain: String, adult: Bool = false) -> Bool {
        webContentFilters.contains { $0.blocks(domain: domain, adult: adult) }
    }

    /// The most restrictive filter kind any store set, nil if none set one.
    public var webContentFilterKind: WebFilterPolicyRecord.Policy? { webContentFilters.map(\.policy).max() }
}
