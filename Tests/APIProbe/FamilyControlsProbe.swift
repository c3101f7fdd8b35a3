// API probe: Apple's FamilyControls as an app calls it (docs/FRAMEWORKS-API.md). Only members
// that compile against this package's FamilyControls are here; the rest are in not-provided.txt.
import FamilyControls
import ManagedSettings

/// `AuthorizationCenter.shared`
func probe_AuthorizationCenter_shared() {
    let center: AuthorizationCenter = AuthorizationCenter.shared
    _ = center
}

/// `AuthorizationCenter.requestAuthorization(for:)` (`.individual`)
func probe_AuthorizationCenter_requestAuthorization_individual() async throws {
    try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
}

/// `AuthorizationCenter.requestAuthorization(for:)` (`.child`)
func probe_AuthorizationCenter_requestAuthorization_child() async {
    do {
        try await AuthorizationCenter.shared.requestAuthorization(for: .child)
    } catch {
        _ = error
    }
}

/// `AuthorizationCenter.authorizationStatus`
func probe_AuthorizationCenter_authorizationStatus() {
    let status: AuthorizationStatus = AuthorizationCenter.shared.authorizationStatus
    _ = status == .approved
}

/// `AuthorizationStatus.notDetermined`, `.denied`, `.approved`
func probe_AuthorizationStatus_cases(_ status: AuthorizationStatus) {
    switch status {
    case .notDetermined: break
    case .denied: break
    case .approved: break
    @unknown default: break
    }
}

/// `FamilyControlsMember.individual`, `.child`
func probe_FamilyControlsMember_cases() {
    let members: [FamilyControlsMember] = [.individual, .child]
    _ = members
}

/// `FamilyControlsError` (caught from `requestAuthorization(for:)`)
func probe_FamilyControlsError_catch() async {
    do {
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
    } catch let error as FamilyControlsError {
        switch error {
        case .restricted, .unavailable, .invalidAccountType, .invalidArgument, .authorizationConflict,
            .authorizationCanceled, .networkError, .authenticationMethodUnavailable:
            break
        @unknown default: break
        }
    } catch {
        _ = error
    }
}

/// `FamilyControlsError.authorizationCanceled` (matched as a pattern)
func probe_FamilyControlsError_authorizationCanceled() async {
    do {
        try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
    } catch FamilyControlsError.authorizationCanceled {
        return
    } catch {
        _ = error
    }
}

/// `FamilyActivitySelection.init()`
func probe_FamilyActivitySelection_init() {
    let selection = FamilyActivitySelection()
    _ = selection
}

/// `FamilyActivitySelection.init(includeEntireCategory:)`
func probe_FamilyActivitySelection_initIncludeEntireCategory() {
    let selection = FamilyActivitySelection(includeEntireCategory: true)
    _ = selection
}

/// `FamilyActivitySelection.applicationTokens`
func probe_FamilyActivitySelection_applicationTokens(_ selection: FamilyActivitySelection) {
    let store = ManagedSettingsStore()
    store.shield.applications = selection.applicationTokens.isEmpty ? nil : selection.applicationTokens
}

/// `FamilyActivitySelection.categoryTokens`
func probe_FamilyActivitySelection_categoryTokens(_ selection: FamilyActivitySelection) {
    ManagedSettingsStore().shield.applicationCategories = .specific(selection.categoryTokens)
}

/// `FamilyActivitySelection.webDomainTokens`
func probe_FamilyActivitySelection_webDomainTokens(_ selection: FamilyActivitySelection) {
    ManagedSettingsStore().shield.webDomains = selection.webDomainTokens
}

/// `FamilyActivitySelection.applications`
func probe_FamilyActivitySelection_applications(_ selection: FamilyActivitySelection) {
    let apps: Set<Application> = selection.applications
    ManagedSettingsStore().application.blockedApplications = apps
}

/// `FamilyActivitySelection.categories`
func probe_FamilyActivitySelection_categories(_ selection: FamilyActivitySelection) {
    let categories: Set<ActivityCategory> = selection.categories
    _ = categories
}

/// `FamilyActivitySelection.webDomains`
func probe_FamilyActivitySelection_webDomains(_ selection: FamilyActivitySelection) {
    let sites: Set<WebDomain> = selection.webDomains
    _ = sites
}

/// `FamilyActivitySelection.includeEntireCategory`
func probe_FamilyActivitySelection_includeEntireCategory(_ selection: FamilyActivitySelection) {
    let whole: Bool = selection.includeEntireCategory
    _ = whole
}

/// `FamilyActivitySelection` (mutable token sets)
func probe_FamilyActivitySelection_mutate(_ token: ApplicationToken) {
    var selection = FamilyActivitySelection()
    selection.applicationTokens.insert(token)
    selection.categoryTokens = []
    selection.webDomainTokens.removeAll()
}

/// `FamilyActivitySelection` (Codable, stored in the App Group as JSON)
func probe_FamilyActivitySelection_Codable(_ selection: FamilyActivitySelection) throws {
    let data = try JSONEncoder().encode(selection)
    UserDefaults(suiteName: "group.com.example.app")?.set(data, forKey: "selection")
    let back = try JSONDecoder().decode(FamilyActivitySelection.self, from: data)
    _ = back == selection
}

/// `FamilyActivitySelection` (Codable, as a property list)
func probe_FamilyActivitySelection_PropertyList(_ selection: FamilyActivitySelection) throws {
    let data = try PropertyListEncoder().encode(selection)
    _ = try PropertyListDecoder().decode(FamilyActivitySelection.self, from: data)
}

/// `FamilyActivitySelection` (Hashable)
func probe_FamilyActivitySelection_Hashable(_ selection: FamilyActivitySelection) {
    let seen: Set<FamilyActivitySelection> = [selection]
    _ = seen
}
