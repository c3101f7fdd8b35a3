import AppGroup
@_spi(ScreenTimeHarness) import DeviceActivity
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import SystemFiles
import SystemKit

/// What only a running process can do with an effect: keep timers and talk to servers. The app
/// run loop provides it; an extension, which lives for one callback, has none.
public protocol LiveDeviceHost: AnyObject {
    func startTimer(_ name: String, _ fire: TimerFire)
    func cancelTimer(_ name: String)
    func send(requestId: Int, _ call: HTTPCall)
}

/// The real device: effects land in the device root (shared defaults, Darwin notifications,
/// ManagedSettings and DeviceActivity through the app-facing framework modules, exactly as app
/// code calls them) and the trace.
public final class LiveDevice: DevicePort {
    let context: StandInContext
    public weak var host: LiveDeviceHost?
    private lazy var device = EmulatedDevice(root: context.root, center: context.center, clock: context.clock, process: context.process)
    private lazy var shieldStore = ManagedSettingsStore(named: .default, device: device)
    private lazy var activityCenter = DeviceActivityCenter(device: device)
    /// The response an extension gave iOS (shield action), if any.
    public private(set) var response: SystemKit.ShieldActionResponse?

    /// The OS's id of the extension call this process serves (traced with its answer).
    let delivery: String?

    public init(context: StandInContext, delivery: String? = nil) {
        self.context = context
        self.delivery = delivery
    }

    public func writeDefaults(_ writes: [DefaultsWrite]) throws {
        try context.defaults.update { d in for w in writes { d[w.key] = w.value } }
    }

    public func post(_ name: String) throws { try context.center.post(name) }

    /// `shield.applications` = these apps' tokens; nil also clears `applicationCategories`
    /// (seed 000's `stopNativeSession` sets both to nil).
    public func setShield(applications: [String]?) throws {
        try shieldStore.updateShield { s in
            if let applications {
                s.applications = Set(applications.map(ApplicationToken.init(bundleIdentifier:)))
            } else {
                s.applications = nil
                s.applicationCategories = nil
            }
        }
    }

    /// An absolute interval as Apple's API takes it: full date components (year … second) in the
    /// device's time zone, the start rounded down and the end up to whole seconds.
    public func startMonitoring(activity: String, start: Date, end: Date, repeats: Bool) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = device.timeZone
        func components(_ d: Date) -> DateComponents {
            calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: d)
        }
        let schedule = DeviceActivitySchedule(
            intervalStart: components(Date(timeIntervalSince1970: start.timeIntervalSince1970.rounded(.down))),
            intervalEnd: components(Date(timeIntervalSince1970: end.timeIntervalSince1970.rounded(.up))), repeats: repeats)
        try activityCenter.startMonitoring(DeviceActivityName(activity), during: schedule)
    }

    /// The schedule's date components as the app built them (e.g. seed 000's hour and minute),
    /// evaluated by the OS in the device's time zone; events with application tokens.
    public func startMonitoring(activity: String, schedule: MonitoringSchedule, events: [String: MonitoringEvent]) throws {
        let s = DeviceActivitySchedule(
            intervalStart: schedule.intervalStart, intervalEnd: schedule.intervalEnd, repeats: schedule.repeats,
            warningTime: schedule.warningTime)
        var e: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
        for (name, event) in events {
            e[DeviceActivityEvent.Name(name)] = DeviceActivityEvent(
                applications: Set(event.applications.map(ApplicationToken.init(bundleIdentifier:))), threshold: event.threshold)
        }
        try activityCenter.startMonitoring(DeviceActivityName(activity), during: s, events: e)
    }

    public func stopMonitoring(_ activities: [String]) throws {
        // An empty list would stop every activity (Apple's default); the effect means none.
        guard !activities.isEmpty else { return }
        activityCenter.stopMonitoring(activities.map { DeviceActivityName($0) })
    }

    public func startTimer(_ name: String, _ fire: TimerFire) {
        guard let host else { return unsupported("startTimer", name) }
        host.startTimer(name, fire)
    }

    public func cancelTimer(_ name: String) {
        guard let host else { return unsupported("cancelTimer", name) }
        host.cancelTimer(name)
    }

    public func send(requestId: Int, _ call: HTTPCall) {
        guard let host else { return unsupported("http", call.path) }
        host.send(requestId: requestId, call)
    }

    public func respond(_ response: SystemKit.ShieldActionResponse) {
        self.response = response
        var f = ["response": response.rawValue]
        if let delivery { f["delivery"] = delivery }
        context.trace.log("responded", f)
    }

    public func trace(_ event: String, _ fields: [String: String]) { context.trace.log(event, fields) }

    /// An extension asked for something only a long-lived process has: traced, never silent.
    private func unsupported(_ effect: String, _ detail: String) {
        context.trace.log("unsupported_effect", ["effect": effect, "detail": detail])
    }
}
