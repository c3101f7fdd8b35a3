import Foundation

/// Apple's `UNNotificationSound`: which sound, by name.
public final class UNNotificationSound: NSObject, @unchecked Sendable {
    public let name: String

    init(name: String) { self.name = name }

    public static let `default` = UNNotificationSound(name: "default")
    public static let defaultCritical = UNNotificationSound(name: "defaultCritical")

    public convenience init(named name: UNNotificationSoundName) { self.init(name: name.rawValue) }

    public override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationSound)?.name == name }
    public override var hash: Int { name.hashValue }
}

public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Apple's `UNNotificationInterruptionLevel`.
public enum UNNotificationInterruptionLevel: UInt, Sendable, Equatable {
    case passive = 0
    case active = 1
    case timeSensitive = 2
    case critical = 3

    var name: String {
        switch self {
        case .passive: "passive"
        case .active: "active"
        case .timeSensitive: "timeSensitive"
        case .critical: "critical"
        }
    }

    init(name: String) {
        switch name {
        case "passive": self = .passive
        case "timeSensitive": self = .timeSensitive
        case "critical": self = .critical
        default: self = .active
        }
    }
}

/// Apple's `UNNotificationContent` (read-only); `UNMutableNotificationContent` is the one apps fill.
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    struct Fields: Equatable {
        var title = ""
        var subtitle = ""
        var body = ""
        var sound: UNNotificationSound?
        var badge: NSNumber?
        var categoryIdentifier = ""
        var threadIdentifier = ""
        var userInfo: [AnyHashable: Any] = [:]
        var interruptionLevel: UNNotificationInterruptionLevel = .active
        var targetContentIdentifier: String?

        static func == (a: Fields, b: Fields) -> Bool {
            a.title == b.title && a.subtitle == b.subtitle && a.body == b.body && a.sound?.name == b.sound?.name && a.badge == b.badge
                && a.categoryIdentifier == b.categoryIdentifier && a.threadIdentifier == b.threadIdentifier
                && a.interruptionLevel == b.interruptionLevel && NSDictionary(dictionary: a.userInfo).isEqual(to: b.userInfo)
        }
    }

    var fields = Fields()

    public override init() {}

    init(fields: Fields) { self.fields = fields }

    public var title: String { fields.title }
    public var subtitle: String { fields.subtitle }
    public var body: String { fields.body }
    public var sound: UNNotificationSound? { fields.sound }
    public var badge: NSNumber? { fields.badge }
    public var categoryIdentifier: String { fields.categoryIdentifier }
    public var threadIdentifier: String { fields.threadIdentifier }
    public var userInfo: [AnyHashable: Any] { fields.userInfo }
    public var interruptionLevel: UNNotificationInterruptionLevel { fields.interruptionLevel }
    public var targetContentIdentifier: String? { fields.targetContentIdentifier }

    /// `copy()` gives an immutable content, `mutableCopy()` a `UNMutableNotificationContent`.
    public func copy(with zone: NSZone? = nil) -> Any { UNNotificationContent(fields: fields) }

    public func mutableCopy(with zone: NSZone? = nil) -> Any { UNMutableNotificationContent(fields: fields) }

    public override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationContent)?.fields == fields }
    public override var hash: Int { fields.title.hashValue ^ fields.body.hashValue }
}

/// Apple's `UNMutableNotificationContent`.
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    public override init() { super.init() }

    override init(fields: Fields) { super.init(fields: fields) }

    public override var title: String { get { fields.title } set { fields.title = newValue } }
    public override var subtitle: String { get { fields.subtitle } set { fields.subtitle = newValue } }
    public override var body: String { get { fields.body } set { fields.body = newValue } }
    public override var sound: UNNotificationSound? { get { fields.sound } set { fields.sound = newValue } }
    public override var badge: NSNumber? { get { fields.badge } set { fields.badge = newValue } }
    public override var categoryIdentifier: String { get { fields.categoryIdentifier } set { fields.categoryIdentifier = newValue } }
    public override var threadIdentifier: String { get { fields.threadIdentifier } set { fields.threadIdentifier = newValue } }
    public override var userInfo: [AnyHashable: Any] { get { fields.userInfo } set { fields.userInfo = newValue } }
    public override var interruptionLevel: UNNotificationInterruptionLevel {
        get { fields.interruptionLevel }
        set { fields.interruptionLevel = newValue }
    }
    public override var targetContentIdentifier: String? {
        get { fields.targetContentIdentifier }
        set { fields.targetContentIdentifier = newValue }
    }
}
