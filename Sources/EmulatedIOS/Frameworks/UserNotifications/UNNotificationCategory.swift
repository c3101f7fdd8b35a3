import Foundation

/// Apple's `UNNotificationActionOptions`.
public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    /// The action launches or foregrounds the app.
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)

    static let names: [(UNNotificationActionOptions, String)] = [
        (.authenticationRequired, "authenticationRequired"), (.destructive, "destructive"), (.foreground, "foreground"),
    ]
    var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    init(names: [String]) { self = UNNotificationActionOptions(Self.names.filter { names.contains($0.1) }.map(\.0)) }
}

/// Apple's `UNNotificationAction`: a button on a delivered notification.
open class UNNotificationAction: NSObject, @unchecked Sendable {
    public let identifier: String
    public let title: String
    public let options: UNNotificationActionOptions

    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
    }
}

/// Apple's `UNTextInputNotificationAction`.
open class UNTextInputNotificationAction: UNNotificationAction, @unchecked Sendable {
    public let textInputButtonTitle: String
    public let textInputPlaceholder: String

    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], textInputButtonTitle: String, textInputPlaceholder: String) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options)
    }
}

/// Apple's `UNNotificationCategoryOptions`.
public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The app hears about dismissals (`UNNotificationDismissActionIdentifier`).
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
    public static let allowAnnouncement = UNNotificationCategoryOptions(rawValue: 1 << 4)

    static let names: [(UNNotificationCategoryOptions, String)] = [
        (.customDismissAction, "customDismissAction"), (.allowInCarPlay, "allowInCarPlay"), (.hiddenPreviewsShowTitle, "hiddenPreviewsShowTitle"),
        (.hiddenPreviewsShowSubtitle, "hiddenPreviewsShowSubtitle"), (.allowAnnouncement, "allowAnnouncement"),
    ]
    var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    init(names: [String]) { self = UNNotificationCategoryOptions(Self.names.filter { names.contains($0.1) }.map(\.0)) }
}

/// Apple's `UNNotificationCategory`: the actions a kind of notification offers.
open class UNNotificationCategory: NSObject, @unchecked Sendable {
    public let identifier: String
    public let actions: [UNNotificationAction]
    public let intentIdentifiers: [String]
    public let options: UNNotificationCategoryOptions

    public init(identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String], options: UNNotificationCategoryOptions = []) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
    }

    // Categories live in a Set: equal by identifier, as Apple documents for setNotificationCategories.
    public override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationCategory)?.identifier == identifier }
    public override var hash: Int { identifier.hashValue }
}
