import Foundation
import HarnessKit
import ScreenTimeModel
import SystemKit
import Testing

/// Authorization, notifications, refusals and time zones in the pure OS (EMULATED-IOS.md §10).
@Suite(.timeLimit(.minutes(1))) struct DeviceOSAuthorizationTests {
    static let t0 = DeviceOSTests.t0

    static func os(familyControls: String? = nil, notifications: String? = nil, faults: [FieldFault] = []) -> DeviceOS {
        DeviceOS(
            configuration: .init(
                timeZone: DeviceOSTests.berlin, extensionPoints: Set(ExtensionPoint.allCases), faults: faults, seed: 7,
                familyControls: familyControls, notifications: notifications),
            now: t0)
    }

    static func request(_ id: String, after seconds: Double?, repeats: Bool = false, at: Double = t0) -> NotificationRequestRecord {
        NotificationRequestRecord(
            identifier: id,
            content: NotificationContentRecord(title: "t", subtitle: "", body: "b", categoryIdentifier: "", threadIdentifier: "", userInfo: [:], interruptionLevel: "active"),
            trigger: seconds.map { NotificationTriggerRecord(kind: .timeInterval, repeats: repeats, timeInterval: $0) },
            addedAt: Date(timeIntervalSince1970: at), addedBy: WriterRecord(pid: 1, process: "host"))
    }

    static func has(_ effects: [OSEffect], _ event: String, _ fields: [String: String] = [:]) -> Bool {
        effects.contains { if case .record(let n, let f) = $0, n.rawValue == event { fields.allSatisfy { f[$0.key] == $0.value } } else { false } }
    }

    @Test func aModelledFamilyControlsStatusStartsNotDeterminedAndPromptsGetTheScenariosAnswer() {
        var os = Self.os(familyControls: "denied")
        #expect(os.apply(.boot).contains(.setAuthorization(.familyControls, status: "notDetermined", answering: nil)))
        #expect(os.apply(.authorizationRequested(.familyControls, requestId: "r1")).contains(.setAuthorization(.familyControls, status: "denied", answering: "r1")))
        // Not modelled: nothing written at boot; a prompt is approved.
        var free = Self.os()
        #expect(!free.apply(.boot).contains { if case .setAuthorization = $0 { true } else { false } })
        #expect(free.apply(.authorizationRequested(.familyControls, requestId: "r2")).contains(.setAuthorization(.familyControls, status: "approved", answering: "r2")))
    }

    @Test func revokingClearsShieldsAndRegistrationsWithoutCallbacks() {
        var os = Self.os(familyControls: "approved")
        _ = os.apply(.registrations([DeviceOSTests.registration("a", DeviceOSTests.hm(8, 0), DeviceOSTests.hm(10, 0))]))
        _ = os.apply(.shields(DeviceOSTests.shieldUnion(["com.video"])))
        let effects = os.apply(.revokeAuthorization)
        #expect(effects.contains(.clearManagedSettings) && effects.contains(.clearRegistrations))
        #expect(DeviceOSTests.monitorCalls(effects).isEmpty, "no intervalDidEnd: the extension is no longer entitled")
        #expect(Self.has(effects, "shields", ["apps": ""]))
        #expect(!os.isMonitored("a") && !os.isShielded("com.video"))
        #expect(os.familyControlsStatus == "denied")
    }

    @Test func shieldsWrittenBeforeApprovalAreIgnoredAndNotAppliedLater() {
        var os = Self.os(familyControls: "approved")
        _ = os.apply(.boot)
        // Written while notDetermined: not applied, the stores deleted, the OS says so.
        let early = os.apply(.shields(DeviceOSTests.shieldUnion(["com.video"])))
        #expect(Self.has(early, "shields_ignored", ["apps": "com.video", "status": "notDetermined", "why": "FamilyControls not approved"]))
        #expect(early.contains(.clearManagedSettings))
        #expect(!Self.has(early, "shields"), "the ground truth did not change")
        #expect(!os.isShielded("com.video"))
        // Opening the app shows no shield.
        #expect(Self.has(os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 60, label: [:]))), "app_in_use", ["app": "com.video"]))
        // The stores are gone (the runner deleted them): the OS sees an empty union, nothing to refuse.
        #expect(!Self.has(os.apply(.shields(ShieldUnion())), "shields_ignored"))
        // Approval brings nothing back; a write after it is applied.
        let approved = os.apply(.authorizationRequested(.familyControls, requestId: "r1"))
        #expect(!Self.has(approved, "shields", ["apps": "com.video"]) && !os.isShielded("com.video"))
        let later = os.apply(.shields(DeviceOSTests.shieldUnion(["com.video"])))
        #expect(Self.has(later, "shields", ["apps": "com.video"]) && !Self.has(later, "shields_ignored"))
        #expect(os.isShielded("com.video"))
    }

    @Test func shieldsWrittenWhileDeniedOrRevokedAreIgnored() {
        var denied = Self.os(familyControls: "denied")
        _ = denied.apply(.boot)
        _ = denied.apply(.authorizationRequested(.familyControls, requestId: "r1"))
        let category = ShieldUnion([ShieldSettingsRecord(applicationCategories: CategoryPolicyRecord(policy: .all))])
        let d = denied.apply(.shields(category))
        #expect(Self.has(d, "shields_ignored", ["apps": "", "categoryPolicies": "all", "status": "denied"]) && d.contains(.clearManagedSettings))
        #expect(!denied.isShielded("com.video"))
        var revoked = Self.os(familyControls: "approved")
        _ = revoked.apply(.boot)
        _ = revoked.apply(.authorizationRequested(.familyControls, requestId: "r1"))
        _ = revoked.apply(.revokeAuthorization)
        let r = revoked.apply(.shields(DeviceOSTests.shieldUnion(["com.video"])))
        #expect(Self.has(r, "shields_ignored", ["apps": "com.video", "status": "denied"]))
        #expect(!revoked.isShielded("com.video"))
    }

    @Test func withoutModelledAuthorizationShieldsApplyAsBefore() {
        var os = Self.os()
        _ = os.apply(.boot)
        let e = os.apply(.shields(DeviceOSTests.shieldUnion(["com.video"])))
        #expect(Self.has(e, "shields", ["apps": "com.video"]) && !Self.has(e, "shields_ignored") && !e.contains(.clearManagedSettings))
        #expect(os.isShielded("com.video"))
    }

    @Test func revokingLosesTheMonitorCallsAFaultHeldBack() {
        var os = Self.os(familyControls: "approved", faults: [FieldFault(kind: .delay(600...600), callbacks: ["intervalDidStart"])])
        let registered = os.apply(.registrations([DeviceOSTests.registration("a", DeviceOSTests.hm(8, 0), DeviceOSTests.hm(10, 0))]))
        #expect(Self.has(registered, "callback_held", ["callback": "intervalDidStart", "activity": "a"]))
        _ = os.apply(.revokeAuthorization)
        #expect(os.nextDeadline() == nil, "nothing is left to happen")
        let later = DeviceOSTests.run(&os, until: Self.t0 + 3600)
        #expect(DeviceOSTests.monitorCalls(later).isEmpty, "\(later)")
    }

    @Test func aRefusedRegistrationIsRecorded() {
        var os = Self.os()
        #expect(os.apply(.monitoringRefused(activity: "a", error: "intervalTooShort", detail: "10 min")) == [
            .record(.monitoringRefused, ["activity": "a", "error": "intervalTooShort", "detail": "10 min"]),
        ])
    }

    @Test func notificationsFireAtTheirTriggerOnlyWhenAuthorized() {
        var os = Self.os(notifications: "authorized")
        _ = os.apply(.notificationRequests([Self.request("n1", after: 60)]))
        #expect(os.nextDeadline() == Self.t0 + 60)
        #expect(!DeviceOSTests.run(&os, until: Self.t0 + 120).contains { if case .deliverNotification = $0 { true } else { false } },
            "not shown while notDetermined")
        var granted = Self.os(notifications: "authorized")
        _ = granted.apply(.authorizationRequested(.notifications, requestId: "r"))
        _ = granted.apply(.notificationRequests([Self.request("n1", after: 60), Self.request("now", after: nil)]))
        let effects = DeviceOSTests.run(&granted, until: Self.t0 + 120)
        #expect(Self.has(effects, "notification_delivered", ["identifier": "n1"]))
        #expect(granted.deliveredNotifications == ["n1", "now"])
        var denied = Self.os(notifications: "denied")
        _ = denied.apply(.authorizationRequested(.notifications, requestId: "r"))
        _ = denied.apply(.notificationRequests([Self.request("n1", after: 60)]))
        let d = DeviceOSTests.run(&denied, until: Self.t0 + 120)
        #expect(d.contains(.discardNotification(identifier: "n1")) && Self.has(d, "notification_not_shown", ["identifier": "n1"]))
    }

    /// What the OS tells the app — a prompt's answer, a notification shown — is recorded before it
    /// is written: the app reads it at once, and its own lines about it must not come first (a
    /// checker looking for "the OS's last answer before the app's refusal" found the earlier
    /// answer in about half the runs of focuspledge-denied).
    @Test func whatTheAppReadsIsRecordedBeforeItIsWritten() {
        func order(_ effects: [OSEffect], record event: String, before written: (OSEffect) -> Bool) -> Bool {
            guard let r = effects.firstIndex(where: { if case .record(let n, _) = $0 { n.rawValue == event } else { false } }),
                let w = effects.firstIndex(where: written)
            else { return false }
            return r < w
        }
        var os = Self.os(familyControls: "denied", notifications: "authorized")
        #expect(order(os.apply(.boot), record: "authorization") { if case .setAuthorization = $0 { true } else { false } })
        #expect(order(os.apply(.authorizationRequested(.familyControls, requestId: "r1")), record: "authorization") {
            $0 == .setAuthorization(.familyControls, status: "denied", answering: "r1")
        })
        #expect(order(os.apply(.authorizationRequested(.notifications, requestId: "r2")), record: "authorization") {
            $0 == .setAuthorization(.notifications, status: "authorized", answering: "r2")
        })
        _ = os.apply(.notificationRequests([Self.request("n1", after: 60)]))
        #expect(order(DeviceOSTests.run(&os, until: Self.t0 + 120), record: "notification_delivered") {
            if case .deliverNotification = $0 { true } else { false }
        })
        var approved = Self.os(familyControls: "approved")
        _ = approved.apply(.authorizationRequested(.familyControls, requestId: "r3"))
        #expect(order(approved.apply(.revokeAuthorization), record: "authorization") { if case .setAuthorization = $0 { true } else { false } })
    }

    @Test func aTapForegroundsTheHostOrRunsItInTheBackground() {
        var os = Self.os(notifications: "authorized")
        _ = os.apply(.authorizationRequested(.notifications, requestId: "r"))
        _ = os.apply(.notificationRequests([Self.request("n1", after: nil), Self.request("n2", after: nil)]))
        let open = os.apply(.user(.tapNotification(identifier: "n1", action: "com.apple.UNNotificationDefaultActionIdentifier", foreground: true)))
        #expect(open.contains(.notificationResponse(identifier: "n1", action: "com.apple.UNNotificationDefaultActionIdentifier")))
        #expect(open.contains(.launchHost) && os.host == .foreground)
        _ = os.apply(.user(.leaveHost))
        _ = os.apply(.clock(now: Self.t0 + 20))
        #expect(os.host == .suspended)
        let later = os.apply(.user(.tapNotification(identifier: "n2", action: "LATER", foreground: false)))
        #expect(later.contains(.resumeHost) && os.host == .background(since: Self.t0 + 20))
        #expect(os.apply(.clock(now: Self.t0 + 30)).contains(.suspendHost))
        #expect(Self.has(os.apply(.user(.tapNotification(identifier: "n1", action: "x", foreground: true))), "notification_tap_unavailable"))
    }

    @Test func defaultsFaultsNeverTouchCalls() {
        var os = Self.os(faults: [FieldFault(kind: .staleDefaults(seconds: 60)), FieldFault(kind: .tornWrite)])
        _ = os.apply(.registrations([DeviceOSTests.registration("a", DeviceOSTests.hm(10, 0), DeviceOSTests.hm(10, 30))]))
        #expect(DeviceOSTests.monitorCalls(DeviceOSTests.run(&os, until: Self.t0 + 7200)) == ["intervalDidStart a", "intervalDidEnd a"])
    }
}

