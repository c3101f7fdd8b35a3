// API probe: Apple's ManagedSettings as an app and its extensions call it (docs/FRAMEWORKS-API.md).
// Only members that compile against this package's ManagedSettings are here; the rest are in
// not-provided.txt. Typechecked, never run: the probes take tokens as parameters, as app code gets
// them from a FamilyActivitySelection or the OS.
import ManagedSettings

/// `ManagedSettingsStore.init()`
func probe_ManagedSettingsStore_init() {
    let store = ManagedSettingsStore()
    _ = store
}

/// `ManagedSettingsStore.init(named:)`
func probe_ManagedSettingsStore_initNamed() {
    let store = ManagedSettingsStore(named: ManagedSettingsStore.Name("evening"))
    _ = store
}

/// `ManagedSettingsStore.Name.init(_:)`
func probe_ManagedSettingsStore_Name_init() {
    let name = ManagedSettingsStore.Name("focus")
    _ = ManagedSettingsStore(named: name)
}

/// `ManagedSettingsStore.Name.init(rawValue:)`
func probe_ManagedSettingsStore_Name_initRawValue() {
    let name = ManagedSettingsStore.Name(rawValue: "focus")
    _ = name
}

/// `ManagedSettingsStore.Name.rawValue`
func probe_ManagedSettingsStore_Name_rawValue() {
    let raw: String = ManagedSettingsStore.Name("focus").rawValue
    _ = raw
}

/// `ManagedSettingsStore.Name.default`
func probe_ManagedSettingsStore_Name_default() {
    let store = ManagedSettingsStore(named: .default)
    _ = store
}

/// `ManagedSettingsStore.Name` (extended with a static name, as Apple's sample code does)
extension ManagedSettingsStore.Name {
    static let probeSocial = Self("social")
}

/// `ManagedSettingsStore.Name` (Hashable: names in a Set or as dictionary keys)
func probe_ManagedSettingsStore_Name_Hashable() {
    let names: Set<ManagedSettingsStore.Name> = [.default, ManagedSettingsStore.Name("social")]
    _ = names
}

/// `ManagedSettingsStore.clearAllSettings()`
func probe_ManagedSettingsStore_clearAllSettings() {
    ManagedSettingsStore().clearAllSettings()
}

/// `ManagedSettingsStore.shield`
func probe_ManagedSettingsStore_shield() {
    let store = ManagedSettingsStore()
    let shield: ShieldSettings = store.shield
    _ = shield
}

/// `ShieldSettings.applications`
func probe_ShieldSettings_applications(_ tokens: Set<ApplicationToken>) {
    let store = ManagedSettingsStore()
    store.shield.applications = tokens.isEmpty ? nil : tokens
    let current: Set<ApplicationToken>? = store.shield.applications
    _ = current
}

/// `ShieldSettings.applicationCategories`
func probe_ShieldSettings_applicationCategories(_ categories: Set<ActivityCategoryToken>) {
    let store = ManagedSettingsStore()
    store.shield.applicationCategories = .specific(categories)
    let current: ShieldSettings.ActivityCategoryPolicy<Application>? = store.shield.applicationCategories
    _ = current
}

/// `ShieldSettings.webDomains`
func probe_ShieldSettings_webDomains(_ tokens: Set<WebDomainToken>) {
    let store = ManagedSettingsStore()
    store.shield.webDomains = tokens
    store.shield.webDomains = nil
}

/// `ShieldSettings.webDomainCategories`
func probe_ShieldSettings_webDomainCategories() {
    let store = ManagedSettingsStore()
    store.shield.webDomainCategories = .all()
    let current: ShieldSettings.ActivityCategoryPolicy<WebDomain>? = store.shield.webDomainCategories
    _ = current
}

/// `ShieldSettings.init()`
func probe_ShieldSettings_init() {
    var settings = ShieldSettings()
    settings.applications = nil
    ManagedSettingsStore().shield = settings
}

