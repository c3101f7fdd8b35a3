import Foundation

/// When a notification request fires, for the OS and for `nextTriggerDate()`.
public enum NotificationTriggerRules {
    /// iOS refuses a repeating time-interval trigger under a minute.
    public static let minimumRepeatingIntervalSeconds: Double = 60

    /// Why a trigger cannot be scheduled, or nil when it can.
    public static func problem(_ t: NotificationTriggerRecord) -> String? {
        switch t.kind {
        case .timeInterval:
            guard let s = t.timeInterval, s > 0 else { return "a time-interval trigger needs a positive timeInterval" }
            if t.repeats && s < minimumRepeatingIntervalSeconds { return "time interval must be at least 60 if repeating" }
        case .calendar:
            guard let c = t.dateMatching else { return "a calendar trigger needs dateMatching components" }
            if c.isEmpty { return "a calendar trigger's components match nothing" }
            do { try c.validate() } catch { return "\(error)" }
        }
        return nil
    }

    /// The first fire time strictly after `after`, or nil when there is none (a non-repeating
    /// trigger that already fired, components that match no future date).
    public static func nextFireDate(_ t: NotificationTriggerRecord, after: Date, addedAt: Date, timeZone: TimeZone) -> Date? {
        guard problem(t) == nil else { return nil }
        switch t.kind {
        case .timeInterval:
            let step = t.timeInterval!
            let first = addedAt.addingTimeInterval(step)
            if first > after { return first }
            guard t.repeats else { return nil }
            let k = ((after.timeIntervalSince(first)) / step).rounded(.down) + 1
            return first.addingTimeInterval(k * step)
        case .calendar:
            let m = ComponentMatcher(t.dateMatching!, timeZone: timeZone)
            guard let d = m.first(after: max(after, addedAt)) else { return nil }
            if !t.repeats, let firstEver = m.first(after: addedAt), d != firstEver { return nil }
            return d
        }
    }
}
