import PropertyList
import Foundation
import SystemKit

/// The hardened monitor extension (README H1), a pure machine: one App Group key per report instead
/// of the seed's single `lastAppOpenedEvent` slot, so a report the host has not read yet is never
/// overwritten by the next one; the key is the report's own identity (timestamp, activity, event),
/// so iOS calling twice for one report writes the same key twice — one report, not two.
public struct HardenedMonitor: Sendable {
    public enum Event: Sendable, Equatable {
        case intervalDidStart(activity: String)
        case intervalDidEnd(activity: String)
        /// "Called when app usage threshold is reached" (Step 4); `store` is the App Group now.
        case eventDidReachThreshold(event: String, activity: String, now: Date, store: [String: PropertyListValue])
    }

    /// Reports kept waiting for the host at most (the oldest goes first): a host that never runs
    /// again must not grow the suite without bound (the suite's 4 MiB limit, PROTOCOL.md §3).
    public static let maxPendingReports = 1_000

    public init() {}

    /// The App Group key of a report.
    public static func key(timestampMillis: Int64, activity: String, event: String) -> String {
        "\(UntilKeys.hardenedEventPrefix)\(timestampMillis).\(activity).\(event)"
    }

    public func handle(_ event: Event) -> [Effect] {
        switch event {
        case .intervalDidStart, .intervalDidEnd:
            // Step 4 only prints here; so does hardened (nothing to remember).
            return []
        case .eventDidReachThreshold(let name, let activity, let now, let store):
            let record = AppOpenedEvent(eventName: name, activityName: activity, timestampMillis: now.timeIntervalSince1970 * 1000)
            let key = Self.key(timestampMillis: record.millis, activity: activity, event: name)
            var writes: [DefaultsWrite] = [.set(key, .data(record.jsonData))]
            let pending = store.keys.filter { $0.hasPrefix(UntilKeys.hardenedEventPrefix) && $0 != key }.sorted { HardenedHost.order($0, $1) }
            let over = pending.count + 1 - Self.maxPendingReports
            if over > 0 { writes += pending.prefix(over).map { .remove($0) } }
            return [
                // One write: the report (and any eviction) lands whole or not at all.
                .setDefaults(writes, atomic: true),
                .trace("app_opened_recorded", ["key": key, "timestamp": String(record.millis)]),
                .postNotification(UntilKeys.appOpenedNotification),
            ]
        }
    }
}
