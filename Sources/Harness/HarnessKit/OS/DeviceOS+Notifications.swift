import Foundation
import ScreenTimeModel
import SystemKit

/// Local notifications (EMULATED-IOS.md §7.5, §10.4): the OS fires each pending request at its
/// trigger's time, shows it only when notifications are authorized, and hands a tap on it (or on
/// one of its actions) to the host, launching or foregrounding it.
extension DeviceOS {
    static let grantedNotificationStatuses: Set<String> = ["authorized", "provisional", "ephemeral"]

    mutating func notificationRequestsChanged(_ records: [NotificationRequestRecord], _ out: inout [OSEffect]) {
        var next: [String: PendingNotification] = [:]
        for r in records {
            if let existing = pendingNotifications[r.identifier], existing.record == r {
                next[r.identifier] = existing
                continue
            }
            var f = ["identifier": r.identifier]
            if let problem = r.trigger.flatMap(NotificationTriggerRules.problem) {
                f["why"] = problem
                out.append(.record(.notificationRefused, f))
                continue
            }
            let fire = fireTime(r, after: now - 0.001)
            f["fireAt"] = fire.map { String($0) } ?? "never"
            out.append(.record(.notificationScheduled, f))
            next[r.identifier] = PendingNotification(record: r, nextFire: fire)
        }
        for id in pendingNotifications.keys.sorted() where next[id] == nil {
            out.append(.record(.notificationWithdrawn, ["identifier": id]))
        }
        pendingNotifications = next
        fireDueNotifications(&out)
    }

    /// A request with no trigger fires when it is added; a time-interval or calendar trigger at its
    /// next match (`NotificationTriggerRules`, in the device's time zone).
    func fireTime(_ r: NotificationRequestRecord, after: Double) -> Double? {
        guard let trigger = r.trigger else { return max(now, r.addedAt.timeIntervalSince1970) }
        return NotificationTriggerRules.nextFireDate(
            trigger, after: Date(timeIntervalSince1970: after), addedAt: r.addedAt, timeZone: timeZone)?.timeIntervalSince1970
    }

    /// The time zone changed: calendar triggers match in the new one.
    mutating func rescheduleNotifications() {
        for id in pendingNotifications.keys.sorted() {
            guard pendingNotifications[id]!.record.trigger?.kind == .calendar else { continue }
            pendingNotifications[id]!.nextFire = fireTime(pendingNotifications[id]!.record, after: now)
        }
    }

    mutating func fireDueNotifications(_ out: inout [OSEffect]) {
        let due = pendingNotifications.values.filter { ($0.nextFire ?? .infinity) <= now }
            .sorted { ($0.nextFire!, $0.record.identifier) < ($1.nextFire!, $1.record.identifier) }
        for p in due {
            let id = p.record.identifier
            let repeats = p.record.trigger?.repeats == true
            if repeats {
                pendingNotifications[id]!.nextFire = fireTime(p.record, after: now)
            } else {
                pendingNotifications[id] = nil
            }
            if Self.grantedNotificationStatuses.contains(notificationStatus) {
                deliveredNotifications.insert(id)
                // Recorded before it is delivered: the app hears of it at once.
                out.append(.record(.notificationDelivered, ["identifier": id]))
                out.append(.deliverNotification(p.record))
            } else {
                if !repeats { out.append(.discardNotification(identifier: id)) }
                out.append(.record(.notificationNotShown, ["identifier": id, "why": "notifications are \(notificationStatus)"]))
            }
        }
    }

    mutating func tapNotification(_ id: String, action: String, foreground: Bool, _ out: inout [OSEffect]) {
        guard deliveredNotifications.remove(id) != nil else {
            out.append(.record(.notificationTapUnavailable, ["identifier": id, "action": action]))
            return
        }
        out.append(.record(.notificationTapped, ["identifier": id, "action": action, "foreground": String(foreground)]))
        out.append(.notificationResponse(identifier: id, action: action))
        if foreground {
            openHost(&out)
        } else {
            // A background action: iOS runs the app in the background to handle it, then suspends
            // it again after the grace period.
            switch host {
            case .notRunning:
                out.append(.launchHost)
                host = .background(since: now)
                out.append(.record(.hostState, ["state": "background", "why": "notification action"]))
            case .suspended:
                out.append(.resumeHost)
                host = .background(since: now)
                out.append(.record(.hostState, ["state": "background", "why": "notification action"]))
            case .background, .foreground:
                break
            }
        }
    }
}
