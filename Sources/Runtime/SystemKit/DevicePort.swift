import Foundation
import ScreenTimeModel

/// What carrying out an `Effect` needs from the device. `LiveDevice` (StandInKit) writes the
/// device root and talks to servers; `InMemoryDevice` keeps it all in memory for tests and
/// crash-point exploration. Errors thrown here are traced by the interpreter, never swallowed.
public protocol DevicePort: AnyObject {
    /// One atomic write to the process's App Group suite.
    func writeDefaults(_ writes: [DefaultsWrite]) throws
    /// One atomic write to the process's own store (`sandboxes/<process>/`).
    func writePrivateDefaults(_ writes: [DefaultsWrite]) throws
    func post(_ name: String) throws
    /// One write to a ManagedSettings store: the properties it names, the rest untouched.
    func writeShield(_ write: ShieldWrite) throws
    func clearSettings(store: String) throws
    func startMonitoring(activity: String, start: Date, end: Date, repeats: Bool) throws
    func startMonitoring(activity: String, schedule: MonitoringSchedule, events: [String: MonitoringEvent]) throws
    func stopMonitoring(_ activities: [String]) throws
    func startTimer(_ name: String, _ fire: TimerFire)
    func cancelTimer(_ name: String)
    func send(requestId: Int, _ call: HTTPCall)
    func respond(_ response: ShieldActionResponse)
    /// Asks iOS; the answer reaches the machine as an input (`AppInput.authorization`), never as
    /// a thrown error (a prompt is answered, not failed).
    func requestAuthorization(_ request: AuthorizationRequest)
    func setNotificationCategories(_ categories: [NotificationCategoryRecord]) throws
    func addNotification(_ request: NotificationRequest) throws
    func removeNotifications(_ removal: NotificationRemoval) throws
    func setBadge(_ count: Int) throws
    func trace(_ event: String, _ fields: [String: String])
    /// True when the device carries its OS calls out through the Apple-named frameworks, which
    /// mark their own crash points (CRASH-POINTS.md §11) — the same place a seed's own code calling
    /// them directly is marked — so the interpreter does not mark them twice. False (the default:
    /// `InMemoryDevice`): the interpreter marks them.
    var frameworksMarkCrashPoints: Bool { get }
}

extension DevicePort {
    public var frameworksMarkCrashPoints: Bool { false }
}
