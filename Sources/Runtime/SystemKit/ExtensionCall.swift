import ScreenTimeModel

/// One call iOS makes into an extension process (EMULATED-IOS.md §7). The emulated OS starts a fresh
/// process per call with `arguments(delivery:)`; the stand-in parses them back
/// (`StandInKit.FrameworkCallOptions`), handles the one call, and exits.
public enum ExtensionCall: Sendable, Equatable {
    /// `DeviceActivityMonitor`'s callbacks; `event` for the event callbacks only.
    case monitor(MonitorCallback, activity: String, event: String?)
    /// `ShieldActionDelegate.handle(action:for:completionHandler:)` for an application token.
    case shieldAction(ShieldAction, application: String)
    /// `ShieldConfigurationDataSource.configuration(shielding:)` for an application.
    case shieldConfiguration(application: String)

    /// The extension point that receives this call.
    public var point: ExtensionPoint {
        switch self {
        case .monitor: .deviceActivityMonitor
        case .shieldAction: .shieldAction
        case .shieldConfiguration: .shieldConfiguration
        }
    }

    /// The callback's name as traces and the history spell it.
    public var callbackName: String {
        switch self {
        case .monitor(let callback, _, _): callback.rawValue
        case .shieldAction: "shieldAction"
        case .shieldConfiguration: "shieldConfiguration"
        }
    }

    /// The extension point that receives the callback of this name (`callbackNames`).
    public static func point(ofCallback name: String) -> ExtensionPoint {
        switch name {
        case "shieldAction": .shieldAction
        case "shieldConfiguration": .shieldConfiguration
        default: .deviceActivityMonitor
        }
    }

    /// Every callback name `callbackName` can return.
    public static let callbackNames = MonitorCallback.allCases.map(\.rawValue) + ["shieldAction", "shieldConfiguration"]

    /// Command-line arguments after the role's own (`--delivery N` last).
    public func arguments(delivery: Int) -> [String] {
        var args: [String]
        switch self {
        case .monitor(let callback, let activity, let event):
            args = ["--callback", callback.rawValue, "--activity", activity]
            if let event { args += ["--event", event] }
        case .shieldAction(let action, let application):
            args = ["--action", action.rawValue, "--app", application]
        case .shieldConfiguration(let application):
            args = ["--app", application]
        }
        return args + ["--delivery", String(delivery)]
    }
}

/// The extension points of the Screen Time frameworks.
public enum ExtensionPoint: String, Sendable, Codable, CaseIterable {
    case deviceActivityMonitor = "device-activity-monitor"
    case shieldAction = "shield-action"
    case shieldConfiguration = "shield-configuration"
}

/// Apple's `DeviceActivityMonitor` callbacks.
public enum MonitorCallback: String, Sendable, Codable, CaseIterable {
    case intervalDidStart
    case intervalDidEnd
    case eventDidReachThreshold
    case intervalWillStartWarning
    case intervalWillEndWarning
    case eventWillReachThresholdWarning
}


