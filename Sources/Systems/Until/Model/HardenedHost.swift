import PropertyList
import Foundation
import ScreenTimeModel
import SystemKit

/// The hardened host (native module and JS side together; README H2-H5), a pure machine. It looks
/// for reports at launch, on coming to the foreground, on the Darwin notification and on its poll;
/// reminds of each report once — remembered in its own store before the report is removed from the
/// App Group, so a kill, a stale read or a duplicate call never reminds twice, and the notification's
/// identifier is the report's, so a repeat after a kill replaces rather than adds.
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
    /// The picker's apps (memory, as the seed's native module keeps them).
    var selection: [String] = []

    public init() {}

    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let store, let privateStore):
            if case .array(let ids)? = privateStore[UntilKeys.remindedEvents] {
                reminded = ids.compactMap { if case .string(let s) = $0 { s } else { nil } }
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
            selection = apps
            return [.trace("apps_selected", ["count": String(apps.count)])]
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
            guard case .startMonitoringSchedule = failure.effect else { return [] }
            return [.trace("monitoring_rejected", ["code": "MONITORING_ERROR", "message": "Failed to start monitoring: \(failure.error)"])]
        case .authorization(let answer):
            // The run loop traces every answer (`authorization_answered`); nothing more follows from it.
            _ = answer
            return []
        }
    }

    /// Every waiting report, oldest first: a reminder for each one not reminded of yet, then the
    /// memory of it (own store), then the reports removed from the App Group — in that order, so a
    /// kill anywhere leaves a report either still waiting or remembered, never forgotten.
    mutating func deliver(_ store: Store, via: String) -> [Effect] {
        let waiting = store.keys.filter { $0.hasPrefix(UntilKeys.hardenedEventPrefix) }.sorted { Self.order($0, $1) }
        guard !waiting.isEmpty else { return [] }
        var effects: [Effect] = []
        var remembered = false
        for key in waiting where !reminded.contains(key) {
            guard case .data(let data)? = store[key], let record = AppOpenedEvent(jsonData: data) else {
                effects.append(.trace("report_unreadable", ["key": key]))
                continue
            }
            effects += Reminder.fire(identifier: "until-\(key)", eventTimestampMillis: record.millis, via: via)
            reminded.append(key)
            remembered = true
        }
        if reminded.count > Self.maxRemembered { reminded.removeFirst(reminded.count - Self.maxRemembered) }
        if remembered {
            effects.append(.setPrivateDefaults([.set(UntilKeys.remindedEvents, .array(reminded.map { .string($0) }))], atomic: true))
        }
        effects.append(.setDefaults(waiting.map { .remove($0) }, atomic: true))
        return effects
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