/// `ShieldSettings.ActivityCategoryPolicy.all(except:)`
func probe_ShieldSettings_ActivityCategoryPolicy_all(_ allowed: Set<ApplicationToken>) {
    let store = ManagedSettingsStore()
    store.shield.applicationCategories = .all(except: allowed)
    store.shield.applicationCategories = .all()
    store.shield.applicationCategories = ShieldSettings.ActivityCategoryPolicy.all(except: allowed)
}

/// `ShieldSettings.ActivityCategoryPolicy.specific(_:except:)`
func probe_ShieldSettings_ActivityCategoryPolicy_specific(_ categories: Set<ActivityCategoryToken>, _ allowed: Set<ApplicationToken>) {
    ManagedSettingsStore().shield.applicationCategories = .specific(categories, except: allowed)
}

/// `ShieldSettings.ActivityCategoryPolicy.none`
func probe_ShieldSettings_ActivityCategoryPolicy_none() {
    ManagedSettingsStore().shield.applicationCategories = ShieldSettings.ActivityCategoryPolicy<Application>.none
}

/// `ShieldSettings.ActivityCategoryPolicy` (matching its cases)
func probe_ShieldSettings_ActivityCategoryPolicy_match() {
    guard let policy = ManagedSettingsStore().shield.applicationCategories else { return }
    switch policy {
    case .all(let except): _ = except.count
    case .specific(let categories, let except): _ = (categories.count, except.count)
    case .none: break
    @unknown default: break
    }
}

/// `ShieldSettings.ActivityCategoryPolicy` (Equatable)
func probe_ShieldSettings_ActivityCategoryPolicy_Equatable() {
    let isAll = ManagedSettingsStore().shield.applicationCategories == .all()
    _ = isAll
}

/// `ApplicationToken` (Hashable, in a Set)
func probe_ApplicationToken_Hashable(_ token: ApplicationToken) {
    let tokens: Set<ApplicationToken> = [token]
    _ = tokens.contains(token)
}

/// `ApplicationToken` (Codable, saved as JSON)
func probe_ApplicationToken_Codable(_ token: ApplicationToken) throws {
    let data = try JSONEncoder().encode(token)
    let back = try JSONDecoder().decode(ApplicationToken.self, from: data)
    _ = back == token
}

/// `ActivityCategoryToken` (Codable, saved as a property list)
func probe_ActivityCategoryToken_Codable(_ token: ActivityCategoryToken) throws {
    let data = try PropertyListEncoder().encode([token])
    let back = try PropertyListDecoder().decode([ActivityCategoryToken].self, from: data)
    _ = back
}

/// `WebDomainToken` (Codable, Hashable)
func probe_WebDomainToken_Codable(_ token: WebDomainToken) throws {
    let data = try JSONEncoder().encode(Set([token]))
    _ = try JSONDecoder().decode(Set<WebDomainToken>.self, from: data)
}

/// `Token` (the generic type the token aliases name)
func probe_Token_generic(_ token: Token<Application>) {
    let same: ApplicationToken = token
    _ = same
}

/// `Application.init(bundleIdentifier:)`
func probe_Application_initBundleIdentifier() {
    let app = Application(bundleIdentifier: "com.example.game")
    _ = app
}

/// `Application.init(token:)`
func probe_Application_initToken(_ token: ApplicationToken) {
    let app = Application(token: token)
    _ = app
}

/// `Application.bundleIdentifier`
func probe_Application_bundleIdentifier(_ app: Application) {
    let id: String? = app.bundleIdentifier
    _ = id
}

/// `Application.token`
func probe_Application_token(_ app: Application) {
    let token: ApplicationToken? = app.token
    _ = token
}

/// `Application.localizedDisplayName`
func probe_Application_localizedDisplayName(_ app: Application) {
    let name: String = app.localizedDisplayName ?? "this app"
    _ = name
}

/// `Application` (Hashable)
func probe_Application_Hashable(_ app: Application) {
    let apps: Set<Application> = [app]
    _ = apps
}

/// `ActivityCategory.init(token:)`
func probe_ActivityCategory_initToken(_ token: ActivityCategoryToken) {
    let category = ActivityCategory(token: token)
    _ = category
}

