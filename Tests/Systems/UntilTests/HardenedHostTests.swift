import AppGroup
import Foundation
import SystemKit
import Testing
import Until

/// The hardened host by events and effects (README H2-H6).
@Suite(.timeLimit(.minutes(1))) struct HardenedHostTests {
    static func report(_ ms: Int64) -> (String, PropertyListValue) {
        let key = HardenedMonitor.key(timestampMillis: ms, activity: "untilMonitoring", event: "appOpened")
        let data = AppOpenedEvent(eventName: "appOpened", activityName: "untilMonitoring", timestampMillis: Double(ms)).jsonData
        return (key, .data(data))
    }

    static func store(_ ms: Int64...) -> [String: PropertyListValue] {
        Dictionary(uniqueKeysWithValues: ms.map(report))
    }

    static func reminders(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .addNotification(let r) = $0 { r.identifier } else { nil } }
    }

    /// H6: a report leaves the App Group at the look after its reminder was added, never in the
    /// batch that adds it (an add iOS refuses would otherwise lose it).
    @Test func everyWaitingReportIsRemindedOfOldestFirstThenRememberedThenRemovedAtTheNextLook() throws {
        var host = HardenedHost()
        let effects = host.handle(.notified(store: Self.store(2_000, 1_000)))
        let k1 = Self.report(1_000).0, k2 = Self.report(2_000).0
        #expect(Self.reminders(effects) == ["until-\(k1)", "until-\(k2)"])
        let remember = try #require(effects.firstIndex { if case .setPrivateDefaults = $0 { true } else { false } })
        let lastReminder = try #require(effects.lastIndex { if case .addNotification = $0 { true } else { false } })
        #expect(lastReminder < remember, "a kill in between may repeat a reminder, never lose one")
        #expect(!effects.contains { if case .setDefaults = $0 { true } else { false } }, "removed only once the adds are in: \(effects)")
        #expect(effects.contains(.trace("reminder", ["identifier": "until-\(k1)", "eventTimestamp": "1000", "via": "notification"])))
        #expect(host.handle(.pollTick(store: Self.store(2_000, 1_000))) == [.setDefaults([.remove(k1), .remove(k2)], atomic: true)])
    }

    /// H6: iOS refuses to add a reminder (`UNUserNotificationCenter.add` fails): the report, still in
    /// the App Group, is forgotten and reminded of at the next look; refused `maxAttempts` times, it
    /// is given up, removed and said.
    @Test func aRefusedReminderIsTriedAgainThenGivenUp() {
        var host = HardenedHost()
        let (key, _) = Self.report(1_000)
        let store = Self.store(1_000)
        let add = Effect.addNotification(NotificationRequest(identifier: "until-\(key)", content: .init(title: Reminder.title, body: Reminder.body)))
        #expect(Self.reminders(host.handle(.pollTick(store: store))) == ["until-\(key)"])
        for attempt in 1...HardenedHost.maxAttempts {
            let refused = host.handle(.effectFailed(EffectFailure(effect: add, error: "refused")))
            #expect(refused.first == .trace("reminder_refused", ["key": key, "attempt": String(attempt), "error": "refused"]))
            if attempt < HardenedHost.maxAttempts {
                #expect(!refused.contains(.setDefaults([.remove(key)], atomic: true)))
                let again = host.handle(.pollTick(store: store))
                #expect(Self.reminders(again) == ["until-\(key)"], "attempt \(attempt + 1)")
                #expect(!again.contains(.setDefaults([.remove(key)], atomic: true)))
            } else {
                #expect(refused.contains(.trace("reminder_given_up", ["key": key, "attempts": String(attempt)])))
                #expect(refused.contains(.setDefaults([.remove(key)], atomic: true)))
            }
        }
    }

    @Test func aReportSeenAgainIsNotRemindedOfAgain() {
        var host = HardenedHost()
        _ = host.handle(.pollTick(store: Self.store(1_000)))
        // A stale read (or a duplicate call written after the removal) shows it again.
        let again = host.handle(.pollTick(store: Self.store(1_000)))
        #expect(Self.reminders(again).isEmpty)
        #expect(again == [.setDefaults([.remove(Self.report(1_000).0)], atomic: true)])
    }

    @Test func theMemorySurvivesARelaunch() {
        var first = HardenedHost()
        let effects = first.handle(.pollTick(store: Self.store(1_000)))
        var privateStore: [String: PropertyListValue] = [:]
        for case .setPrivateDefaults(let writes, _) in effects { for w in writes { privateStore[w.key] = w.value } }
        var relaunched = HardenedHost()
        let launch = relaunched.handle(.launched(store: Self.store(1_000, 3_000), privateStore: privateStore))
        #expect(Self.reminders(launch) == ["until-\(Self.report(3_000).0)"])
        #expect(launch.contains(.startTimer(HardenedHost.pollTimer, .every(seconds: HardenedHost.pollSeconds))))
    }

    @Test func theMemoryIsBounded() {
        var host = HardenedHost()
        for ms in 1...Int64(HardenedHost.maxRemembered + 5) { _ = host.handle(.pollTick(store: Self.store(ms))) }
        let effects = host.handle(.pollTick(store: Self.store(9_999)))
        guard case .setPrivateDefaults(let writes, _)? = effects.first(where: { if case .setPrivateDefaults = $0 { true } else { false } }),
            case .array(let ids)? = writes.first?.value
        else {
            Issue.record("no memory written: \(effects)")
            return
        }
        #expect(ids.count == HardenedHost.maxRemembered)
        #expect(ids.last == .string(Self.report(9_999).0))
    }

    @Test func lookingIntoAnEmptyStoreDoesNothing() {
        var host = HardenedHost()
        #expect(host.handle(.becameActive(store: [:])).isEmpty)
        #expect(host.handle(.pollTick(store: ["other": .integer(1)])).isEmpty)
    }

    @Test func anUnreadableReportIsTracedAndRemoved() {
        var host = HardenedHost()
        let key = Self.report(5).0
        let effects = host.handle(.pollTick(store: [key: .string("not json")]))
        #expect(effects == [.trace("report_unreadable", ["key": key]), .setDefaults([.remove(key)], atomic: true)])
    }

    @Test func savingWithoutAppsIsRejectedLikeTheSeed() {
        var host = HardenedHost()
        #expect(host.handle(.saveReminderTapped) == [.trace("monitoring_rejected", ["code": "NO_APPS", "message": "No apps selected"])])
        _ = host.handle(.appsSelected(["com.a"]))
        let effects = host.handle(.saveReminderTapped)
        guard case .startMonitoringSchedule(let activity, let schedule, let events)? = effects.first else {
            Issue.record("no startMonitoring: \(effects)")
            return
        }
        #expect(activity == "untilMonitoring" && schedule.repeats)
        #expect(schedule.intervalStart == DateComponents(hour: 0, minute: 0) && schedule.intervalEnd == DateComponents(hour: 23, minute: 59))
        #expect(events == ["appOpened": MonitoringEvent(applications: ["com.a"], threshold: DateComponents(second: 1))])
        let failed = host.handle(.effectFailed(EffectFailure(effect: effects[0], error: "intervalTooShort")))
        #expect(failed.first == .trace("monitoring_rejected", ["code": "MONITORING_ERROR", "message": "Failed to start monitoring: intervalTooShort"]))
    }

    /// H7: the picked apps outlive the process: a host swiped away between the pick and the save
    /// saves them at the next launch's save.
    @Test func thePickedAppsSurviveARelaunch() {
        var first = HardenedHost()
        var privateStore: [String: PropertyListValue] = [:]
        for case .setPrivateDefaults(let writes, _) in first.handle(.appsSelected(["com.a"])) { for w in writes { privateStore[w.key] = w.value } }
        var relaunched = HardenedHost()
        _ = relaunched.handle(.launched(store: [:], privateStore: privateStore))
        guard case .startMonitoringSchedule(_, _, let events)? = relaunched.handle(.saveReminderTapped).first else {
            Issue.record("the save after a relaunch was refused")
            return
        }
        #expect(events["appOpened"]?.applications == ["com.a"])
    }
}
