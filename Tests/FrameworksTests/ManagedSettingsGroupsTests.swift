import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ScreenTimeModel
import ScreenTimeOS
import OSFiles
import Testing

/// `ManagedSettingsStore`'s groups besides `shield`: each through the store's one file, the
/// stores' union as the OS reads it, writers that do not undo each other, old and bad files.
@Suite(.timeLimit(.minutes(1))) struct ManagedSettingsGroupsTests {
    func app(_ id: String) -> ApplicationToken { ApplicationToken(bundleIdentifier: id) }

    /// Every property of every group set by one process is what another process's store of the
    /// same name reads back; tokens stay opaque on disk.
    @Test func everyGroupRoundTripsThroughTheStoresFile() throws {
        let t = try TestDevice()
        let store = ManagedSettingsStore(named: .init("limits"), device: t.device)
        store.account.lockAccounts = true
        store.appStore.denyInAppPurchases = true
        store.appStore.maximumRating = 300
        store.appStore.requirePasswordForPurchases = false
        store.application.blockedApplications = [Application(token: app("com.game.token")), Application(bundleIdentifier: "com.video")]
        store.application.denyAppInstallation = false
        store.application.denyAppRemoval = true
        store.cellular.lockAppCellularData = true
        store.cellular.lockCellularPlan = false
        store.cellular.lockESIM = true
        store.dateAndTime.requireAutomaticDateAndTime = true
        store.gameCenter.denyAddingFriends = true
        store.gameCenter.denyMultiplayerGaming = false
        store.media.denyBookstoreErotica = true
        store.media.denyExplicitContent = false
        store.media.denyMusicService = true
        store.media.maximumMovieRating = 200
        store.media.maximumTVShowRating = 400
        store.passcode.lockPasscode = true
        store.safari.cookiePolicy = .currentWebsite
        store.safari.denyAutoFill = true
        store.siri.denySiri = false
        let auto = WebContentSettings.FilterPolicy.auto(
            [WebDomain(domain: "bad.example")], except: [WebDomain(token: WebDomainToken(domain: "ok.example"))])
        store.webContent.blockedByFilter = auto

        let other = ManagedSettingsStore(named: .init("limits"), device: try t.otherProcess("monitor-extension"))
        #expect(other.account.lockAccounts == true)
        let appStore = other.appStore
        #expect(appStore.denyInAppPurchases == true && appStore.maximumRating == 300 && appStore.requirePasswordForPurchases == false)
        let application = other.application
        #expect(application.blockedApplications == [Application(token: app("com.game.token")), Application(bundleIdentifier: "com.video")])
        #expect(application.denyAppInstallation == false && application.denyAppRemoval == true)
        let cellular = other.cellular
        #expect(cellular.lockAppCellularData == true && cellular.lockCellularPlan == false && cellular.lockESIM == true)
        #expect(other.dateAndTime.requireAutomaticDateAndTime == true)
        #expect(other.gameCenter.denyAddingFriends == true && other.gameCenter.denyMultiplayerGaming == false)
        let media = other.media
        #expect(media.denyBookstoreErotica == true && media.denyExplicitContent == false && media.denyMusicService == true)
        #expect(media.maximumMovieRating == 200 && media.maximumTVShowRating == 400)
        #expect(other.passcode.lockPasscode == true)
        #expect(other.safari.cookiePolicy == .currentWebsite && other.safari.denyAutoFill == true)
        #expect(other.siri.denySiri == false)
        #expect(other.webContent.blockedByFilter == auto)
        #expect(other.shield == ShieldSettings(), "no group spills into another")

        let file = try #require(t.file("system/managedsettings/limits.json"))
        #expect(file.contains("\"account\":{\"lockAccounts\":true}"))
        #expect(file.contains("\"safari\":{\"cookiePolicy\":\"currentWebsite\",\"denyAutoFill\":true}"))
        #expect(!file.contains("com.game.token") && !file.contains("ok.example"), "tokens are opaque on disk")
        #expect(file.contains("\"bundleIdentifier\":\"com.video\""), "an Application made from a bundle id keeps it")

        // The other filter policies, and nil unsets a property (its key goes, the group's with it).
        for policy: WebContentSettings.FilterPolicy in [.none, .all(), .all(except: [WebDomain(domain: "ok.example")]),
                                                        .specific([WebDomain(domain: "a.example"), WebDomain(domain: "b.example")])] {
            store.webContent.blockedByFilter = policy
            #expect(other.webContent.blockedByFilter == policy)
        }
        store.webContent.blockedByFilter = nil
        store.account.lockAccounts = nil
        #expect(other.webContent.blockedByFilter == nil && other.account.lockAccounts == nil)
        let after = try #require(t.file("system/managedsettings/limits.json"))
        #expect(!after.contains("\"webContent\"") && !after.contains("\"account\""))
        #expect(other.passcode.lockPasscode == true, "the other groups are kept")

        store.clearAllSettings()
        #expect(!t.exists("system/managedsettings/limits.json"))
        #expect(other.application == ApplicationSettings() && other.media == MediaSettings() && other.safari == SafariSettings())
    }

    /// Two named stores: the OS applies the most restrictive of what they say.
    @Test func theUnionOfTwoStoresIsTheMostRestrictive() throws {
        let t = try TestDevice()
        let a = ManagedSettingsStore(named: .init("focus"), device: t.device)
        let b = ManagedSettingsStore(named: .init("bedtime"), device: try t.otherProcess("monitor-extension"))
        a.application.blockedApplications = [Application(token: app("com.a"))]
        a.application.denyAppRemoval = false
        a.media.maximumMovieRating = 400
        a.safari.cookiePolicy = .always
        a.dateAndTime.requireAutomaticDateAndTime = false
        a.webContent.blockedByFilter = .specific([WebDomain(domain: "x.example")])
        b.application.blockedApplications = [Application(bundleIdentifier: "com.b"), Application(token: app("com.a"))]
        b.application.denyAppRemoval = true
        b.media.maximumMovieRating = 200
        b.media.maximumTVShowRating = 500
        b.safari.cookiePolicy = .visitedWebsites
        b.webContent.blockedByFilter = .all(except: [WebDomain(domain: "x.example"), WebDomain(token: WebDomainToken(domain: "ok.example"))])

        let (u, errors) = ManagedSettingsReader.union(on: t.device)
        #expect(errors.isEmpty)
        #expect(u.blockedApplications == ["com.a", "com.b"])
        #expect(u.isBlocked(application: "com.b") && !u.isBlocked(application: "com.c"))
        #expect(u.application.denyAppRemoval == true, "true in one store wins over false in another")
        #expect(u.application.denyAppInstallation == nil, "no store set it")
        #expect(u.dateAndTime.requireAutomaticDateAndTime == false, "set, and no store says true")
        #expect(u.media.maximumMovieRating == 200 && u.media.maximumTVShowRating == 500)
        #expect(u.safari.cookiePolicy == .visitedWebsites)
        #expect(u.account == AccountSettingsRecord())
        #expect(u.webContentFilterKind == .all)
        // Each store's exceptions lift only its own filter: bedtime excepts x.example, focus blocks it.
        #expect(u.isBlocked(webDomain: "x.example"))
        #expect(u.isBlocked(webDomain: "news.example"))
        #expect(!u.isBlocked(webDomain: "ok.example"), "excepted by the only store that blocks it")
        #expect(u.unknownTokens.isEmpty)

        let blocked = ManagedSettingsReader.blockedApplications(on: t.device)
        #expect(blocked.bundleIdentifiers == ["com.a", "com.b"] && blocked.unknownTokens.isEmpty && blocked.errors.isEmpty)

        // A store stops blocking: the union follows.
        b.application.blockedApplications = nil
        #expect(ManagedSettingsReader.blockedApplications(on: t.device).bundleIdentifiers == ["com.a"])
        b.clearAllSettings()
        let left = ManagedSettingsReader.union(on: t.device).union
        #expect(left.application.denyAppRemoval == false && left.media.maximumMovieRating == 400 && left.webContentFilterKind == .specific)
    }

    /// `auto` blocks what the OS calls adult and its own domains, less its exceptions; a token the
    /// OS never issued is kept as unknown, not dropped.
    @Test func autoFiltersAdultContentAndUnknownTokensAreKept() {
        var r = ManagedSettingsStoreRecord(store: "s", shield: ShieldSettingsRecord(), writtenAt: Date(timeIntervalSince1970: 0), writtenBy: WriterRecord(pid: 1, process: "p"))
        r.webContent = WebContentSettingsRecord(blockedByFilter: WebFilterPolicyRecord(
            policy: .auto, domains: [WebDomainRecord(domain: "casino.example")], except: [WebDomainRecord(domain: "health.example")]))
        r.application = ApplicationSettingsRecord(
            blockedApplications: [ApplicationRecord(token: "bogus"), ApplicationRecord(token: OpaqueToken.encode(.application, "com.x"))],
            denyAppInstallation: nil, denyAppRemoval: nil)
        let u = ManagedSettingsUnion([r])
        #expect(u.isBlocked(webDomain: "adult.example", adult: true))
        #expect(!u.isBlocked(webDomain: "news.example", adult: false))
        #expect(u.isBlocked(webDomain: "casino.example") && u.isBlocked(webDomain: "www.casino.example"))
        #expect(!u.isBlocked(webDomain: "health.example", adult: true), "an exception wins over the adult filter")
        #expect(u.blockedApplications == ["com.x"] && u.unknownTokens == ["bogus"])
        #expect(ManagedSettingsUnion([]).webContentFilterKind == nil && !ManagedSettingsUnion([]).isBlocked(webDomain: "a.example", adult: true))
    }

    /// The app reads a group, an extension then changes other properties of it (sets one from
    /// nothing, changes one, clears one), and the app writes back from its stale read: only what
    /// the app changed lands. Neither does a write of one group put back another group.
    @Test func anAppAndAnExtensionSettingDifferentPropertiesOfOneGroupDoNotUndoEachOther() throws {
        let t = try TestDevice()
        let app = ManagedSettingsStore(named: .init("focus"), device: t.device)
        let ext = ManagedSettingsStore(named: .init("focus"), device: try t.otherProcess("monitor-extension"))
        app.application.denyAppInstallation = true
        app.application.blockedApplications = [Application(token: self.app("com.old"))]
        app.media.maximumMovieRating = 400
        var stale = app.application  // the app reads …
        var staleMedia = app.media
        ext.application.denyAppRemoval = true  // … the extension sets one from nothing,
        ext.application.blockedApplications = [Application(token: self.app("com.new"))]  // changes one,
        ext.application.denyAppInstallation = nil  // clears one,
        ext.media.denyExplicitContent = true
        ext.shield.applications = [self.app("com.shielded")]  // and writes another group.
        // The app writes only what it changed, from its stale reads.
        stale.blockedApplications?.insert(Application(token: self.app("com.mine")))
        app.application = stale
        staleMedia.maximumTVShowRating = 300
        app.media = staleMedia

        let s = ext.application
        #expect(s.blockedApplications == [Application(token: self.app("com.old")), Application(token: self.app("com.mine"))],
                "the app changed blockedApplications last: its value")
        #expect(s.denyAppRemoval == true)
        #expect(s.denyAppInstallation == nil)
        let m = ext.media
        #expect(m.denyExplicitContent == true && m.maximumMovieRating == 400 && m.maximumTVShowRating == 300)
        #expect(ext.shield.applications == [self.app("com.shielded")], "a write of application or media keeps the shield")

        // The other way round: a stale shield write keeps the groups written since its read.
        var staleShield = ext.shield
        app.siri.denySiri = true
        staleShield.webDomains = [WebDomainToken(domain: "x.example")]
        ext.shield = staleShield
        #expect(app.siri.denySiri == true)
        #expect(app.shield.applications == [self.app("com.shielded")] && app.shield.webDomains == [WebDomainToken(domain: "x.example")])
        #expect(app.application.denyAppRemoval == true)
    }

    /// A file written before the groups existed (shield only) reads as before, every other group
    /// not set; keys the reader does not know are ignored, as they always were; a group write
    /// keeps the old shield.
    @Test func anOldRecordWithoutTheNewKeysStillDecodes() throws {
        let t = try TestDevice()
        let area = try t.device.area(OSPaths.managedSettings)
        let social = OpaqueToken.encode(.application, "com.social.feed")
        let old = """
            {"shield": {"applicationCategories": {"categories": [], "except": [], "policy": "all"}, "applications": ["\(social)"]},
             "store": "default", "version": 1, "writtenAt": 1771300123.25, "writtenBy": {"pid": 4242, "process": "host-app"},
             "futureGroup": {"x": 1}}
            """
        try area.directory.writeAtomically("default.json", bytes: Array(old.utf8), fsync: false)
        let r = ManagedSettingsReader.stores(on: t.device)
        #expect(r.errors.isEmpty)
        let record = try #require(r.records.first)
        #expect(record.application == nil && record.webContent == nil && record.account == nil)
        let store = ManagedSettingsStore(device: t.device)
        #expect(store.shield.applications == [app("com.social.feed")])
        #expect(store.application == ApplicationSettings() && store.webContent.blockedByFilter == nil && store.media.maximumMovieRating == nil)
        #expect(ManagedSettingsReader.union(on: t.device).union.blockedApplications.isEmpty)

        store.passcode.lockPasscode = true
        #expect(store.shield.applications == [app("com.social.feed")])
        #expect(store.shield.applicationCategories == .all())
        #expect(store.passcode.lockPasscode == true)

        // Unknown keys inside a group are ignored too; `null` is not set.
        try area.directory.writeAtomically("other.json", bytes: Array("""
            {"shield": {}, "account": {"lockAccounts": true, "lockEverything": true}, "siri": null, "media": {"maximumMovieRating": null},
             "store": "other", "version": 1, "writtenAt": 1, "writtenBy": {"pid": 1, "process": "host-app"}}
            """.utf8), fsync: false)
        let other = ManagedSettingsStore(named: .init("other"), device: t.device)
        #expect(other.account.lockAccounts == true && other.siri.denySiri == nil && other.media == MediaSettings())
    }

    /// A group value of the wrong shape makes the whole file malformed, as a bad shield does: the
    /// reader reports it with its path and counts nothing of it, the getters read nothing set and
    /// report, and a setter does not overwrite the file (it reports instead).
    @Test func aMalformedGroupValueIsReportedAndNotOverwritten() throws {
        let t = try TestDevice()
        let area = try t.device.area(OSPaths.managedSettings)
        let app = OpaqueToken.encode(.application, "com.blocked")
        let bad: [(String, String)] = [
            ("\"account\": {\"lockAccounts\": \"yes\"}", "account.lockAccounts"),
            ("\"media\": {\"maximumMovieRating\": \"PG\"}", "media.maximumMovieRating"),
            ("\"safari\": {\"cookiePolicy\": \"sometimes\"}", "safari.cookiePolicy"),
            ("\"webContent\": {\"blockedByFilter\": {\"policy\": \"most\"}}", "webContent.blockedByFilter.policy"),
            ("\"webContent\": {\"blockedByFilter\": {\"policy\": \"specific\", \"domains\": [{}]}}", "webContent.blockedByFilter.domains"),
            ("\"application\": {\"blockedApplications\": [{\"localizedDisplayName\": \"Game\"}]}", "application.blockedApplications"),
            ("\"application\": {\"blockedApplications\": \"\(app)\"}", "application.blockedApplications"),
        ]
        for (group, path) in bad {
            let text = """
                {"shield": {"applications": ["\(app)"]}, \(group), "store": "default", "version": 1, "writtenAt": 1,
                 "writtenBy": {"pid": 1, "process": "host-app"}}
                """
            try area.directory.writeAtomically("default.json", bytes: Array(text.utf8), fsync: false)
            let r = ManagedSettingsReader.stores(on: t.device)
            #expect(r.records.isEmpty, "\(group)")
            #expect(r.errors.count == 1 && r.errors[0].contains("system/managedsettings/default.json") && r.errors[0].contains(path), "\(r.errors)")
            let (u, errors) = ManagedSettingsReader.union(on: t.device)
            #expect(u == ManagedSettingsUnion() && errors.count == 1)
            let store = ManagedSettingsStore(device: t.device)
            #expect(store.account == AccountSettings() && store.application == ApplicationSettings() && store.shield == ShieldSettings())
            store.siri.denySiri = true
            store.application.denyAppRemoval = true
            #expect(t.file("system/managedsettings/default.json") == text, "a setter leaves the malformed file as it is")
            #expect(throws: OSFileError.self) { try store.updateShield { $0.applications = [] } }
        }
    }

    /// An Application (or WebDomain) naming neither a token nor an identifier is refused by the
    /// writer, as the reader would refuse the file: the store keeps what it had.
    @Test func aBlockedApplicationTheOSCannotNameIsNotWritten() throws {
        let t = try TestDevice()
        let store = ManagedSettingsStore(device: t.device)
        store.application.denyAppRemoval = true
        store.application.blockedApplications = [Application(bundleIdentifier: nil, token: nil, localizedDisplayName: "Nameless")]
        store.webContent.blockedByFilter = .specific([WebDomain(domain: nil, token: nil)])
        #expect(store.application.blockedApplications == nil && store.application.denyAppRemoval == true)
        #expect(store.webContent.blockedByFilter == nil)
        #expect(ManagedSettingsReader.stores(on: t.device).errors.isEmpty)
    }
}
