import Foundation

/// `UNNotificationContent` on disk.
public struct NotificationContentRecord: Codable, Hashable, Sendable {
    public var title: String
    public var subtitle: String
    public var body: String
    /// `default`, `defaultCritical`, a sound file name, or nil for silence.
    public var sound: String?
    public var badge: Int?
    public var categoryIdentifier: String
    public var threadIdentifier: String
    public var userInfo: [String: JSONValue]
    /// `passive` | `active` | `timeSensitive` | `critical`.
    public var interruptionLevel: String

    public init(
        title: String = "", subtitle: String = "", body: String = "", sound: String? = nil, badge: Int? = nil,
        categoryIdentifier: String = "", threadIdentifier: String = "", userInfo: [String: JSONValue] = [:],
        interruptionLevel: String = "active"
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.badge = badge
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.userInfo = userInfo
        self.interruptionLevel = interruptionLevel
    }
}

/// A trigger: `{"kind": "timeInterval", "timeInterval": 300, "repeats": false}` or
/// `{"kind": "calendar", "dateMatching": {…components…}, "repeats": true}`. A request without a
/// trigger is delivered at once.
public struct NotificationTriggerRecord: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case timeInterval, calendar
    }

    public var kind: Kind
    public var repeats: Bool
    /// `timeInterval`: seconds after `addedAt` (and between repeats).
    public var timeInterval: Double?
    /// `calendar`: the components to match in the device's time zone.
    public var dateMatching: ScheduleComponents?

    public init(kind: Kind, repeats: Bool, timeInterval: Double? = nil, dateMatching: ScheduleComponents? = nil) {
        self.kind = kind
        self.repeats = repeats
        self.timeInterval = timeInterval
        self.dateMatching = dateMatching
    }
}

/// `UNNotificationRequest`: `system/notifications/pending/<file name of identifier>.json`, written
/// by `add(_:)` (a request with the same identifier replaces it), deleted by
/// `removePendingNotificationRequests` or by the OS when it delivers a non-repeating request.
public struct NotificationRequestRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    public var identifier: String
    public var content: NotificationContentRecord
    public var trigger: NotificationTriggerRecord?
    public var addedAt: Date
    public var addedBy: WriterRecord

    public init(identifier: String, content: NotificationContentRecord, trigger: NotificationTriggerRecord?, addedAt: Date, addedBy: WriterRecord) {
        self.version = Self.currentVersion
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        self.addedAt = addedAt
        self.addedBy = addedBy
    }
}

/// An action button of a category.
public struct NotificationActionRecord: Codable, Hashable, Sendable {
    public var identifier: String
    public var title: String
    /// `authenticationRequired`, `destructive`, `foreground`.
    public var options: [String]
    /// A text-input action's button title, when it is one.
    public var textInputButtonTitle: String?

    public init(identifier: String, title: String, options: [String] = [], textInputButtonTitle: String? = nil) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInputButtonTitle = textInputButtonTitle
    }
}

public struct NotificationCategoryRecord: Codable, Hashable, Sendable {
    public var identifier: String
    public var actions: [NotificationActionRecord]
    public var intentIdentifiers: [String]
    /// `customDismissAction`, `allowInCarPlay`, `hiddenPreviewsShowTitle`, `hiddenPreviewsShowSubtitle`.
    public var options: [String]

    public init(identifier: String, actions: [NotificationActionRecord], intentIdentifiers: [String] = [], options: [String] = []) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
    }
}

/// `system/notifications/categories.json`, replaced by `setNotificationCategories(_:)`.
public struct NotificationCategoriesRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    public var categories: [NotificationCategoryRecord]

    public init(categories: [NotificationCategoryRecord]) {
        self.version = Self.currentVersion
        self.categories = categories
    }
}

/// A notification the OS showed: the request and when.
public struct DeliveredNotificationRecord: Codable, Hashable, Sendable {
    public var request: NotificationRequestRecord
    public var date: Date

    public init(request: NotificationRequestRecord, date: Date) {
        self.request = request
        self.date = date
    }
}

/// `system/notifications/delivered.json`, written only by the OS: what Notification Center shows.
public struct DeliveredNotificationsRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    public var notifications: [DeliveredNotificationRecord]

    public init(notifications: [DeliveredNotificationRecord]) {
        self.version = Self.currentVersion
        self.notifications = notifications
    }
}

/// `system/notifications/removals/<id>.json`, written by the app: remove these delivered
/// notifications (`removeDeliveredNotifications(withIdentifiers:)`, or all). The OS applies it to
/// `delivered.json` and deletes the request file.
public struct NotificationRemovalRecord: Codable, Hashable, Sendable {
    public static let currentVersion = 1
    public var version: Int
    public var delivered: [String]
    public var all: Bool
    public var requestedAt: Date

    public init(delivered: [String], all: Bool, requestedAt: Date) {
        self.version = Self.currentVersion
        self.delivered = delivered
        self.all = all
        self.requestedAt = requestedAt
    }
}

/// `system/notifications/badge.json`, written by `setBadgeCount(_:)`.
public struct BadgeRecord: Codable, Hashable, Sendable {
    public var version: Int = 1
    public var count: Int

    public init(count: Int) { self.count = count }
}

/// The user's response to a delivered notification, as the OS hands it to the running (or
/// launched) app: an inbox message (EMULATED-IOS.md §7) with action `notification_response` and these
/// fields.
public enum NotificationResponseMessage {
    public static let action = "notification_response"
    /// The action the user chose: an action's identifier, or Apple's default / dismiss identifiers.
    public static let actionIdentifierField = "actionIdentifier"
    /// The notification as JSON (`DeliveredNotificationRecord`): tapping removes it from
    /// Notification Center, so the app cannot look it up afterwards.
    public static let notificationField = "notification"
    /// A text-input action's text.
    public static let userTextField = "userText"

    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

    /// The inbox fields for a response.
    public static func fields(actionIdentifier: String, notification: DeliveredNotificationRecord, userText: String? = nil) throws -> [String: String] {
        var f = [actionIdentifierField: actionIdentifier, notificationField: String(decoding: try OSJSON.encode(notification), as: UTF8.self)]
        if let userText { f[userTextField] = userText }
        return f
    }

    /// Back from inbox fields; throws a readable reason when they do not make a response.
    public static func parse(_ fields: [String: String]) throws -> (actionIdentifier: String, notification: DeliveredNotificationRecord, userText: String?) {
        guard let a = fields[actionIdentifierField], !a.isEmpty else { throw ParseError(reason: "no \(actionIdentifierField)") }
        guard let n = fields[notificationField] else { throw ParseError(reason: "no \(notificationField)") }
        do {
            return (a, try OSJSON.decode(DeliveredNotificationRecord.self, from: Array(n.utf8)), fields[userTextField])
        } catch {
            throw ParseError(reason: "\(notificationField) is not a delivered notification: \(error)")
        }
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "malformed notification_response: \(reason)" }
    }
}
