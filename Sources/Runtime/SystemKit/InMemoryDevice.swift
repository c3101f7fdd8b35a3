import PropertyList
import Foundation
import ScreenTimeModel

/// A device in memory: one App Group suite, the process's private store, ManagedSettings stores,
/// DeviceActivity registrations, notifications, timers and the wire. Effects land here exactly as
/// `LiveDevice` would perform them, so the pure machines, the tests and crash-point exploration
/// share the interpreter with the stand-ins.
public final class InMemoryDevice: DevicePort {
    public typealias Snapshot = [String: PropertyListValue]

    public var store: Snapshot = [:]
    /// `UserDefaults.standard` of the process (it survives `processDied`).
    public var privateStore: Snapshot = [:]
    /// ManagedSettings stores by name, as the OS holds them (bundle ids, category ids).
    public var shieldStores: [String: StoreShield] = [:]
    public var monitored: [String: ClosedRange<Date>] = [:]
    public var timers: [String: TimerFire] = [:]
    /// Requests sent and not yet taken by whoever plays the server.
    public var outbox: [(id: Int, call: HTTPCall)] = []
    public var notifications: [String] = []
    public var responses: [ShieldActionResponse] = []
    public var traces: [(name: String, fields: [String: String])] = []
    /// Permission prompts asked for, in order; the test answers them (`AppInput.authorization`).
    public var authorizationRequests: [AuthorizationRequest] = []
    public var notificationCategories: [NotificationCategoryRecord] = []
    /// Pending local notifications by identifier (the OS delivers and removes them).
    public var pendingNotifications: [String: NotificationRequest] = [:]
    /// Identifiers of delivered notifications still in Notification Center.
    public var deliveredNotifications: [String] = []
    public var badge: Int?

    /// One store's shield settings; nil = not set (Apple's nil).
    public struct StoreShield: Sendable, Equatable {
        public var applications: [String]?
        public var applicationCategories: CategoryPolicyRecord?
        public var webDomains: [String]?

        public init(applications: [String]? = nil, applicationCategories: CategoryPolicyRecord? = nil, webDomains: [String]? = nil) {
            self.applications = applications
            self.applicationCategories = applicationCategories
            self.webDomains = webDomains
        }
    }

    public init(store: Snapshot = [:]) {
        self.store = store
    }

    /// `shield.applications` of the default store; nil = no shield.
    public var shields: [String]? {
        get { shieldStores[ShieldWrite.defaultStore]?.applications }
        set { shieldStores[ShieldWrite.defaultStore, default: StoreShield()].applications = newValue }
    }

    public func traces(named name: String) -> [[String: String]] {
        traces.filter { $0.name == name }.map(\.fields)
    }

    /// Drops what a process held in memory (timers, unsent requests) when it dies; the suite,
    /// the private store, shields, registrations and notifications are on disk or the OS's and stay.
    public func processDied() {
        timers = [:]
    }

    // MARK: DevicePort

    public func writeDefaults(_ writes: [DefaultsWrite]) throws { Self.apply(writes, to: &store) }

    public func writePrivateDefaults(_ writes: [DefaultsWrite]) throws { Self.apply(writes, to: &privateStore) }

    static func apply(_ writes: [DefaultsWrite], to snapshot: inout Snapshot) {
        for w in writes {
            if let value = w.value { snapshot[w.key] = value } else { snapshot.removeValue(forKey: w.key) }
        }
    }

    public func post(_ name: String) throws { notifications.append(name) }

    public func writeShield(_ write: ShieldWrite) throws {
        var s = shieldStores[write.store] ?? StoreShield()
        if let change = write.applications.change { s.applications = change }
        if let change = write.applicationCategories.change { s.applicationCategories = change }
        if let change = write.webDomains.change { s.webDomains = change }
        shieldStores[write.store] = s
    }

    public func clearSettings(store: String) throws { shieldStores[store] = nil }

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

    public func requestAuthorization(_ request: AuthorizationRequest) { authorizationRequests.append(request) }

    public func setNotificationCategories(_ categories: [NotificationCategoryRecord]) throws { notificationCategories = categories }

    public func addNotification(_ request: NotificationRequest) throws { pendingNotifications[request.identifier] = request }

    public func removeNotifications(_ removal: NotificationRemoval) throws {
        switch removal {
        case .pending(let ids): for id in ids { pendingNotifications[id] = nil }
        case .allPending: pendingNotifications = [:]
        case .delivered(let ids): deliveredNotifications.removeAll { ids.contains($0) }
        case .allDelivered: deliveredNotifications = []
        }
    }

    public func setBadge(_ count: Int) throws { badge = count }

    public func trace(_ event: String, _ fields: [String: String]) { traces.append((event, fields)) }
}