/// `ActivityCategory.token`
func probe_ActivityCategory_token(_ category: ActivityCategory) {
    let token: ActivityCategoryToken? = category.token
    _ = token
}

/// `ActivityCategory.localizedDisplayName`
func probe_ActivityCategory_localizedDisplayName(_ category: ActivityCategory) {
    let name: String? = category.localizedDisplayName
    _ = name
}

/// `WebDomain.init(domain:)`
func probe_WebDomain_initDomain() {
    let site = WebDomain(domain: "example.com")
    _ = site
}

/// `WebDomain.init(token:)`
func probe_WebDomain_initToken(_ token: WebDomainToken) {
    let site = WebDomain(token: token)
    _ = site
}

/// `WebDomain.domain`
func probe_WebDomain_domain(_ site: WebDomain) {
    let domain: String? = site.domain
    _ = domain
}

/// `WebDomain.token`
func probe_WebDomain_token(_ site: WebDomain) {
    let token: WebDomainToken? = site.token
    _ = token
}

/// `ShieldAction.primaryButtonPressed`, `ShieldAction.secondaryButtonPressed`
func probe_ShieldAction_cases(_ action: ShieldAction) {
    switch action {
    case .primaryButtonPressed: break
    case .secondaryButtonPressed: break
    @unknown default: break
    }
}

/// `ShieldActionResponse.close`, `.defer`, `.none`
func probe_ShieldActionResponse_cases() {
    let responses: [ShieldActionResponse] = [.close, .defer, .none]
    _ = responses
}

/// `ShieldActionDelegate.init()`
func probe_ShieldActionDelegate_init() {
    final class Handler: ShieldActionDelegate {
        override init() { super.init() }
    }
    _ = Handler()
}

/// `ShieldActionDelegate.handle(action:for:completionHandler:)` (an application)
func probe_ShieldActionDelegate_handleApplication() {
    final class Handler: ShieldActionDelegate {
        override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
            switch action {
            case .primaryButtonPressed: completionHandler(.close)
            case .secondaryButtonPressed: completionHandler(.defer)
            @unknown default: fatalError()
            }
        }
    }
    _ = Handler()
}

/// `ShieldActionDelegate.handle(action:for:completionHandler:)` (a web domain)
func probe_ShieldActionDelegate_handleWebDomain() {
    final class Handler: ShieldActionDelegate {
        override func handle(action: ShieldAction, for webDomain: WebDomainToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
            completionHandler(.close)
        }
    }
    _ = Handler()
}

/// `ShieldActionDelegate.handle(action:for:completionHandler:)` (a category)
func probe_ShieldActionDelegate_handleCategory() {
    final class Handler: ShieldActionDelegate {
        override func handle(action: ShieldAction, for category: ActivityCategoryToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
            completionHandler(.none)
        }
    }
    _ = Handler()
}

/// `ShieldActionDelegate` (the handler writes a store, then answers)
func probe_ShieldActionDelegate_unshield() {
    final class Handler: ShieldActionDelegate {
        let store = ManagedSettingsStore()
        override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
            store.shield.applications?.remove(application)
            completionHandler(.defer)
        }
    }
    _ = Handler()
}

/// `ManagedSettingsStore.application` / `ApplicationSettings.blockedApplications`
func probe_ApplicationSettings_blockedApplications(_ token: ApplicationToken) {
    let store = ManagedSettingsStore()
    store.application.blockedApplications = [Application(token: token)]
}

/// `ApplicationSettings.denyAppRemoval`
func probe_ApplicationSettings_denyAppRemoval() {
    ManagedSettingsStore().application.denyAppRemoval = true
}

/// `ApplicationSettings.denyAppInstallation`
func probe_ApplicationSettings_denyAppInstallation() {
    ManagedSettingsStore().application.denyAppInstallation = true
}

/// `ManagedSettingsStore.appStore` / `AppStoreSettings.denyInAppPurchases`
func probe_AppStoreSettings_denyInAppPurchases() {
    ManagedSettingsStore().appStore.denyInAppPurchases = true
}

