import PropertyList
import Foundation
import ScreenTimeModel

/// One key of a shared-defaults write: `value` nil means `removeObject(forKey:)`.
public struct DefaultsWrite: Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var value: PropertyListValue?

    public init(key: String, value: PropertyListValue?) {
        self.key = key
        self.value = value
    }

    public static func set(_ key: String, _ value: PropertyListValue) -> DefaultsWrite {
        DefaultsWrite(key: key, value: value)
    }

    public static func remove(_ key: String) -> DefaultsWrite {
        DefaultsWrite(key: key, value: nil)
    }

    public var description: String {
        value.map { "\(key)=\($0)" } ?? "-\(key)"
    }
}

/// Apple's `ShieldAction` and `ShieldActionResponse`: ScreenTimeModel's, the same types as
/// `ManagedSettings`'.
public typealias ShieldAction = ScreenTimeModel.ShieldAction
public typealias ShieldActionResponse = ScreenTimeModel.ShieldActionResponse

/// When a timer fires, in device time.
public enum TimerFire: Sendable, Equatable {
    /// Once, `seconds` after the effect is performed.
    case after(seconds: Double)
    /// Once, at this device time.
    case at(Date)
    /// Every `seconds`, the first time `seconds` after the effect is performed. A process that was
    /// stopped resumes with one firing, not a burst of the missed ones (like a Dart `Timer.periodic`).
    case every(seconds: Double)
}

/// What a seed system's pure state machine asks its process to do, in list order.
///
/// Every pack speaks this one vocabulary, so one interpreter (`EffectInterpreter`) carries effects
/// out — against the real device root in a stand-in, against an `InMemoryDevice` in tests and in
/// crash-point exploration. A process may die between any two effects, and between any two keys
/// of a `setDefaults(_, atomic: false)`: that is what crash-point exploration does.
///
/// The vocabulary covers what the five seeds' processes ask of iOS (one core, five seeds:
/// docs/SEEDS-AND-THE-CORE.md); a pack never switches over it — the interpreter does — so a new
/// case costs the packs nothing. Each case is documented in EMULATED-IOS.md §7.10 with what it
/// does on the device.
public enum Effect: Sendable, Equatable {
    /// Writes to the process's App Group suite. `atomic: true` = ONE multi-key write that lands
    /// entirely or not at all; `atomic: false` = separate `set`/`removeObject` calls in this order
    /// (UserDefaults in an App Group: each may be seen, or be the last before a kill, alone).
    case setDefaults([DefaultsWrite], atomic: Bool)
    /// Writes to the process's own store (`UserDefaults.standard`, an MMKV-style file): it
    /// survives kills and relaunches and no other process sees it (`sandboxes/<process>/`).
    /// `atomic` as for `setDefaults`.
    case setPrivateDefaults([DefaultsWrite], atomic: Bool)
    /// One write to a `ManagedSettingsStore`: the properties it names are set, the others stay
    /// (Apple: `store.shield.applications = …` changes that property only).
    case setShield(ShieldWrite)
    /// `ManagedSettingsStore(named:).clearAllSettings()`.
    case clearSettings(store: String)
    /// `DeviceActivityCenter().startMonitoring(activity, during: schedule)`.
    case startMonitoring(activity: String, start: Date, end: Date, repeats: Bool)
    /// `DeviceActivityCenter().startMonitoring(activity, during: DeviceActivitySchedule(…), events:)`
    /// with the schedule's date components exactly as the app builds them (no events = `[:]`).
    case startMonitoringSchedule(activity: String, schedule: MonitoringSchedule, events: [String: MonitoringEvent])
    case stopMonitoring([String])
    /// (Re)starts the named timer: a running timer of the same name is replaced. Its firing reaches
    /// the machine through the pack's adapter (`AppInput.timer(name)`).
    case startTimer(String, TimerFire)
    /// Cancels the named timer; no-op when none runs.
    case cancelTimer(String)
    /// Perform `call` and answer with exactly one reply for `requestId` (a timeout or a refused
    /// connection is a transport error) — unless the process dies first.
    case http(requestId: Int, HTTPCall)
    /// Post a Darwin notification by name.
    case postNotification(String)
    /// Call the ShieldAction completion handler with this response.
    case respond(ShieldActionResponse)
    /// FamilyControls `AuthorizationCenter.shared.requestAuthorization(for:)` or
    /// `UNUserNotificationCenter.requestAuthorization(options:)`: the answer comes back as
    /// `AppInput.authorization` (a prompt waits for the scripted user, bounded).
    case requestAuthorization(AuthorizationRequest)
    /// `UNUserNotificationCenter.setNotificationCategories(_:)` (replaces the app's categories).
    case setNotificationCategories([NotificationCategoryRecord])
    /// `UNUserNotificationCenter.add(_:)`: the same identifier replaces a pending request; `trigger`
    /// nil = deliver now. The OS shows it only when notifications are authorized.
    case addNotification(NotificationRequest)
    /// `removePendingNotificationRequests(withIdentifiers:)` and its siblings.
    case removeNotifications(NotificationRemoval)
    /// `UNUserNotificationCenter.setBadgeCount(_:)` (`applicationIconBadgeNumber = n`).
    case setBadge(Int)
    /// Append a line to this process's trace (the harness measures and checks from these).
    case trace(String, [String: String])
    /// A named step of the pack's protocol: a crash point `step:<name>` (CRASH-POINTS.md §11), nothing
    /// else — where a machine wants a kill explored that no write marks (e.g. between deciding
    /// and acting). An `error` failpoint there reaches the machine as `effectFailed`.
    case step(String)
}

extension Effect {
    /// `shield.applications` of the default store = these bundle ids (seed 000's `startNativeSession`).
    public static func applyShields(_ applications: [String]) -> Effect {
        .setShield(ShieldWrite(applications: .set(applications)))
    }

    /// `shield.applications = nil` and `shield.applicationCategories = nil` of the default store, in
    /// one write (seed 000's `stopNativeSession`).
    public static var removeShields: Effect {
        .setShield(ShieldWrite(applications: .cleared, applicationCategories: .cleared))
    }

    /// Units of work a process can die between: one per effect, and one per key of a non-atomic
    /// write (a process can die between those keys, never inside an atomic write).
    public var units: Int {
        switch self {
        case .setDefaults(let writes, false), .setPrivateDefaults(let writes, false): return writes.count
        default: break
        }
        return 1
    }
}
