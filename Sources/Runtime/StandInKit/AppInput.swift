import ScreenTimeModel
import OSFiles
import SystemKit

/// Everything that can happen to a running app, as its run loop hands it to the pack's adapter.
///
/// An adapter handles the inputs its seed cares about and ignores the rest with a `default:` —
/// so a case added here for another seed costs no pack an edit. What iOS tells the app arrives
/// through the inbox as a reserved message (EMULATED-IOS.md §7.7) and reaches the adapter typed.
public enum AppInput: Sendable, Equatable {
    /// The process started (first launch or relaunch): memory is empty, the App Group is not.
    case launched
    /// The user did something in the app (`AppInbox`).
    case user(AppMessage)
    /// A Darwin notification the app observes was posted.
    case notification(String)
    /// A timer the app started (`Effect.startTimer`) fired.
    case timer(String)
    /// The answer to `Effect.http(requestId:_:)`.
    case httpReply(requestId: Int, HTTPReply)
    /// An effect the adapter asked for threw (e.g. `startMonitoring`'s `MonitoringError`): what
    /// the app's code would have caught. Already traced; told once (not for effects of this input).
    case effectFailed(EffectFailure)
    /// The app came to the foreground (`UIApplication.didBecomeActiveNotification`, React
    /// Native's `AppState` `active`): after a launch by the user, and every time it is opened.
    case becameActive
    /// The app left the foreground (`didEnterBackgroundNotification`, `AppState` `background`);
    /// iOS suspends it soon after (EMULATED-IOS.md §10.2).
    case enteredBackground
    /// A URL of the app's scheme opened it (`application(_:open:options:)`, a deep link such as
    /// `pushin://workout`), on a cold start right after `launched`, or while it ran.
    case openURL(String)
    /// The user responded to one of its notifications (the delegate's `didReceive`).
    case notificationResponse(NotificationResponse)
    /// `UIApplication.significantTimeChangeNotification`: midnight passed, the time zone or
    /// daylight saving time changed, or the clock was set.
    case significantTimeChange
    /// The answer to `Effect.requestAuthorization`.
    case authorization(AuthorizationAnswer)
}

/// The typed input each of iOS's reserved inbox messages (`ScreenTimeModel.OSMessageActions`,
/// EMULATED-IOS.md §7.7) becomes.
public enum OSMessage {
    static let appState = OSMessageActions.appState
    static let openURL = OSMessageActions.openURL
    static let significantTimeChange = OSMessageActions.significantTimeChange

    /// The input for an OS message, nil for the app's own actions; a malformed OS message is an
    /// error naming what is wrong.
    public static func input(for m: AppMessage) -> Result<AppInput, MalformedOSMessage>? {
        switch m.action {
        case appState:
            switch m["state"] {
            case "active": return .success(.becameActive)
            case "background": return .success(.enteredBackground)
            default: return .failure(MalformedOSMessage(action: m.action, reason: "state must be active or background"))
            }
        case openURL:
            guard let url = m["url"], !url.isEmpty else { return .failure(MalformedOSMessage(action: m.action, reason: "no url")) }
            return .success(.openURL(url))
        case significantTimeChange:
            return .success(.significantTimeChange)
        default:
            return nil
        }
    }
}

public struct MalformedOSMessage: Error, Sendable, Equatable {
    public var action: String
    public var reason: String
}
