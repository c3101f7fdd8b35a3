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

/// Apple's `ShieldActionResponse`.
public enum ShieldActionResponse: String, Sendable, Equatable, Codable {
    case none
    case close
    case `defer`
}

/// What a FocusPledge machine asks its shell to do, in list order. The shell must perform them in
/// order, and may die between any two of them (and, for `setDefaults(_, atomic: false)`, between
/// any two of its keys) — that is exactly what crash-point exploration does.
public enum Effect: Sendable, Equatable {
    /// Writes to the suite `FocusPledgeKeys.suiteName`. `atomic: true` = ONE multi-key write that
    /// lands entirely or not at all; `atomic: false` = separate `set`/`removeObject` calls in this
    /// order (UserDefaults in an App Group: each may be seen, or be the last before a kill, alone).
    case setDefaults([DefaultsWrite], atomic: Bool)
    /// ManagedSettings `shield.applications` = these bundle ids (replaces any previous set).
    case applyShields([String])
    /// ManagedSettings `shield.applications = nil`, `shield.applicationCategories = nil`.
    case removeShields
    /// `DeviceActivityCenter().startMonitoring(activity, during: schedule)`.
    case startMonitoring(activity: String, start: Date, end: Date, repeats: Bool)
    case stopMonitoring([String])
    /// (Re)starts the periodic poll timer (a running one is replaced, as Dart's
    /// `_pollingTimer?.cancel(); Timer.periodic(...)`); each firing is `HostApp.Event.pollTick`.
    case startPollTimer(seconds: Int)
    case stopPollTimer
    /// (Re)schedules the one-shot session countdown; its firing is `sessionTimerFired`.
    case scheduleSessionTimer(at: Date)
    case cancelSessionTimer
    /// Perform the request and answer with `httpResult(requestId:_:)`.
    case http(requestId: Int, HTTPRequest)
    /// After `afterSeconds`, deliver `retryTimerFired(requestId:now:)` with this id.
    case scheduleRetry(requestId: Int, afterSeconds: Double)
    /// Post a Darwin notification by name.
    case postNotification(String)
    /// Call the ShieldAction completion handler with this response.
    case respond(ShieldActionResponse)
    /// Append a line to this process's trace (the harness measures and checks from these).
    case trace(String, [String: String])
}
