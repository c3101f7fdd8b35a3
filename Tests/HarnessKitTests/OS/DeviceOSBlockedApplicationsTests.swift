import Foundation
import HarnessKit
import ScreenTimeModel
import SystemKit
import Testing

/// ManagedSettings' `application.blockedApplications` in the pure OS: the user cannot open a
/// blocked app (EMULATED-IOS.md §7.2).
@Suite(.timeLimit(.minutes(1))) struct DeviceOSBlockedApplicationsTests {
    static func has(_ effects: [OSEffect], _ event: String, _ fields: [String: String] = [:]) -> Bool {
        DeviceOSAuthorizationTests.has(effects, event, fields)
    }

    /// The stores' union blocking `apps` (bundle ids), as the file scan shows it to the OS.
    static func blocked(_ apps: Set<String>) -> OSEvent {
        var u = ManagedSettingsUnion()
        u.blockedApplications = apps
        return .managedSettings(u)
    }

    @Test func aBlockedAppDoesNotOpenAndAnUnblockedOneDoes() {
        var os = DeviceOSAuthorizationTests.os()
        #expect(Self.has(os.apply(Self.blocked(["com.game"])), "blocked_applications", ["apps": "com.game"]))
        let blocked = os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 60, label: ["n": "1"])))
        #expect(Self.has(blocked, "app_blocked", ["app": "com.game", "n": "1"]))
        #expect(!Self.has(blocked, "app_in_use"), "a blocked app is not in use: its time counts toward no event")
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.notes", seconds: 60, label: [:]))), "app_in_use", ["app": "com.notes"]))
        // Unblocked, it opens again.
        _ = os.apply(Self.blocked([]))
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 60, label: [:]))), "app_in_use", ["app": "com.game"]))
    }

    @Test func anAppInUseThatBecomesBlockedIsClosed() {
        var os = DeviceOSAuthorizationTests.os()
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 600, label: [:])))
        let effects = os.apply(Self.blocked(["com.game", "com.chat"]))
        #expect(Self.has(effects, "blocked_applications", ["apps": "com.chat,com.game"]))
        #expect(Self.has(effects, "app_closed", ["app": "com.game", "why": "blocked"]))
        // The same set again changes nothing.
        #expect(os.apply(Self.blocked(["com.game", "com.chat"])).isEmpty)
    }

    @Test func withoutFamilyControlsApprovalBlockingIsIgnored() {
        var os = DeviceOSAuthorizationTests.os(familyControls: "approved")
        _ = os.apply(.boot)
        let effects = os.apply(Self.blocked(["com.game"]))
        #expect(Self.has(effects, "blocked_applications_ignored", ["apps": "com.game"]))
        #expect(!Self.has(effects, "managed_settings_ignored"), "blocked applications alone are said once, as blocked_applications_ignored")
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.game", seconds: 60, label: [:]))), "app_in_use", ["app": "com.game"]))
    }
}
