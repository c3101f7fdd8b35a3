import Foundation
import ScreenTimeModel
import Testing

@Suite(.timeLimit(.minutes(1))) struct TokenAndRecordTests {
    @Test func tokensAreBase64OfKindAndIdentifier() throws {
        let t = OpaqueToken.encode(.application, "com.social.feed")
        #expect(t == Data("app:com.social.feed".utf8).base64EncodedString())
        #expect(try OpaqueToken.decode(t) == (.application, "com.social.feed"))
        #expect(OpaqueToken.identifier(t, of: .category) == nil)
        #expect(throws: OpaqueToken.Malformed.self) { try OpaqueToken.decode("not base64!") }
        #expect(throws: OpaqueToken.Malformed.self) { try OpaqueToken.decode(Data("tv:x".utf8).base64EncodedString()) }
    }

    @Test func fileNamesRoundTrip() {
        for n in ["focuspledge_s-1", "a/b", ".hidden", "ümlaut id", "x.y"] {
            let f = OSFileName.encode(n)
            #expect(f != nil && !f!.hasPrefix(".") && !f!.contains("/"))
            #expect(OSFileName.decode(f!) == n)
        }
        #expect(OSFileName.encode("focuspledge_s-1") == "focuspledge_s-1.json")
        #expect(OSFileName.encode("") == nil)
        #expect(OSFileName.encode(String(repeating: "/", count: 100)) == nil)
    }

    @Test func theShieldUnionAppliesCategoryPolicies() {
        let app = { OpaqueToken.encode(.application, $0) }
        let cat = { OpaqueToken.encode(.category, $0) }
        let named = ShieldUnion([ShieldSettingsRecord(applications: [app("com.a"), "bogus"])])
        #expect(named.applications == ["com.a"])
        #expect(named.unknownTokens == ["bogus"])
        #expect(named.isShielded(application: "com.a", category: nil))
        #expect(!named.isShielded(application: "com.b", category: "social"))
        let all = ShieldUnion([ShieldSettingsRecord(applicationCategories: CategoryPolicyRecord(policy: .all, except: [app("com.ok")]))])
        #expect(all.isShielded(application: "com.b", category: nil))
        #expect(!all.isShielded(application: "com.ok", category: nil))
        let specific = ShieldUnion([ShieldSettingsRecord(applicationCategories: CategoryPolicyRecord(policy: .specific, categories: [cat("social")]))])
        #expect(specific.isShielded(application: "com.b", category: "social"))
        #expect(!specific.isShielded(application: "com.b", category: "games"))
    }

    @Test func recordsRoundTripThroughTheSystemDialect() throws {
        let r = ActivityRegistrationRecord(
            activity: "a", schedule: ScheduleSpec(intervalStart: ScheduleComponents(hour: 9), intervalEnd: ScheduleComponents(hour: 10), repeats: true),
            events: ["e": ActivityEventRecord(applications: ["t"], threshold: ScheduleComponents(minute: 5))], registeredAt: Date(timeIntervalSince1970: 1_771_300_000),
            timeZone: "UTC", registeredBy: WriterRecord(pid: 1, process: "host-app"),
            firstInterval: IntervalRecord(start: Date(timeIntervalSince1970: 1), end: Date(timeIntervalSince1970: 2)))
        let bytes = try OSJSON.encode(r)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"registeredAt\":1771300000"))
        #expect(try OSJSON.decode(ActivityRegistrationRecord.self, from: bytes) == r)
    }

    @Test func notificationTriggers() {
        let added = Date(timeIntervalSince1970: 1000)
        let fast = NotificationTriggerRecord(kind: .timeInterval, repeats: true, timeInterval: 30)
        #expect(NotificationTriggerRules.problem(fast) != nil)
        let once = NotificationTriggerRecord(kind: .timeInterval, repeats: false, timeInterval: 300)
        #expect(NotificationTriggerRules.nextFireDate(once, after: added, addedAt: added, timeZone: .gmt) == Date(timeIntervalSince1970: 1300))
        #expect(NotificationTriggerRules.nextFireDate(once, after: Date(timeIntervalSince1970: 1300), addedAt: added, timeZone: .gmt) == nil)
        let every = NotificationTriggerRecord(kind: .timeInterval, repeats: true, timeInterval: 60)
        #expect(NotificationTriggerRules.nextFireDate(every, after: Date(timeIntervalSince1970: 1130), addedAt: added, timeZone: .gmt) == Date(timeIntervalSince1970: 1180))
    }

    @Test func inboxResponsesRoundTrip() throws {
        let req = NotificationRequestRecord(
            identifier: "n1", content: NotificationContentRecord(title: "t", userInfo: ["deepLink": .string("pushin://workout")]), trigger: nil,
            addedAt: Date(timeIntervalSince1970: 5), addedBy: WriterRecord(pid: 2, process: "host-app"))
        let fields = try NotificationResponseMessage.fields(actionIdentifier: "START", notification: DeliveredNotificationRecord(request: req, date: Date(timeIntervalSince1970: 9)))
        let back = try NotificationResponseMessage.parse(fields)
        #expect(back.actionIdentifier == "START")
        #expect(back.notification.request == req)
        #expect(throws: NotificationResponseMessage.ParseError.self) { try NotificationResponseMessage.parse(["actionIdentifier": "x"]) }
    }
}
