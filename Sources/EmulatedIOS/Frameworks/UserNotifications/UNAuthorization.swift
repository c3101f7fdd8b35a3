import Foundation

/// Apple's `UNAuthorizationOptions`.
public struct UNAuthorizationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)

    static let names: [(UNAuthorizationOptions, String)] = [
        (.badge, "badge"), (.sound, "sound"), (.alert, "alert"), (.carPlay, "carPlay"), (.criticalAlert, "criticalAlert"),
        (.providesAppNotificationSettings, "providesAppNotificationSettings"), (.provisional, "provisional"),
    ]

    var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

    @_spi(ScreenTimeHarness) public init(names: [String]) {
        self = UNAuthorizationOptions(Self.names.filter { names.contains($0.1) }.map(\.0))
    }
}

/// Apple's `UNAuthorizationStatus`.
public enum UNAuthorizationStatus: Int, Sendable, Equatable, CaseIterable {
    case notDetermined = 0
    case denied = 1
    case authorized = 2
    case provisional = 3
    case ephemeral = 4

    var name: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .denied: "denied"
        case .authorized: "authorized"
        case .provisional: "provisional"
        case .ephemeral: "ephemeral"
        }
    }

    init?(name: String) {
        guard let s = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = s
    }

    /// What `requestAuthorization` reports as `granted`.
    var isGranted: Bool { self == .authorized || self == .provisional || self == .ephemeral }
}

/// Apple's `UNNotificationSetting`.
public enum UNNotificationSetting: Int, Sendable, Equatable {
    case notSupported = 0
    case disabled = 1
    case enabled = 2
}

/// Apple's `UNNotificationSettings`, as much as the emulated OS decides: the status and which
/// of alert, badge and sound were granted.
public final class UNNotificationSettings: NSObject, @unchecked Sendable {
    public let authorizationStatus: UNAuthorizationStatus
    public let alertSetting: UNNotificationSetting
    public let badgeSetting: UNNotificationSetting
    public let soundSetting: UNNotificationSetting
    public let notificationCenterSetting: UNNotificationSetting
    public let lockScreenSetting: UNNotificationSetting

    init(status: UNAuthorizationStatus, granted: UNAuthorizationOptions) {
        authorizationStatus = status
        func setting(_ o: UNAuthorizationOptions) -> UNNotificationSetting { status.isGranted && granted.contains(o) ? .enabled : .disabled }
        alertSetting = setting(.alert)
        badgeSetting = setting(.badge)
        soundSetting = setting(.sound)
        notificationCenterSetting = status.isGranted ? .enabled : .disabled
        lockScreenSetting = status.isGranted ? .enabled : .disabled
    }
}
