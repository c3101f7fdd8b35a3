import ScreenTimeModel

/// Apple's `ManagedSettingsGroup`: a group of settings a store holds.
public protocol ManagedSettingsGroup {}

/// How the store reads and writes a group: the record it keeps in the store's file and where.
/// Every value remembers what the store held when it was read (`baseline`), so a write applies
/// only the properties changed since (an app and an extension setting different properties of
/// one group do not undo each other).
protocol StoredSettingsGroup: ManagedSettingsGroup, Equatable {
    associatedtype Record: Hashable
    /// The store's property name: the crash point label's prefix and the report's.
    static var group: String { get }
    init()
    init(_ record: Record)
    /// What a store without a file holds: nothing set.
    static var emptyRecord: Record { get }
    func merged(into current: Record) -> Record
    static func stored(in record: ManagedSettingsStoreRecord) -> Record
    static func store(_ value: Record, in record: inout ManagedSettingsStoreRecord)
    /// Why `value` cannot be written, if it cannot.
    static func refusal(_ value: Record) -> String?
}

/// The groups kept as an optional key of the store's record (all but `shield`).
protocol RecordBackedGroup: StoredSettingsGroup where Record: ManagedSettingsGroupRecord {
    var record: Record { get }
    var baseline: Record? { get }
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, Record?> { get }
}

extension RecordBackedGroup {
    func merged(into current: Record) -> Record {
        guard let base = baseline else { return record }
        return current.applying(changesOf: record, since: base)
    }

    static var emptyRecord: Record { Record() }

    static func stored(in record: ManagedSettingsStoreRecord) -> Record { record[keyPath: key] ?? Record() }

    /// A group with nothing set leaves no key: the file reads as before the group existed.
    static func store(_ value: Record, in record: inout ManagedSettingsStoreRecord) {
        record[keyPath: key] = value.isEmpty ? nil : value
    }

    static func refusal(_ value: Record) -> String? { value.refusal }
}

extension ShieldSettings: StoredSettingsGroup {
    static let group = "shield"
    static var emptyRecord: ShieldSettingsRecord { ShieldSettingsRecord() }
    static func stored(in record: ManagedSettingsStoreRecord) -> ShieldSettingsRecord { record.shield }
    static func store(_ value: ShieldSettingsRecord, in record: inout ManagedSettingsStoreRecord) { record.shield = value }
    static func refusal(_ value: ShieldSettingsRecord) -> String? { nil }
}

// MARK: The groups (every property nil = not set)

/// Apple's `AccountSettings`.
public struct AccountSettings: Sendable, Equatable {
    public var lockAccounts: Bool?

    var baseline: AccountSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: AccountSettingsRecord { AccountSettingsRecord(lockAccounts: lockAccounts) }

    init(_ r: AccountSettingsRecord) {
        lockAccounts = r.lockAccounts
        baseline = r
    }
}

extension AccountSettings: RecordBackedGroup {
    static let group = "account"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, AccountSettingsRecord?> { \.account }
}

/// Apple's `AppStoreSettings`.
public struct AppStoreSettings: Sendable, Equatable {
    public var denyInAppPurchases: Bool?
    /// Apple's scale: 0 none, 100 4+, 200 9+, 300 12+, 600 17+, 1000 all.
    public var maximumRating: Int?
    public var requirePasswordForPurchases: Bool?

    var baseline: AppStoreSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: AppStoreSettingsRecord {
        AppStoreSettingsRecord(
            denyInAppPurchases: denyInAppPurchases, maximumRating: maximumRating, requirePasswordForPurchases: requirePasswordForPurchases)
    }

    init(_ r: AppStoreSettingsRecord) {
        denyInAppPurchases = r.denyInAppPurchases
        maximumRating = r.maximumRating
        requirePasswordForPurchases = r.requirePasswordForPurchases
        baseline = r
    }
}

extension AppStoreSettings: RecordBackedGroup {
    static let group = "appStore"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, AppStoreSettingsRecord?> { \.appStore }
}

/// Apple's `ApplicationSettings`. A blocked application is hidden and cannot be launched.
public struct ApplicationSettings: Sendable, Equatable {
    public var blockedApplications: Set<Application>?
    public var denyAppInstallation: Bool?
    public var denyAppRemoval: Bool?

    var baseline: ApplicationSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: ApplicationSettingsRecord {
        ApplicationSettingsRecord(
            blockedApplications: blockedApplications.map { apps in
                apps.map {
                    ApplicationRecord(bundleIdentifier: $0.bundleIdentifier, localizedDisplayName: $0.localizedDisplayName, token: $0.token?.opaque)
                }.sorted()
            },
            denyAppInstallation: denyAppInstallation, denyAppRemoval: denyAppRemoval)
    }

