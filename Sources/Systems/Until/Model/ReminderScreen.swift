import Foundation
import ScreenTimeModel
import SystemKit

/// The as-written host's JS side (React Native), which the seed describes and does not show: it
/// asks for permissions, polls the native module ("Implement periodic polling in main app to check
/// for events", Next Steps 3; "Main App (Polling or Darwin)", Architecture) and fires a reminder for
/// every `onAppOpened` the native module emits ("Reminder should fire", Testing after approval 7).
///
/// The native module itself is the seed's Swift (Seed003's `ScreenTimeModule`): the stand-in calls
/// it on each poll tick and Darwin notification and hands what it emitted to this machine.
public struct ReminderScreen: Sendable {
    /// The JS `setInterval` that calls `checkForAppOpenedEvents` (A3: every 5 s, while the app runs).
    public static let pollTimer = "js.checkForAppOpenedEvents"
    public static let pollSeconds = 5.0

    public enum Event: Sendable, Equatable {
        /// The app started (JS mounted).
        case launched
        /// "When I open an app" tapped: the Screen Time permission request (What Works Now, 1).
        case appTriggerTapped
        /// `startMonitoring` settled: resolved (`true`) or rejected with the seed's code.
        case monitoringSettled(rejectedCode: String?, message: String?)
        /// The native module emitted `onAppOpened` (`body.appToken`). `eventTimestampMillis` is what
        /// the same `checkForAppOpenedEvents` call resolved (the JS side's promise result), kept for
        /// the history so the checker can tell which report the reminder answers.
        case appOpenedEmitted(appToken: String, eventTimestampMillis: Int64?, via: String, now: Date)
        /// An answer to a permission request.
        case authorization(AuthorizationAnswer)
    }

    /// Reminders fired by this JS instance (memory only: a relaunch starts at 0).
    var fired = 0

    public init() {}

    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .launched:
            // A3, A4: the notification permission a JS local-notification library asks for at start,
            // and the polling interval.
            return [
                .requestAuthorization(.notifications(options: ["alert", "sound"])),
                .startTimer(Self.pollTimer, .every(seconds: Self.pollSeconds)),
            ]
        case .appTriggerTapped:
            return [.requestAuthorization(.screenTime(member: "individual"))]
        case .monitoringSettled(let code, let message):
            guard let code else { return [.trace("monitoring_started", [:])] }
            return [.trace("monitoring_rejected", ["code": code, "message": message ?? ""])]
        case .appOpenedEmitted(let appToken, let ts, let via, let now):
            fired += 1
            // A5: a fresh identifier per reminder, as JS notification libraries generate one.
            let id = "reminder-\(Int64((now.timeIntervalSince1970 * 1000).rounded()))-\(fired)"
            return Reminder.fire(identifier: id, eventTimestampMillis: ts, via: via, fields: ["appToken": appToken])
        case .authorization(let answer):
            // The run loop traces every answer (`authorization_answered`); nothing more follows from it.
            _ = answer
            return []
        }
    }
}

/// The reminder both variants fire: a local notification, delivered now (A5), and the history's
/// `reminder` line naming the report it answers.
public enum Reminder {
    public static let title = "Until"
    public static let body = "You opened an app you asked to be reminded about."

    public static func fire(identifier: String, eventTimestampMillis: Int64?, via: String, fields: [String: String] = [:]) -> [Effect] {
        var f = fields
        f["identifier"] = identifier
        f["eventTimestamp"] = eventTimestampMillis.map { String($0) } ?? "-"
        f["via"] = via
        return [
            .addNotification(NotificationRequest(identifier: identifier, content: .init(title: title, body: body))),
            .trace("reminder", f),
        ]
    }
}
