import AppGroup
import Foundation
import ScreenTimeModel
import ScreenTimeOS
import StandInKit
import StandInRuntime
import OSFiles
import SystemKit
import Testing

/// The effects every pack's machines speak, carried out by the one interpreter on both devices:
/// in memory (tests, exploration) and live (a device root, through the Apple-named frameworks),
/// landing where the OS reads them.
@Suite(.timeLimit(.minutes(1))) struct EffectVocabularyTests {
    // MARK: In memory

    @Test func aNamedStoreWriteSetsOnlyTheNamedPropertiesAndStoresStayApart() {
        let d = InMemoryDevice()
        let social = CategoryPolicyRecord(policy: .specific, categories: ["social"], except: ["com.allowed"])
        EffectInterpreter.perform([
            .setShield(ShieldWrite(store: "work", applications: .set(["com.a", "com.b"]))),
            .setShield(ShieldWrite(store: "work", applicationCategories: .set(social))),
            .applyShields(["com.c"]),
        ], on: d)
        #expect(d.shieldStores["work"] == .init(applications: ["com.a", "com.b"], applicationCategories: social))
        #expect(d.shields == ["com.c"])
        EffectInterpreter.perform([.setShield(ShieldWrite(store: "work", applications: .cleared)), .clearSettings(store: "default")], on: d)
        #expect(d.shieldStores["work"] == .init(applications: nil, applicationCategories: social), "the categories were not part of the write")
        #expect(d.shieldStores["default"] == nil)
        #expect(d.traces(named: "shields_set").map { $0["store"] } == ["work", "work", nil, "work"])
        #expect(d.traces(named: "settings_cleared") == [["store": "default"]])
    }

    @Test func aPrivateWriteOfSeparateKeysIsACrashPointPerKey() {
        let d = InMemoryDevice()
        var budget: Int? = 2
        let writes: [DefaultsWrite] = [.set("a", .integer(1)), .set("b", .integer(2)), .set("c", .integer(3))]
        let outcome = EffectInterpreter.perform([.setPrivateDefaults(writes, atomic: false)], on: d, budget: &budget)
        #expect(!outcome.complete)
        #expect(d.privateStore == ["a": .integer(1), "b": .integer(2)])
        #expect(d.store.isEmpty, "the App Group suite is another store")
        #expect(outcome.landed == [.setPrivateDefaults(Array(writes.prefix(2)), atomic: false)])
        #expect(Effect.setPrivateDefaults(writes, atomic: false).units == 3)
        #expect(Effect.setPrivateDefaults(writes, atomic: true).units == 1)
        d.processDied()
        #expect(d.privateStore.count == 2, "the private store is on disk: it survives the process")
    }

    @Test func notificationsAndPromptsLandInMemoryAndAreTraced() {
        let d = InMemoryDevice()
        let content = NotificationContentRecord(title: "Earn Screen Time", categoryIdentifier: "WORKOUT_REMINDER", userInfo: ["deepLink": .string("pushin://workout")])
        EffectInterpreter.perform([
            .requestAuthorization(.notifications(options: ["alert", "badge"])),
            .setNotificationCategories([NotificationCategoryRecord(identifier: "WORKOUT_REMINDER", actions: [.init(identifier: "START_WORKOUT", title: "Start Workout")])]),
            .addNotification(NotificationRequest(identifier: "n1", content: content)),
            .addNotification(NotificationRequest(identifier: "n2", content: content, trigger: .init(kind: .timeInterval, repeats: false, timeInterval: 60))),
            .removeNotifications(.pending(["n1"])),
            .setBadge(2),
        ], on: d)
        #expect(d.authorizationRequests == [.notifications(options: ["alert", "badge"])])
        #expect(d.notificationCategories.map(\.identifier) == ["WORKOUT_REMINDER"])
        #expect(Array(d.pendingNotifications.keys) == ["n2"])
        #expect(d.badge == 2)
        #expect(d.traces.map(\.name) == [
            "authorization_requested", "notification_categories_set", "notification_added", "notification_added", "notifications_removed", "badge_set",
        ])
        #expect(d.traces(named: "notification_added").map { $0["trigger"] } == ["now", "timeInterval"])
    }

    // MARK: Live, on a device root

    /// A stand-in's context on `t`'s device root, as the harness starts one.
    static func context(_ t: TestDevice, process: String = "host-app", extra: [String: String] = [:]) throws -> (StandInContext, String) {
        let run = "\(t.path)-run"
        try FileManager.default.createDirectory(atPath: run + "/trace", withIntermediateDirectories: true)
        let env = [
            DeviceRoot.environmentVariable: t.path, StandInContext.runDirectoryVariable: run, StandInContext.variantVariable: "hardened",
            Entitlements.environmentVariable: "group.test.vocabulary",
        ].merging(extra) { _, new in new }
        return (try StandInContext(process: process, appGroup: "group.test.vocabulary", environment: env), run)
    }

    @Test func liveEffectsLandWhereTheOSReadsThem() throws {
        let t = try TestDevice()
        let (ctx, run) = try Self.context(t)
        defer { try? FileManager.default.removeItem(atPath: run) }
        let live = LiveDevice(context: ctx)
        let social = CategoryPolicyRecord(policy: .all, except: ["com.allowed"])
        let content = NotificationContentRecord(title: "Earn Screen Time", body: "Complete a quick workout", categoryIdentifier: "WORKOUT_REMINDER")
        let outcome = EffectInterpreter.perform([
            .setShield(ShieldWrite(store: "focus", applications: .set(["com.social.feed"]))),
            .setShield(ShieldWrite(store: "focus", applicationCategories: .set(social))),
            .setPrivateDefaults([.set("mode", .string("focus"))], atomic: true),
            .setNotificationCategories([NotificationCategoryRecord(identifier: "WORKOUT_REMINDER", actions: [.init(identifier: "LATER", title: "Later")])]),
            .addNotification(NotificationRequest(identifier: "w1", content: content)),
            .addNotification(NotificationRequest(identifier: "bad", content: content, trigger: .init(kind: .timeInterval, repeats: true, timeInterval: 5))),
            .setBadge(1),
        ], on: live)
        // A repeating trigger under a minute is refused as iOS refuses it: a failure the machine is told.
        #expect(outcome.failures.map(\.effect) == [.addNotification(NotificationRequest(identifier: "bad", content: content, trigger: .init(kind: .timeInterval, repeats: true, timeInterval: 5)))])
        let stores = ManagedSettingsReader.stores(on: t.device)
        let focus = try #require(stores.records.first { $0.store == "focus" })
        #expect(focus.shield.applications == [OpaqueToken.encode(.application, "com.social.feed")])
        #expect(focus.shield.applicationCategories?.policy == .all)
        #expect(focus.shield.applicationCategories?.except == [OpaqueToken.encode(.application, "com.allowed")])
        #expect(ManagedSettingsReader.shieldUnion(on: t.device).union.isShielded(application: "com.any", category: nil))
        #expect(NotificationAuthority.pending(on: t.device).records.map(\.identifier) == ["w1"])
        #expect(try NotificationAuthority.categories(on: t.device).map(\.identifier) == ["WORKOUT_REMINDER"])
        #expect(t.file("system/notifications/badge.json")?.contains("\"count\":1") == true)
        // The private store is the process's own file, beside (not in) the App Group container.
        #expect(t.exists("sandboxes/host-app/Library/Preferences/standard.plist"))
        #expect(try ctx.privateDefaults().string(forKey: "mode") == "focus")
        #expect(ctx.snapshot()["mode"] == nil)
    }

    @Test func aPrivateStoreIsPerProcessAndSurvivesAReopen() throws {
        let t = try TestDevice()
        let (host, run) = try Self.context(t, process: "host-app")
        defer { try? FileManager.default.removeItem(atPath: run) }
        EffectInterpreter.perform([.setPrivateDefaults([.set("count", .integer(3))], atomic: true)], on: LiveDevice(context: host))
        let (ext, _) = try Self.context(t, process: "monitor-extension")
        #expect(ext.privateSnapshot().isEmpty, "an extension has a sandbox of its own")
        let (again, _) = try Self.context(t, process: "host-app")
        #expect(again.privateSnapshot() == ["count": .integer(3)], "a relaunched process reads what it wrote")
        #expect(throws: AppGroupError.self) { try AppGroupContainer(sandboxOf: "../etc", deviceRoot: host.root) }
    }

    // MARK: What iOS tells an app

    @Test(arguments: [
        (AppMessage(seq: 1, action: OSMessageActions.appState, fields: ["state": "active"], list: []), AppInput.becameActive),
        (AppMessage(seq: 2, action: OSMessageActions.appState, fields: ["state": "background"], list: []), AppInput.enteredBackground),
        (AppMessage(seq: 3, action: OSMessageActions.openURL, fields: ["url": "pushin://workout"], list: []), AppInput.openURL("pushin://workout")),
        (AppMessage(seq: 4, action: OSMessageActions.significantTimeChange, fields: [:], list: []), AppInput.significantTimeChange),
    ])
    func osMessagesBecomeTypedInputs(message: AppMessage, input: AppInput) throws {
        #expect(try OSMessage.input(for: message)?.get() == input)
    }

    @Test func malformedOSMessagesAreErrorsAndTheAppsOwnActionsAreNotOSMessages() {
        let bad = AppMessage(seq: 1, action: OSMessageActions.appState, fields: ["state": "asleep"], list: [])
        guard case .failure(let e)? = OSMessage.input(for: bad) else {
            Issue.record("accepted a state that is neither active nor background")
            return
        }
        #expect(e.reason.contains("active or background"))
        #expect(OSMessage.input(for: AppMessage(seq: 2, action: OSMessageActions.openURL, fields: [:], list: [])).map { (try? $0.get()) == nil } == true)
        #expect(OSMessage.input(for: AppMessage(seq: 3, action: "start_session", fields: [:], list: [])) == nil)
    }

    // MARK: What a seed's own code wrote

    @Test func everyWriteIsTracedWhenTheHarnessAsksAndOnlyThen() throws {
        let t = try TestDevice()
        let (traced, run) = try Self.context(t, process: "monitor-extension", extra: [StandInContext.traceDefaultsVariable: "1"])
        defer { try? FileManager.default.removeItem(atPath: run) }
        // Seed-style: one `set` per key, then a removal.
        traced.defaults.set(true, forKey: "focuspledge_session_failed")
        traced.defaults.set("app_opened", forKey: "focuspledge_failure_reason")
        traced.defaults.set(String(repeating: "x", count: 200), forKey: "long")
        traced.defaults.removeObject(forKey: "focuspledge_failure_reason")
        try traced.defaults.setValues(["a": 1, "b": 2])
        traced.defaults.set(true, forKey: "focuspledge_session_failed")  // unchanged: no write, no line
        let (quiet, _) = try Self.context(t, process: "host-app")
        quiet.defaults.set(1, forKey: "untraced")
        let lines = (try String(contentsOfFile: run + "/trace/monitor-extension.jsonl", encoding: .utf8)).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "defaults_set" }
        #expect(lines.map { $0["keys"] as? String } == ["focuspledge_session_failed", "focuspledge_failure_reason", "long", "focuspledge_failure_reason", "a,b"])
        #expect(lines[0]["v.focuspledge_session_failed"] as? String == "true")
        #expect(lines[0]["suite"] as? String == "group.test.vocabulary")
        #expect((lines[2]["v.long"] as? String)?.count == 81, "long values are cut")
        #expect(lines[3]["v.focuspledge_failure_reason"] as? String == "<removed>")
        #expect(!FileManager.default.fileExists(atPath: run + "/trace/host-app.jsonl")
            || !((try? String(contentsOfFile: run + "/trace/host-app.jsonl", encoding: .utf8)) ?? "").contains("defaults_set"))
    }
}