/// `at: "23:50"` + `every: day` as device offsets, across DST and time-zone changes.
@Suite(.timeLimit(.minutes(1))) struct LocalTimeScheduleTests {
    static let start = Date(timeIntervalSince1970: DeviceOSTests.t0)  // 09:00 Berlin

    @Test func aDailyLocalTimeBecomesOffsetsInTheScenariosZone() {
        let s = LocalTimeSchedule(hour: 23, minute: 50, daily: true, start: Self.start, timeZone: "Europe/Berlin")
        let expected: [Double] = [53_400, 139_800, 226_200]  // 23:50 Berlin = 22:50 UTC = t0 + 14 h 50 m, then daily
        #expect(s.offsets(within: 3 * 86_400) == expected)
        let once = LocalTimeSchedule(hour: 8, minute: 0, daily: false, start: Self.start, timeZone: "Europe/Berlin")
        let tomorrow: [Double] = [82_800]
        #expect(once.offsets(within: 3 * 86_400) == tomorrow, "08:00 is past today: tomorrow")
    }

    @Test func aTimeZoneChangeMovesTheLaterOccurrences() {
        let s = LocalTimeSchedule(
            hour: 9, minute: 20, daily: true, start: Self.start, timeZone: "Europe/Berlin",
            timeZoneChanges: [Scenario.TimeZoneChange(atSeconds: 1800, timeZone: "America/New_York")])
        let expected: [Double] = [1200, 22_800]
        #expect(s.offsets(within: 8 * 3600) == expected)
    }

    @Test func aMissingLocalTimeIsTheFirstInstantAfterTheGap() {
        // 2026-03-29: Berlin springs forward 02:00 -> 03:00.
        let s = LocalTimeSchedule(hour: 2, minute: 30, daily: false, start: Date(timeIntervalSince1970: 1_774_728_000), timeZone: "Europe/Berlin")
        // 1774728000 = 2026-03-28 20:00 UTC; 03:00 CEST on the 29th = 01:00 UTC = +5 h.
        let expected: [Double] = [18_000]
        #expect(s.offsets(within: 86_400) == expected)
    }

    @Test func timesAreParsedStrictly() {
        let t = LocalTimeSchedule.parseTime("23:50")
        #expect(t?.hour == 23 && t?.minute == 50)
        #expect(LocalTimeSchedule.parseTime("24:00") == nil && LocalTimeSchedule.parseTime("9:30") == nil && LocalTimeSchedule.parseTime("09:60") == nil)
    }
}
