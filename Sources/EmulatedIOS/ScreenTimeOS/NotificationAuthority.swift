import Foundation
import ScreenTimeModel
import OSFiles

/// The OS's side of `system/notifications/` (EMULATED-IOS.md §7.5): read what the app asked for,
/// answer the authorization prompt, deliver requests, apply removals, and build the inbox
/// message a tap sends to the app.
public enum NotificationAuthority {
    public static func pending(on device: EmulatedDevice) -> OSReadout<NotificationRequestRecord> {
        do {
            let (records, errors) = try device.area(OSPaths.pendingNotifications).readAll(NotificationRequestRecord.self)
            return OSReadout(records: records.map(\.record).sorted { ($0.addedAt, $0.identifier) < ($1.addedAt, $1.identifier) }, errors: errors.map(\.description))
        } catch {
            return OSReadout(errors: [error.description])
        }
    }

    public static func categories(on device: EmulatedDevice) throws(OSFileError) -> [NotificationCategoryRecord] {
        try device.area(OSPaths.notifications).read(NotificationCategoriesRecord.self, OSPaths.notificationCategories)?.categories ?? []
    }

    public static func delivered(on device: EmulatedDevice) throws(OSFileError) -> [DeliveredNotificationRecord] {
        try device.area(OSPaths.notifications).read(DeliveredNotificationsRecord.self, OSPaths.deliveredNotifications)?.notifications ?? []
    }

    public static func status(on device: EmulatedDevice) throws(OSFileError) -> AuthorizationStatusRecord? {
        try device.area(OSPaths.notifications).read(AuthorizationStatusRecord.self, OSPaths.notificationAuthorization)
    }

    /// The app's authorization prompt, if it is still open.
    public static func openAuthorizationRequest(on device: EmulatedDevice) throws(OSFileError) -> AuthorizationRequestRecord? {
        let area = try device.area(OSPaths.notifications)
        guard let r = try area.read(AuthorizationRequestRecord.self, OSPaths.notificationAuthorizationRequest) else { return nil }
        return try status(on: device)?.answeredRequest == r.id ? nil : r
    }

    /// Writes the authorization status (`notDetermined`, `denied`, `authorized`, `provisional`,
    /// `ephemeral`) with the granted options, answering `request` if given.
    public static func setAuthorization(_ status: String, options: [String], answering request: String? = nil, on device: EmulatedDevice) throws(OSFileError) {
        guard ["notDetermined", "denied", "authorized", "provisional", "ephemeral"].contains(status) else {
            throw .malformed(path: "\(OSPaths.notifications)/\(OSPaths.notificationAuthorization)", reason: "unknown status \(status)")
        }
        try device.area(OSPaths.notifications).write(
            AuthorizationStatusRecord(status: status, answeredRequest: request, options: options, writtenAt: device.now()),
            OSPaths.notificationAuthorization, post: OSPaths.notificationsChanged)
    }

    /// Delivers a pending request at `date`: appends it to `delivered.json` (replacing a
    /// delivered one with the same identifier, as Notification Center does) and, unless it
    /// repeats, removes it from `pending/`. Whether it may be shown (authorization) is the OS
    /// model's decision, made before calling this.
    public static func deliver(_ request: NotificationRequestRecord, at date: Date, on device: EmulatedDevice) throws(OSFileError) {
        let area = try device.area(OSPaths.notifications)
        try area.withLock { () throws(OSFileError) in
            var list = try area.read(DeliveredNotificationsRecord.self, OSPaths.deliveredNotifications)?.notifications ?? []
            list.removeAll { $0.request.identifier == request.identifier }
            list.append(DeliveredNotificationRecord(request: request, date: date))
            try area.write(DeliveredNotificationsRecord(notifications: list), OSPaths.deliveredNotifications, post: nil)
        }
        if request.trigger?.repeats != true, let f = OSFileName.encode(request.identifier) {
            try device.area(OSPaths.pendingNotifications).directory.remove(f)
        }
        try area.post(OSPaths.notificationsChanged)
    }

    /// Applies and deletes the app's removal requests; returns the identifiers removed.
    @discardableResult
    public static func applyRemovals(on device: EmulatedDevice) throws(OSFileError) -> [String] {
        let removals = try device.area(OSPaths.notificationRemovals)
        let (records, _) = removals.readAll(NotificationRemovalRecord.self)
        guard !records.isEmpty else { return [] }
        let area = try device.area(OSPaths.notifications)
        let removed = try area.withLock { () throws(OSFileError) -> [String] in
            var list = try area.read(DeliveredNotificationsRecord.self, OSPaths.deliveredNotifications)?.notifications ?? []
            var gone: [String] = []
            for (_, r) in records {
                let drop = list.filter { r.all || r.delivered.contains($0.request.identifier) }.map(\.request.identifier)
                gone += drop
                list.removeAll { drop.contains($0.request.identifier) }
            }
            try area.write(DeliveredNotificationsRecord(notifications: list), OSPaths.deliveredNotifications, post: nil)
            return gone
        }
        for (name, _) in records { removals.directory.remove(name) }
        try area.post(OSPaths.notificationsChanged)
        return removed
    }

    /// The user taps a delivered notification (or one of its actions): it leaves Notification
    /// Center, and the returned fields are the inbox message (`notification_response`) for the app.
    public static func tap(_ identifier: String, actionIdentifier: String = NotificationResponseMessage.defaultActionIdentifier, userText: String? = nil, on device: EmulatedDevice) throws -> [String: String]? {
        let area = try device.area(OSPaths.notifications)
        let tapped = try area.withLock { () throws(OSFileError) -> DeliveredNotificationRecord? in
            var list = try area.read(DeliveredNotificationsRecord.self, OSPaths.deliveredNotifications)?.notifications ?? []
            guard let n = list.last(where: { $0.request.identifier == identifier }) else { return nil }
            list.removeAll { $0.request.identifier == identifier }
            try area.write(DeliveredNotificationsRecord(notifications: list), OSPaths.deliveredNotifications, post: OSPaths.notificationsChanged)
            return n
        }
        guard let tapped else { return nil }
        return try NotificationResponseMessage.fields(actionIdentifier: actionIdentifier, notification: tapped, userText: userText)
    }
}