/// `AppStoreSettings.maximumRating`
func probe_AppStoreSettings_maximumRating() {
    ManagedSettingsStore().appStore.maximumRating = 200
}

/// `AppStoreSettings.requirePasswordForPurchases`
func probe_AppStoreSettings_requirePasswordForPurchases() {
    ManagedSettingsStore().appStore.requirePasswordForPurchases = true
}

/// `ManagedSettingsStore.media` / `MediaSettings.denyExplicitContent`
func probe_MediaSettings_denyExplicitContent() {
    ManagedSettingsStore().media.denyExplicitContent = true
}

/// `MediaSettings.maximumMovieRating`, `MediaSettings.maximumTVShowRating`
func probe_MediaSettings_ratings() {
    let store = ManagedSettingsStore()
    store.media.maximumMovieRating = 300
    store.media.maximumTVShowRating = 400
}

/// `MediaSettings.denyMusicService`, `MediaSettings.denyBookstoreErotica`
func probe_MediaSettings_denyMusicService() {
    let store = ManagedSettingsStore()
    store.media.denyMusicService = true
    store.media.denyBookstoreErotica = true
}

/// `ManagedSettingsStore.webContent` / `WebContentSettings.blockedByFilter` with `.specific(_:)`
func probe_WebContentSettings_blockedByFilter_specific() {
    ManagedSettingsStore().webContent.blockedByFilter = .specific([WebDomain(domain: "example.com")])
}

/// `WebContentSettings.FilterPolicy.auto(_:except:)`
func probe_WebContentSettings_FilterPolicy_auto() {
    ManagedSettingsStore().webContent.blockedByFilter = .auto([WebDomain(domain: "example.com")], except: [])
}

/// `WebContentSettings.FilterPolicy.all(except:)`
func probe_WebContentSettings_FilterPolicy_all() {
    ManagedSettingsStore().webContent.blockedByFilter = .all(except: [WebDomain(domain: "example.org")])
}

/// `WebContentSettings.FilterPolicy.none`
func probe_WebContentSettings_FilterPolicy_none() {
    ManagedSettingsStore().webContent.blockedByFilter = WebContentSettings.FilterPolicy.none
}

/// `ManagedSettingsStore.safari` / `SafariSettings.cookiePolicy`
func probe_SafariSettings_cookiePolicy() {
    ManagedSettingsStore().safari.cookiePolicy = .never
}

/// `SafariSettings.denyAutoFill`
func probe_SafariSettings_denyAutoFill() {
    ManagedSettingsStore().safari.denyAutoFill = true
}

/// `ManagedSettingsStore.passcode` / `PasscodeSettings.lockPasscode`
func probe_PasscodeSettings_lockPasscode() {
    ManagedSettingsStore().passcode.lockPasscode = true
}

/// `ManagedSettingsStore.account` / `AccountSettings.lockAccounts`
func probe_AccountSettings_lockAccounts() {
    ManagedSettingsStore().account.lockAccounts = true
}

/// `ManagedSettingsStore.cellular` / `CellularSettings.lockAppCellularData`
func probe_CellularSettings_lockAppCellularData() {
    ManagedSettingsStore().cellular.lockAppCellularData = true
}

/// `ManagedSettingsStore.dateAndTime` / `DateAndTimeSettings.requireAutomaticDateAndTime`
func probe_DateAndTimeSettings_requireAutomaticDateAndTime() {
    ManagedSettingsStore().dateAndTime.requireAutomaticDateAndTime = true
}

/// `ManagedSettingsStore.gameCenter` / `GameCenterSettings.denyMultiplayerGaming`
func probe_GameCenterSettings_denyMultiplayerGaming() {
    ManagedSettingsStore().gameCenter.denyMultiplayerGaming = true
}

/// `ManagedSettingsStore.siri` / `SiriSettings.denySiri`
func probe_SiriSettings_denySiri() {
    ManagedSettingsStore().siri.denySiri = true
}

/// `ManagedSettingsGroup`
func probe_ManagedSettingsGroup() {
    let group: any ManagedSettingsGroup = ManagedSettingsStore().shield
    _ = group
}
