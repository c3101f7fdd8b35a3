import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ScreenTimeModel
import ScreenTimeOS
import ScreenTimeShims
import Testing

@Suite(.timeLimit(.minutes(1))) struct ManagedSettingsTests {
    @Test func aStoreWriteIsVisibleToTheHarnessAsBundleIds() throws {
        let t = try TestDevice()
        let store = ManagedSettingsStore(device: t.device)
        store.shield.applications = [ApplicationToken(bundleIdentifier: "com.social.feed"), ApplicationToken(bundleIdentifier: "com.video")]
        let (union, errors) = ManagedSettingsReader.shieldUnion(on: t.device)
        #expect(errors.isEmpty)
        #expect(union.applications == ["com.social.feed", "com.video"])
        // The runner's reader (ScreenTimeShims) sees the same.
        #expect(ScreenTimeShims.ManagedSettingsStore.shieldedApplications(deviceRoot: t.device.root) == ["com.social.feed", "com.video"])
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
        let area = try t.device.area(SystemPaths.managedSettings)
        try area.directory.writeAtomically("default.json", bytes: Array("{nope".utf8), fsync: false)
        let r = ManagedSettingsReader.stores(on: t.device)
        #expect(r.records.isEmpty)
        #expect(r.errors.count == 1 && r.errors[0].contains("system/managedsettings/default.json"))
        #expect(throws: (any Error).self) { try ManagedSettingsStore(device: t.device).updateShield { $0.applications = [] } }
    }
}
