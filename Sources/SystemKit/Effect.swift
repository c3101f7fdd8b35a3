import AppGroup
import Foundation

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

/// Apple's `ShieldActionResponse`: `.close` closes the shielded app, `.defer` redraws the shield,
/// `.none` does nothing.
public enum ShieldActionResponse: String, Sendable, Equatable, Codable, CaseIterable {
    case none
    case close
    case `defer`
}

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
public enum Effect: Sendable, Equatable {
    /// Writes to the process's App Group suite. `atomic: true` = ONE multi-key write that lands
    /// entirely or not at all; `atomic: false` = separate `set`/`removeObject` calls in this order
    /// (UserDefaults in an App Group: each may be seen, or be the last before a kill, alone).
    case setDefaults([DefaultsWrite], atomic: Bool)
    /// ManagedSettings `shield.applications` = these bundle ids (replaces any previous set).
    case applyShields([String])
    /// ManagedSettings `shield.applications = nil`, `shield.applicationCategories = nil`.
    case removeShields
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
    /// Append a line to this process's trace (the harness measures and checks from these).
    case trace(String, [String: String])
}

extension Effect {
    /// Units of work a process can die between: one per effect, and one per key of a non-atomic
    /// write (a process can die between those keys, never inside an atomic write).
    public var units: Int {
        if case .setDefaults(let writes, false) = self { return writes.count }
        return 1
    }
}
