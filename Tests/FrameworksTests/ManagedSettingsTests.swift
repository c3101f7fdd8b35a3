import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ScreenTimeModel
import ScreenTimeOS
import Testing

@Suite(.timeLimit(.minutes(1))) struct ManagedSettingsTests {
    @Test func aStoreWriteIsVisibleToTheHarnessAsBundleIds() throws {
        let t = try TestDevice()
        let store = ManagedSettingsStore(device: t.device)
        store.shield.applications = [ApplicationToken(bundleIdentifier: "com.social.feed"), ApplicationToken(bundleIdentifier: "com.video")]
        let (union, errors) = ManagedSettingsReader.shieldUnion(on: t.device)
        #expect(errors.isEmpty)
        #expect(union.applications == ["com.social.feed", "com.video"])
        // The runner's reader (ScreenTimeOS) sees the same.
        #expect(ScreenTimeOS.ManagedSettingsReader.shieldedApplications(deviceRoot: t.device.root) == ["com.social.feed", "com.video"])
        // Tokens are opaque on disk.
        let file = try #require(t.file("system/managedsettings/default.json"))
        #expect(!file.contains("com.social.feed"))
        #expect(file.contains("\"writtenBy\":{\"pid\""))
    }

    @Test func storesWithTheSameNameAreOneStoreAndPropertiesMerge() throws {
        let t = try TestDevice()
        let app = ManagedSettingsStore(named: .init("focus"), device: t.device)
        let ext = ManagedSettingsStore(named: .init("focus"), device: try t.otherProcess("monitor-extension"))
        var seenByApp = app.shield  // read before the extension writes
        ext.shield.applicationCategories = .all(except: [ApplicationToken(bundleIdentifier: "com.allowed")])
        seenByApp.applications = [ApplicationToken(bundleIdentifier: "com.a")]
        app.shield = seenByApp  // writes only what it changed
        let s = ext.shield
        #expect(s.applications == [ApplicationToken(bundleIdentifier: "com.a")])
        #expect(s.applicationCategories == .all(except: [ApplicationToken(bundleIdentifier: "com.allowed")]))
        let union = ManagedSettingsReader.shieldUnion(on: t.device).union
        #expect(union.isShielded(application: "com.other", category: nil))
        #expect(!union.isShielded(application: "com.allowed", category: nil))
    }

    /// The missed bug: a stale writer of one property (it read the store before another
    /// process changed other properties) must not put back what it read for those properties —
    /// whether the other process set them from nothing, changed them, or cleared them.
    @Test func aStaleWriterOfOnePropertyKeepsAnotherProcesssNewerWritesOfTheOthers() throws {
        let t = try TestDevice()
        let app = ManagedSettingsStore(named: .init("focus"), device: t.device)
        let ext = ManagedSettingsStore(named: .init("focus"), device: try t.otherProcess("monitor-extension"))
        let social = ActivityCategoryToken(categoryIdentifier: "social")
        let games = ActivityCategoryToken(categoryIdentifier: "games")
        app.shield.applicationCategories = .specific([social])
        app.shield.webDomainCategories = .specific([social])
        app.shield.webDomains = [WebDomainToken(domain: "old.example")]
        var stale = app.shield  // the app reads …
        // … the extension changes one property, sets another from nothing and clears a third …
        try ext.updateShield {
            $0.applicationCategories = .specific([games], except: [ApplicationToken(bundleIdentifier: "com.allowed")])
            $0.webDomains = nil
            $0.webDomainCategories = .all()
        }
        // … and the app writes only the property it changed, from its stale read.
        stale.applications = [ApplicationToken(bundleIdentifier: "com.a")]
        app.shield = stale
        let s = ext.shield
        #expect(s.applications == [ApplicationToken(bundleIdentifier: "com.a")])
        #expect(s.applicationCategories == .specific([games], except: [ApplicationToken(bundleIdentifier: "com.allowed")]))
        #expect(s.webDomains == nil)
        #expect(s.webDomainCategories == .all())
        // The other way round: the extension's stale read of webDomains, the app's newer applications.
        var staleExt = ext.shield
        app.shield.applications = [ApplicationToken(bundleIdentifier: "com.b")]
        staleExt.webDomains = [WebDomainToken(domain: "new.example")]
        ext.shield = staleExt
        let after = app.shield
        #expect(after.applications == [ApplicationToken(bundleIdentifier: "com.b")])
        #expect(after.webDomains == [WebDomainToken(domain: "new.example")])
        #expect(after.applicationCategories == .specific([games], except: [ApplicationToken(bundleIdentifier: "com.allowed")]))
        #expect(after.webDomainCategories == .all())
    }

    @Test func clearAllSettingsDeletesTheStoreAndNilUnsets() throws {
        let t = try TestDevice()
        let store = ManagedSettingsStore(device: t.device)
        store.shield.applicationCategories = .specific([ActivityCategoryToken(categoryIdentifier: "social")])
        store.shield.webDomains = [WebDomainToken(domain: "example.com")]
        store.shield.webDomains = nil
        #expect(store.shield.webDomains == nil)
        #expect(store.shield.applicationCategories == .specific([ActivityCategoryToken(categoryIdentifier: "social")]))
        store.clearAllSettings()
        #expect(!t.exists("system/managedsettings/default.json"))
        #expect(store.shield == ShieldSettings())
    }

    @Test func aCorruptStoreIsReportedNotCrashed() throws {
        let t = try TestDevice()
        let area = try t.device.area(OSPaths.managedSettings)
        try area.directory.writeAtomically("default.json", bytes: Array("{nope".utf8), fsync: false)
        let r = ManagedSettingsReader.stores(on: t.device)
        #expect(r.records.isEmpty)
        #expect(r.errors.count == 1 && r.errors[0].contains("system/managedsettings/default.json"))
        #expect(throws: (any Error).self) { try ManagedSettingsStore(device: t.device).updateShield { $0.applications = [] } }
    }
}
