import PropertyList
import Foundation
import ScreenTimeModel
import SystemKit

/// The hardened host (native module and JS side together; README H2-H6), a pure machine. It looks
/// for reports at launch, on coming to the foreground, on the Darwin notification and on its poll;
/// reminds of each report once — remembered in its own store before the report is removed from the
/// App Group, so a kill, a stale read or a duplicate call never reminds twice, and the notification's
/// identifier is the report's, so a repeat after a kill replaces rather than adds. A report leaves
/// the App Group only at the look after its reminder was added (H6): a reminder iOS refused to add
/// is forgotten and the report, still there, reminded of again (`maxAttempts` times at most).
public struct HardenedHost: Sendable {
    public typealias Store = [String: PropertyListValue]
    public static let pollTimer = "poll"
    public static let pollSeconds = 5.0
    /// Reports remembered as reminded (newest kept): far more than a day's reports (one per
    /// interval, Apple), bounded so the private store cannot grow without end.
    public static let maxRemembered = 256

    public enum Event: Sendable, Equatable {
        case launched(store: Store, privateStore: Store)
        case becameActive(store: Store)
        case notified(store: Store)
        case pollTick(store: Store)
        case appTriggerTapped
        case appsSelected([String])
        case saveReminderTapped
        case effectFailed(EffectFailure)
        case authorization(AuthorizationAnswer)
    }

    /// Report keys already reminded of, oldest first.
    var reminded: [String] = []
    /// Reminders iOS refused to add, per report key (memory: a relaunch tries afresh).
    var refused: [String: Int] = [:]
    /// How many times a report's reminder is tried before the report is given up (traced).
    public static let maxAttempts = 3
    /// A reminder's notification identifier: the report's key behind this prefix.
    static let identifierPrefix = "until-"
    /// The picker's apps (memory, as the seed's native module keeps them, and the own store: H7).
    var selection: [String] = []

    public init() {}

    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let store, let privateStore):
            if case .array(let ids)? = privateStore[UntilKeys.remindedEvents] {
                reminded = ids.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
            // H7: the apps picked before the process ended (a swipe between pick and save).
            if case .array(let apps)? = privateStore[UntilKeys.pickedApps] {
                selection = apps.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
            return [
                .requestAuthorization(.notifications(options: ["alert", "sound"])),
                .startTimer(Self.pollTimer, .every(seconds: Self.pollSeconds)),
            ] + deliver(store, via: "launch")
        case .becameActive(let store): return deliver(store, via: "foreground")
        case .notified(let store): return deliver(store, via: "notification")
        case .pollTick(let store): return deliver(store, via: "poll")
        case .appTriggerTapped:
            return [.requestAuthorization(.screenTime(member: "individual"))]
        case .appsSelected(let apps):
            // H7: kept in the app's own store too (`FamilyActivitySelection` is Codable), so a
            // host swiped away between the pick and the save still has them.
            selection = apps
            return [
                .setPrivateDefaults([.set(UntilKeys.pickedApps, .array(apps.map { .string($0) }))], atomic: true),
                .trace("apps_selected", ["count": String(apps.count)]),
            ]
        case .saveReminderTapped:
            // Step 6, with the seed's schedule, activity, event and threshold.
            guard !selection.isEmpty else { return [.trace("monitoring_rejected", ["code": "NO_APPS", "message": "No apps selected"])] }
            return [
                .startMonitoringSchedule(
                    activity: UntilKeys.activity,
                    schedule: MonitoringSchedule(
                        intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59), repeats: true),
                    events: [UntilKeys.event: MonitoringEvent(applications: selection, threshold: DateComponents(second: 1))]),
                .trace("monitoring_started", [:]),
            ]
        case .effectFailed(let failure):
            if case .addNotification(let request) = failure.effect, request.identifier.hasPrefix(Self.identifierPrefix) {
                return reminderRefused(key: String(request.identifier.dropFirst(Self.identifierPrefix.count)), error: failure.error)
            }
            guard case .startMonitoringSchedule = failure.effect else { return [] }
            return [.trace("monitoring_rejected", ["code": "MONITORING_ERROR", "message": "Failed to start monitoring: \(failure.error)"])]
        case .authorization(let answer):
            // The run loop traces every answer (`authorization_answered`); nothing more follows from it.
            _ = answer
            return []
        }
    }

    /// Every waiting report, oldest first: those reminded of at an earlier look are removed from
    /// the App Group (their reminders were added: a refusal would have forgotten them); for each one
    /// not reminded of yet a reminder, then the memory of it (own store) — in that order, so a kill
    /// anywhere leaves a report either still waiting or remembered, never forgotten, and a report
    /// leaves the App Group only once its reminder is in (H6).
    mutating func deliver(_ store: Store, via: String) -> [Effect] {
        let waiting = store.keys.filter { $0.hasPrefix(UntilKeys.hardenedEventPrefix) }.sorted { Self.order($0, $1) }
        guard !waiting.isEmpty else { return [] }
        var done = waiting.filter { reminded.contains($0) }
        var effects: [Effect] = []
        var remembered = false
        for key in waiting where !reminded.contains(key) {
            guard case .data(let data)? = store[key], let record = AppOpenedEvent(jsonData: data) else {
                effects.append(.trace("report_unreadable", ["key": key]))
                done.append(key)  // nothing to remind of: removed at once
                continue
            }
            effects += Reminder.fire(identifier: Self.identifierPrefix + key, eventTimestampMillis: record.millis, via: via)
            reminded.append(key)
            remembered = true
        }
        if reminded.count > Self.maxRemembered { reminded.removeFirst(reminded.count - Self.maxRemembered) }
        if remembered { effects.append(rememberEffect) }
        if !done.isEmpty { effects.append(.setDefaults(done.map { .remove($0) }, atomic: true)) }
        return effects
    }

    /// The memory of what was reminded, written to the app's own store.
    var rememberEffect: Effect { .setPrivateDefaults([.set(UntilKeys.remindedEvents, .array(reminded.map { .string($0) }))], atomic: true) }

    /// iOS refused to add the reminder of report `key`: forgotten (memory and own store), so the next
    /// look, finding the report still waiting, reminds of it again; after `maxAttempts` refusals the
    /// report is given up — removed, and said (`reminder_given_up`).
    mutating func reminderRefused(key: String, error: String) -> [Effect] {
        reminded.removeAll { $0 == key }
        let attempts = (refused[key] ?? 0) + 1
        refused[key] = attempts
        var effects: [Effect] = [.trace("reminder_refused", ["key": key, "attempt": String(attempts), "error": error])]
        if attempts >= Self.maxAttempts {
            refused[key] = nil
            effects += [.trace("reminder_given_up", ["key": key, "attempts": String(attempts)]), .setDefaults([.remove(key)], atomic: true)]
            return effects
        }
        return effects + [rememberEffect]
    }

    /// Report keys by timestamp (then by name): `appOpened.<ms>.<activity>.<event>`.
    public static func order(_ a: String, _ b: String) -> Bool {
        let ta = timestamp(a) ?? 0, tb = timestamp(b) ?? 0
        return ta != tb ? ta < tb : a < b
    }

    static func timestamp(_ key: String) -> Int64? {
        key.dropFirst(UntilKeys.hardenedEventPrefix.count).split(separator: ".").first.flatMap { Int64($0) }
    }
}
