import Foundation
import ScreenTimeModel
import SystemFiles

/// The OS's side of `system/notifications/` (EMULATED-IOS.md §7.5): read what the app asked for,
/// answer the authorization prompt, deliver requests, apply removals, and build the inbox
/// message a tap sends to the app.
public enum NotificationAuthority {
    public static func pending(on device: EmulatedDevice) -> SystemReadout<NotificationRequestRecord> {
        do {
            let (records, errors) = try device.area(SystemPaths.pendingNotifications).readAll(NotificationRequestRecord.self)
            return SystemReadout(records: records.map(\.record).sorted { ($0.addedAt, $0.identifier) < ($1.addedAt, $1.identifier) }, errors: errors.map(\.description))
        } catch {
            return SystemReadout(errors: [error.description])
        }
    }

    public static func categories(on device: EmulatedDevice) throws(SystemFileError) -> [NotificationCategoryRecord] {
        try device.area(SystemPaths.notifications).read(NotificationCategoriesRecord.self, SystemPaths.notificationCategories)?.categories ?? []
    }

    public static func delivered(on device: EmulatedDevice) throws(SystemFileError) -> [DeliveredNotificationRecord] {
        try device.area(SystemPaths.notifications).read(DeliveredNotificationsRecord.self, SystemPaths.deliveredNotifications)?.notifications ?? []
    }

    public static func status(on device: EmulatedDevice) throws(SystemFileError) -> AuthorizationStatusRecord? {
        try device.area(SystemPaths.notifications).read(AuthorizationStatusRecord.self, SystemPaths.notificationAuthorization)
    }

    /// The app's authorization prompt, if it is still open.
    public static func openAuthorizationRequest(on device: EmulatedDevice) throws(SystemFileError) -> AuthorizationRequestRecord? {
        let area = try device.area(SystemPaths.notifications)
        guard let r = try area.read(AuthorizationRequestRecord.self, SystemPaths.notificationAuthorizationRequest) else { return nil }
        return try status(on: device)?.answeredRequest == r.id ? nil : r
    }

    /// Writes the authorization status (`notDetermined`, `denied`, `authorized`, `provisional`,
    /// `ephemeral`) with the granted options, answering `request` if given.
    public static func setAuthorization(_ status: String, options: [String], answering request: String? = nil, on device: EmulatedDevice) throws(SystemFileError) {
        guard ["notDetermined", "denied", "authorized", "provisional", "ephemeral"].contains(status) else {
            throw .malformed(path: "\(SystemPaths.notifications)/\(SystemPaths.notificationAuthorization)", reason: "unknown status \(status)")
        }
        try device.area(SystemPaths.notifications).write(
            AuthorizationStatusRecord(status: status, answeredRequest: request, options: options, writtenAt: device.now()),
            SystemPaths.notificationAuthorization, post: SystemPaths.notificationsChanged)
    }

    /// Delivers a pending request at `date`: appends it to `delivered.json` (replacing a
    /// delivered one with the same identifier, as Notification Center does) and, unless it
    /// repeats, removes it from `pending/`. Whether it may be shown (authorization) is the OS
    /// model's decision, made before calling this.
    public static func deliver(_ request: NotificationRequestRecord, at date: Date, on device: EmulatedDevice) throws(SystemFileError) {
        let area = try device.area(SystemPaths.notifications)
        try area.withLock { () throws(SystemFileError) in
            var list = try area.read(DeliveredNotificationsRecord.self, SystemPaths.deliveredNotifications)?.notifications ?? []
            list.removeAll { $0.request.identifier == request.identifier }
            list.append(DeliveredNotificationRecord(request: request, date: date))
            try area.write(DeliveredNotificationsRecord(notifications: list), SystemPaths.deliveredNotifications, post: nil)
        }
        if request.trigger?.repeats != true, let f = SystemFileName.encode(request.identifier) {
            try device.area(SystemPaths.pendingNotifications).directory.remove(f)
        }
        try area.post(SystemPaths.notificationsChanged)
    }

    /// Applies and deletes the app's removal requests; returns the identifiers removed.
    @discardableResult
    public static func applyRemovals(on device: EmulatedDevice) throws(SystemFileError) -> [String] {
        let removals = try device.area(SystemPaths.notificationRemovals)
        let (records, _) = removals.readAll(NotificationRemovalRecord.self)
        guard !records.isEmpty else { return [] }
        let area = try device.area(SystemPaths.notifications)
        let removed = try area.withLock { () throws(SystemFileError) -> [String] in
            var list = try area.read(DeliveredNotificationsRecord.self, SystemPaths.deliveredNotifications)?.notifications ?? []
            var gone: [String] = []
            for (_, r) in records {
                let drop = list.filter { r.all || r.delivered.contains($0.request.identifier) }.map(\.request.identifier)
                gone += drop
                list.removeAll { drop.contains($0.request.identifier) }
            }
            try area.write(DeliveredNotificationsRecord(notifications: list), SystemPaths.deliveredNotifications, post: nil)
            return gone
        }
        for (name, _) in records { removals.directory.remove(name) }
        try area.post(SystemPaths.notificationsChanged)
        return removed
    }

    /// The user taps a delivered notification (or one of its actions): it leaves Notification
    /// Center, and the returned fields are the inbox message (`notification_response`) for the app.
    public static func tap(_ identifier: String, actionIdentifier: String = NotificationResponseMessage.defaultActionIdentifier, userText: String? = nil, on device: EmulatedDevice) throws -> [String: String]? {
        let area = try device.area(SystemPaths.notifications)
        let tapped = try area.withLock { () throws(SystemFileError) -> DeliveredNotificationRecord? in
            var list = try area.read(DeliveredNotificationsRecord.self, SystemPaths.deliveredNotifications)?.notifications ?? []
            guard let n = list.last(where: { $0.request.identifier == identifier }) else { return nil }
            list.removeAll { $0.request.identifier == identifier }
            try area.write(DeliveredNotificationsRecord(notifications: list), SystemPaths.deliveredNotifications, post: SystemPaths.notificationsChanged)
            return n
        }
        guard let tapped else { return nil }
        return try NotificationResponseMessage.fields(actionIdentifier: actionIdentifier, notification: tapped, userText: userText)
    }
}
