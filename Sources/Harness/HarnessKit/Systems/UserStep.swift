import ScreenTimeModel
import SystemKit

/// One gesture of the user on the phone. A pack says which (`SystemPack.move(_:seeing:)`); the
/// core records the move, then performs its steps in order (`UserMove`) — a pack never acts on
/// the device itself.
public enum UserStep: Sendable, Equatable {
    /// A tap inside an app role, delivered through its inbox (EMULATED-IOS.md §7.7; read at launch
    /// if the app is dead). A host that iOS suspended or terminated is opened first.
    case tap(role: String, AppMessage)
    /// The user opens the host app (launched, or resumed and foregrounded).
    case openHost
    /// The user goes to the home screen: the host goes to the background (suspended after the grace).
    case leaveHost
    /// The user swipes the host away: terminated until opened again.
    case forceQuitHost
    /// The user opens an app and keeps it frontmost for `seconds`: counted toward the events that
    /// select it; if it is shielded the shield shows instead. `label` goes on the history lines of
    /// the calls it causes (e.g. the session the user meant).
    case useApp(String, seconds: Double, label: [String: String] = [:])
    /// The user presses a button of the shield on screen (recorded as unavailable if none shows).
    case pressShield(ShieldAction, label: [String: String] = [:])
    /// The user opens a URL (a link, a notification's deep link): the host opens it when its role
    /// registered the scheme (`AppNotices.urlSchemes`); any other scheme is recorded as not handled.
    case openURL(String)
    /// The user taps a delivered notification (`action`: `NotificationResponse.defaultAction`) or
    /// one of its actions; recorded as unavailable if it is not in Notification Center.
    case tapNotification(identifier: String, action: String)
    /// The user deletes an app (refused while a store sets `application.denyAppRemoval`).
    case deleteApp(String)
    /// The user installs an app (refused while a store sets `application.denyAppInstallation`).
    case installApp(String)
    /// The user opens a website (`adult`: the adult-content classifier would say so).
    case visitWebsite(String, adult: Bool)
    /// iOS calls the system's extension directly, for a user action the OS does not model. `label`
    /// is added to the history's `callback_delivered` line. Field faults apply.
    case deliver(ExtensionCall, label: [String: String] = [:])
    /// Another `user_action` line, `action` and `fields` as given: what the user saw at this
    /// point (e.g. what Notification Center showed), for the checker.
    case note(String, [String: String])
}

/// What the user does at one moment of the plan: recorded as one `user_action` line (`action`
/// and `fields`), then its steps performed in order. Recording first is the core's, so the
/// history's user line always comes before what it caused.
public struct UserMove: Sendable, Equatable {
    /// The `user_action` line's `action` (e.g. `start_session`): what the checker reads.
    public var action: String
    public var fields: [String: String]
    public var steps: [UserStep]

    public init(_ action: String, _ fields: [String: String] = [:], steps: [UserStep]) {
        (self.action, self.fields, self.steps) = (action, fields, steps)
    }

    /// Opens the host, then taps `message` in `role` — how a user does anything inside the app.
    public static func inHost(_ action: String, _ fields: [String: String] = [:], role: String, tap message: AppMessage) -> UserMove {
        UserMove(action, fields, steps: [.openHost, .tap(role: role, message)])
    }
}

/// What the user sees when they act: a move may depend on it (the newest notification on the lock
/// screen, the time a tap is made). Reading it changes nothing but firing the notifications due.
public protocol UserScreen: AnyObject {
    /// Device time now, unix seconds.
    var now: Double { get }
    /// ManagedSettings ground truth: the applications shielded now.
    var shieldedApplications: Set<String> { get }
    /// True while a DeviceActivity registration named `activity` is inside its interval.
    func isMonitored(_ activity: String) -> Bool
    /// The identifiers of the notifications in Notification Center now, oldest first (an app's
    /// identifiers are its own — often UUIDs a workload cannot know in advance).
    var deliveredNotifications: [String] { get }
}
