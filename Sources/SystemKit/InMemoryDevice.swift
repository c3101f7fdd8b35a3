import AppGroup
import Foundation

/// A device in memory: one App Group suite, ManagedSettings, DeviceActivity registrations,
/// timers and the wire. Effects land here exactly as `LiveDevice` would perform them, so the pure
/// machines, the tests and crash-point exploration share the interpreter with the stand-ins.
public final class InMemoryDevice: DevicePort {
    public typealias Snapshot = [String: PropertyListValue]

    public var store: Snapshot = [:]
    /// nil = no shield.
    public var shields: [String]?
    public var monitored: [String: ClosedRange<Date>] = [:]
    public var timers: [String: TimerFire] = [:]
    /// Requests sent and not yet taken by whoever plays the server.
    public var outbox: [(id: Int, call: HTTPCall)] = []
    public var notifications: [String] = []
    public var responses: [ShieldActionResponse] = []
    public var traces: [(name: String, fields: [String: String])] = []

    public init(store: Snapshot = [:]) {
        self.store = store
    }

    public func traces(named name: String) -> [[String: String]] {
        traces.filter { $0.name == name }.map(\.fields)
    }

    /// Drops what a process held in memory (timers, unsent requests) when it dies; the suite,
    /// shields and registrations are the OS's and stay.
    public func processDied() {
        timers = [:]
    }

    // MARK: DevicePort

    public func writeDefaults(_ writes: [DefaultsWrite]) throws {
        for w in writes {
            if let value = w.value { store[w.key] = value } else { store.removeValue(forKey: w.key) }
        }
    }

    public func post(_ name: String) throws { notifications.append(name) }

    public func setShield(applications: [String]?) throws { shields = applications }

    public func startMonitoring(activity: String, start: Date, end: Date, repeats: Bool) throws {
        if let monitoringError { throw monitoringError }
        monitored[activity] = start...max(start, end)
    }

    /// Schedules registered from date components, as the machine built them.
    public var schedules: [String: (schedule: MonitoringSchedule, events: [String: MonitoringEvent])] = [:]
    /// When set, every startMonitoring throws this (tests of the machines' error paths).
    public var monitoringError: (any Error)?

    public func startMonitoring(activity: String, schedule: MonitoringSchedule, events: [String: MonitoringEvent]) throws {
        if let monitoringError { throw monitoringError }
        schedules[activity] = (schedule, events)
    }

    public func stopMonitoring(_ activities: [String]) throws {
        for a in activities {
            monitored.removeValue(forKey: a)
            schedules.removeValue(forKey: a)
        }
    }

    public func startTimer(_ name: String, _ fire: TimerFire) { timers[name] = fire }

    public func cancelTimer(_ name: String) { timers.removeValue(forKey: name) }

    public func send(requestId: Int, _ call: HTTPCall) { outbox.append((requestId, call)) }

    public func respond(_ response: ShieldActionResponse) { responses.append(response) }

    public func trace(_ event: String, _ fields: [String: String]) { traces.append((event, fields)) }
}
