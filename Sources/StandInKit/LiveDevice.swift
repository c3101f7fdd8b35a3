import AppGroup
import Foundation
import ScreenTimeShims
import SystemKit

/// What only a running process can do with an effect: keep timers and talk to servers. The app
/// run loop provides it; an extension, which lives for one callback, has none.
public protocol LiveDeviceHost: AnyObject {
    func startTimer(_ name: String, _ fire: TimerFire)
    func cancelTimer(_ name: String)
    func send(requestId: Int, _ call: HTTPCall)
}

/// The real device: effects land in the device root (shared defaults, Darwin notifications,
/// ManagedSettings and DeviceActivity through the framework shims) and the trace.
public final class LiveDevice: DevicePort {
    let context: StandInContext
    public weak var host: LiveDeviceHost?
    private lazy var shieldStore = Result { try ManagedSettingsStore(deviceRoot: context.root, center: context.center) }
    private lazy var activityCenter = Result { try DeviceActivityCenter(deviceRoot: context.root, center: context.center) }
    /// The response an extension gave iOS (shield action), if any.
    public private(set) var response: ShieldActionResponse?

    public init(context: StandInContext) {
        self.context = context
    }

    public func writeDefaults(_ writes: [DefaultsWrite]) throws {
        try context.defaults.update { d in for w in writes { d[w.key] = w.value } }
    }

    public func post(_ name: String) throws { try context.center.post(name) }

    public func setShield(applications: [String]?) throws {
        try shieldStore.get().setShield(ManagedSettingsStore.Shield(applications: applications.map(Set.init)))
    }

    public func startMonitoring(activity: String, start: Date, end: Date, repeats: Bool) throws {
        try activityCenter.get().startMonitoring(activity, during: DeviceActivitySchedule(intervalStart: start, intervalEnd: end, repeats: repeats))
    }

    public func stopMonitoring(_ activities: [String]) throws {
        try activityCenter.get().stopMonitoring(activities)
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

    public func respond(_ response: ShieldActionResponse) {
        self.response = response
        context.trace.log("responded", ["response": response.rawValue])
    }

    public func trace(_ event: String, _ fields: [String: String]) { context.trace.log(event, fields) }

    /// An extension asked for something only a long-lived process has: traced, never silent.
    private func unsupported(_ effect: String, _ detail: String) {
        context.trace.log("unsupported_effect", ["effect": effect, "detail": detail])
    }
}
