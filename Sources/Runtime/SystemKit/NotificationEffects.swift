import ScreenTimeModel

/// `UNNotificationRequest` as a machine builds it (EMULATED-IOS.md §7.5): identifier, content and an
/// optional trigger (nil = deliver now). The records are the ones the OS reads, so the two sides
/// cannot disagree on a field.
public struct NotificationRequest: Sendable, Equatable {
    public var identifier: String
    public var content: NotificationContentRecord
    public var trigger: NotificationTriggerRecord?

    public init(identifier: String, content: NotificationContentRecord, trigger: NotificationTriggerRecord? = nil) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
}

/// Which notifications `removeNotifications` takes away.
public enum NotificationRemoval: Sendable, Equatable {
    /// `removePendingNotificationRequests(withIdentifiers:)`.
    case pending([String])
    /// `removeAllPendingNotificationRequests()`.
    case allPending
    /// `removeDeliveredNotifications(withIdentifiers:)`.
    case delivered([String])
    /// `removeAllDeliveredNotifications()`.
    case allDelivered
}

/// A permission prompt an app asks iOS for.
public enum AuthorizationRequest: Sendable, Equatable {
    /// FamilyControls, `requestAuthorization(for: .individual)` (member `individual` or `child`).
    case screenTime(member: String)
    /// UserNotifications, `requestAuthorization(options:)` (`alert`, `badge`, `sound`, …).
    case notifications(options: [String])

    public var kind: String {
        switch self {
        case .screenTime: "screenTime"
        case .notifications: "notifications"
        }
    }
}

/// iOS's answer to an `AuthorizationRequest`, as the app's code sees it.
public struct AuthorizationAnswer: Sendable, Equatable {
    /// `screenTime` or `notifications` (`AuthorizationRequest.kind`).
    public var kind: String
    /// FamilyControls: approved; notifications: `granted` (authorized, provisional or ephemeral).
    public var granted: Bool
    /// The status the OS reports (`approved`, `denied`, `authorized`, …), or the error thrown.
    public var status: String

    public init(kind: String, granted: Bool, status: String) {
        self.kind = kind
        self.granted = granted
        self.status = status
    }
}

/// The user's response to a delivered notification (`UNNotificationResponse`), as the app's
/// delegate sees it.
public struct NotificationResponse: Sendable, Equatable {
    public static let defaultAction = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismissAction = "com.apple.UNNotificationDismissActionIdentifier"

    public var identifier: String
    /// An action's identifier, `defaultAction` (the notification itself) or `dismissAction`.
    public var actionIdentifier: String
    public var categoryIdentifier: String
    public var userInfo: [String: JSONValue]
    /// Text-input actions only.
    public var userText: String?

    public init(identifier: String, actionIdentifier: String, categoryIdentifier: String = "", userInfo: [String: JSONValue] = [:], userText: String? = nil) {
        self.identifier = identifier
        self.actionIdentifier = actionIdentifier
        self.categoryIdentifier = categoryIdentifier
        self.userInfo = userInfo
        self.userText = userText
    }
}