    init(_ r: ApplicationSettingsRecord) {
        blockedApplications = r.blockedApplications.map { records in
            Set(records.map {
                Application(bundleIdentifier: $0.bundleIdentifier, token: $0.token.map(ApplicationToken.init(opaque:)), localizedDisplayName: $0.localizedDisplayName)
            })
        }
        denyAppInstallation = r.denyAppInstallation
        denyAppRemoval = r.denyAppRemoval
        baseline = r
    }
}

extension ApplicationSettings: RecordBackedGroup {
    static let group = "application"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, ApplicationSettingsRecord?> { \.application }
}

/// Apple's `CellularSettings`.
public struct CellularSettings: Sendable, Equatable {
    public var lockAppCellularData: Bool?
    public var lockCellularPlan: Bool?
    public var lockESIM: Bool?

    var baseline: CellularSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: CellularSettingsRecord {
        CellularSettingsRecord(lockAppCellularData: lockAppCellularData, lockCellularPlan: lockCellularPlan, lockESIM: lockESIM)
    }

    init(_ r: CellularSettingsRecord) {
        lockAppCellularData = r.lockAppCellularData
        lockCellularPlan = r.lockCellularPlan
        lockESIM = r.lockESIM
        baseline = r
    }
}

extension CellularSettings: RecordBackedGroup {
    static let group = "cellular"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, CellularSettingsRecord?> { \.cellular }
}

/// Apple's `DateAndTimeSettings`.
public struct DateAndTimeSettings: Sendable, Equatable {
    public var requireAutomaticDateAndTime: Bool?

    var baseline: DateAndTimeSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: DateAndTimeSettingsRecord { DateAndTimeSettingsRecord(requireAutomaticDateAndTime: requireAutomaticDateAndTime) }

    init(_ r: DateAndTimeSettingsRecord) {
        requireAutomaticDateAndTime = r.requireAutomaticDateAndTime
        baseline = r
    }
}

extension DateAndTimeSettings: RecordBackedGroup {
    static let group = "dateAndTime"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, DateAndTimeSettingsRecord?> { \.dateAndTime }
}

/// Apple's `GameCenterSettings`.
public struct GameCenterSettings: Sendable, Equatable {
    public var denyAddingFriends: Bool?
    public var denyMultiplayerGaming: Bool?

    var baseline: GameCenterSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: GameCenterSettingsRecord {
        GameCenterSettingsRecord(denyAddingFriends: denyAddingFriends, denyMultiplayerGaming: denyMultiplayerGaming)
    }

    init(_ r: GameCenterSettingsRecord) {
        denyAddingFriends = r.denyAddingFriends
        denyMultiplayerGaming = r.denyMultiplayerGaming
        baseline = r
    }
}

extension GameCenterSettings: RecordBackedGroup {
    static let group = "gameCenter"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, GameCenterSettingsRecord?> { \.gameCenter }
}

/// Apple's `MediaSettings`.
public struct MediaSettings: Sendable, Equatable {
    public var denyBookstoreErotica: Bool?
    public var denyExplicitContent: Bool?
    public var denyMusicService: Bool?
    /// Apple's scale: 0 none, 100 G, 200 PG, 300 PG-13, 400 R, 500 NC-17, 1000 all.
    public var maximumMovieRating: Int?
    /// Apple's scale: 0 none, 100 TV-Y, 200 TV-Y7, 300 TV-G, 400 TV-PG, 500 TV-14, 600 TV-MA, 1000 all.
    public var maximumTVShowRating: Int?

    var baseline: MediaSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: MediaSettingsRecord {
        MediaSettingsRecord(
            denyBookstoreErotica: denyBookstoreErotica, denyExplicitContent: denyExplicitContent, denyMusicService: denyMusicService,
            maximumMovieRating: maximumMovieRating, maximumTVShowRating: maximumTVShowRating)
    }

    init(_ r: MediaSettingsRecord) {
        denyBookstoreErotica = r.denyBookstoreErotica
        denyExplicitContent = r.denyExplicitContent
        denyMusicService = r.denyMusicService
        maximumMovieRating = r.maximumMovieRating
        maximumTVShowRating = r.maximumTVShowRating
        baseline = r
    }
}

extension MediaSettings: RecordBackedGroup {
    static let group = "media"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, MediaSettingsRecord?> { \.media }
}

