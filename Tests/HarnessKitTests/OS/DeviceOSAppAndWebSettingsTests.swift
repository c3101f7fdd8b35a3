import Foundation
import HarnessKit
import ScreenTimeModel
import SystemKit
import Testing

/// ManagedSettings' `application.denyAppRemoval`/`denyAppInstallation` and `webContent`
/// filters in the pure OS: what the user can no longer do (EMULATED-IOS.md §7.2).
@Suite(.timeLimit(.minutes(1))) struct DeviceOSAppAndWebSettingsTests {
    static func has(_ effects: [OSEffect], _ event: String, _ fields: [String: String] = [:]) -> Bool {
        DeviceOSAuthorizationTests.has(effects, event, fields)
    }

    static func settings(denyRemoval: Bool? = nil, denyInstallation: Bool? = nil, filters: [WebFilterPolicyRecord] = []) -> OSEvent {
        var u = ManagedSettingsUnion()
        u.application.denyAppRemoval = denyRemoval
        u.application.denyAppInstallation = denyInstallation
        u.webContentFilters = filters
        return .managedSettings(u)
    }

    static func domains(_ names: String...) -> [WebDomainRecord] { names.map { WebDomainRecord(domain: $0) } }

    @Test func aDeniedRemovalKeepsTheAppAndAnAllowedOneDeletesItUntilInstalled() {
        var os = DeviceOSAuthorizationTests.os()
        _ = os.apply(Self.settings(denyRemoval: true))
        #expect(Self.has(os.apply(.user(.deleteApp(bundleIdentifier: "com.game"))), "app_removal_denied", ["app": "com.game"]))
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 60, label: [:]))), "app_in_use", ["app": "com.game"]))
        // The store lets go: the delete goes through, and the app does not open until installed.
        _ = os.apply(Self.settings())
        _ = os.apply(.clock(now: os.now + 120))
        #expect(Self.has(os.apply(.user(.deleteApp(bundleIdentifier: "com.game"))), "app_deleted", ["app": "com.game"]))
        let open = os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 60, label: ["n": "2"])))
        #expect(Self.has(open, "app_not_installed", ["app": "com.game", "n": "2"]))
        #expect(!Self.has(open, "app_in_use"), "a deleted app is not in use: its time counts toward no event")
        // Installing is refused while a store denies it, allowed after.
        _ = os.apply(Self.settings(denyInstallation: true))
        #expect(Self.has(os.apply(.user(.installApp(bundleIdentifier: "com.game"))), "app_install_denied", ["app": "com.game"]))
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 60, label: [:]))), "app_not_installed"))
        _ = os.apply(Self.settings())
        #expect(Self.has(os.apply(.user(.installApp(bundleIdentifier: "com.game"))), "app_installed", ["app": "com.game"]))
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 60, label: [:]))), "app_in_use", ["app": "com.game"]))
    }

    @Test func anAppInUseThatIsDeletedIsClosed() {
        var os = DeviceOSAuthorizationTests.os()
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 600, label: [:])))
        #expect(Self.has(os.apply(.user(.deleteApp(bundleIdentifier: "com.game"))), "app_deleted"))
        // The home screen is in front: another app opens, and nothing is left in use.
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.notes", seconds: 60, label: [:]))), "app_in_use", ["app": "com.notes"]))
        #expect(Self.has(os.apply(.user(.deleteApp(bundleIdentifier: "com.game"))), "app_not_installed", ["why": "delete"]))
    }

    @Test func eachStoresWebFilterBlocksOnItsOwn() {
        var os = DeviceOSAuthorizationTests.os()
        func visit(_ d: String, adult: Bool = false) -> [OSEffect] { os.apply(.user(.visitWebsite(domain: d, adult: adult))) }
        #expect(Self.has(visit("news.example"), "website_visited", ["domain": "news.example"]))
        _ = os.apply(Self.settings(filters: [
            WebFilterPolicyRecord(policy: .specific, domains: Self.domains("games.example")),
            WebFilterPolicyRecord(policy: .auto, domains: Self.domains("social.example"), except: Self.domains("news.example")),
        ]))
        #expect(Self.has(visit("games.example"), "website_blocked", ["domain": "games.example", "by": "webContent"]))
        #expect(Self.has(visit("m.games.example"), "website_blocked"), "a subdomain falls under its domain")
        #expect(Self.has(visit("Social.Example"), "website_blocked", ["domain": "social.example"]), "domains compare without case")
        #expect(Self.has(visit("adult.example", adult: true), "website_blocked"), "auto blocks adult content")
        #expect(Self.has(visit("news.example"), "website_visited"), "auto's exception")
        // One store's exception does not lift another store's block.
        _ = os.apply(Self.settings(filters: [
            WebFilterPolicyRecord(policy: .all, except: Self.domains("games.example")),
            WebFilterPolicyRecord(policy: .specific, domains: Self.domains("games.example")),
        ]))
        #expect(Self.has(visit("games.example"), "website_blocked"))
        #expect(Self.has(visit("anything.example"), "website_blocked"))
        _ = os.apply(Self.settings())
        #expect(Self.has(visit("games.example"), "website_visited"))
    }

    @Test func aShieldedWebDomainIsBlockedByTheShield() {
        var os = DeviceOSAuthorizationTests.os()
        var shield = ShieldUnion()
        shield.webDomains = ["video.example"]
        _ = os.apply(.shields(shield))
        #expect(Self.has(os.apply(.user(.visitWebsite(domain: "www.video.example", adult: false))), "website_blocked", ["by": "shield"]))
        #expect(Self.has(os.apply(.user(.visitWebsite(domain: "other.example", adult: false))), "website_visited"))
    }

    @Test func withoutFamilyControlsApprovalTheSettingsAreIgnored() {
        var os = DeviceOSAuthorizationTests.os(familyControls: "approved")
        _ = os.apply(.boot)
        let effects = os.apply(Self.settings(denyRemoval: true, filters: [WebFilterPolicyRecord(policy: .all)]))
        #expect(Self.has(effects, "managed_settings_ignored", ["why": "not authorized"]))
        #expect(Self.has(os.apply(.user(.deleteApp(bundleIdentifier: "com.game"))), "app_deleted"))
        #expect(Self.has(os.apply(.user(.visitWebsite(domain: "x.example", adult: false))), "website_visited"))
    }
}