/// Apple's `PasscodeSettings`.
public struct PasscodeSettings: Sendable, Equatable {
    public var lockPasscode: Bool?

    var baseline: PasscodeSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: PasscodeSettingsRecord { PasscodeSettingsRecord(lockPasscode: lockPasscode) }

    init(_ r: PasscodeSettingsRecord) {
        lockPasscode = r.lockPasscode
        baseline = r
    }
}

extension PasscodeSettings: RecordBackedGroup {
    static let group = "passcode"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, PasscodeSettingsRecord?> { \.passcode }
}

/// Apple's `SafariSettings`.
public struct SafariSettings: Sendable, Equatable {
    /// Apple's `SafariSettings.CookiePolicy`: the one definition in ScreenTimeModel, so the OS
    /// reads the same cases. Ordered from the most to the least restrictive.
    public typealias CookiePolicy = SafariCookiePolicy

    public var cookiePolicy: CookiePolicy?
    public var denyAutoFill: Bool?

    var baseline: SafariSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: SafariSettingsRecord { SafariSettingsRecord(cookiePolicy: cookiePolicy, denyAutoFill: denyAutoFill) }

    init(_ r: SafariSettingsRecord) {
        cookiePolicy = r.cookiePolicy
        denyAutoFill = r.denyAutoFill
        baseline = r
    }
}

extension SafariSettings: RecordBackedGroup {
    static let group = "safari"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, SafariSettingsRecord?> { \.safari }
}

/// Apple's `SiriSettings`.
public struct SiriSettings: Sendable, Equatable {
    public var denySiri: Bool?

    var baseline: SiriSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    var record: SiriSettingsRecord { SiriSettingsRecord(denySiri: denySiri) }

    init(_ r: SiriSettingsRecord) {
        denySiri = r.denySiri
        baseline = r
    }
}

extension SiriSettings: RecordBackedGroup {
    static let group = "siri"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, SiriSettingsRecord?> { \.siri }
}

/// Apple's `WebContentSettings`.
public struct WebContentSettings: Sendable, Equatable {
    /// Any policy but `.none` also turns off Safari's private browsing (Apple).
    public var blockedByFilter: FilterPolicy?

    var baseline: WebContentSettingsRecord?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.record == b.record }

    /// Apple's `WebContentSettings.FilterPolicy` (Apple: up to 50 domains and 50 exceptions).
    public enum FilterPolicy: Equatable, Sendable {
        /// Blocks nothing.
        case none
        /// Blocks every site except these.
        case all(except: Set<WebDomain> = [])
        /// Blocks adult content and these domains, except these (the exceptions win over both).
        case auto(_ domains: Set<WebDomain> = [], except: Set<WebDomain> = [])
        /// Blocks these domains.
        case specific(_ domains: Set<WebDomain>)

        var record: WebFilterPolicyRecord {
            switch self {
            case .none: WebFilterPolicyRecord(policy: .none)
            case .all(let except): WebFilterPolicyRecord(policy: .all, except: Self.records(except))
            case .auto(let domains, let except): WebFilterPolicyRecord(policy: .auto, domains: Self.records(domains), except: Self.records(except))
            case .specific(let domains): WebFilterPolicyRecord(policy: .specific, domains: Self.records(domains))
            }
        }

        init(_ r: WebFilterPolicyRecord) {
            let domains = Self.domains(r.domains)
            let except = Self.domains(r.except)
            switch r.policy {
            case .none: self = .none
            case .all: self = .all(except: except)
            case .auto: self = .auto(domains, except: except)
            case .specific: self = .specific(domains)
            }
        }

        static func records(_ domains: Set<WebDomain>) -> [WebDomainRecord] {
            domains.map { WebDomainRecord(domain: $0.domain, token: $0.token?.opaque) }.sorted()
        }

        static func domains(_ records: [WebDomainRecord]) -> Set<WebDomain> {
            Set(records.map { WebDomain(domain: $0.domain, token: $0.token.map(WebDomainToken.init(opaque:))) })
        }
    }

    var record: WebContentSettingsRecord { WebContentSettingsRecord(blockedByFilter: blockedByFilter?.record) }

    init(_ r: WebContentSettingsRecord) {
        blockedByFilter = r.blockedByFilter.map(FilterPolicy.init)
        baseline = r
    }
}

extension WebContentSettings: RecordBackedGroup {
    static let group = "webContent"
    static var key: WritableKeyPath<ManagedSettingsStoreRecord, WebContentSettingsRecord?> { \.webContent }
}
