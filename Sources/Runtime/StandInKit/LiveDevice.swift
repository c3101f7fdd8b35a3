import AppGroup
@_spi(ScreenTimeHarness) import DeviceActivity
@_spi(ScreenTimeHarness) import FamilyControls
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ScreenTimeModel
import OSFiles
import SystemKit
@_spi(ScreenTimeHarness) import UserNotifications

/// What only a running process can do with an effect: keep timers and talk to servers. The app
/// run loop provides it; an extension, which lives for one callback, has none.
public protocol LiveDeviceHost: AnyObject {
    func startTimer(_ name: String, _ fire: TimerFire)
    func cancelTimer(_ name: String)
    func send(requestId: Int, _ call: HTTPCall)
    /// Hands the machine an answer that arrives later (a permission prompt's), after the
    /// current input's effects.
    func deliverLater(_ input: AppInput)
}

/// The real device: effects land in the device root (shared defaults, Darwin notifications,
/// ManagedSettings and DeviceActivity through the app-facing framework modules, exactly as app
/// code calls them) and the trace.
public final class LiveDevice: DevicePort {
    let context: StandInContext
    public weak var host: LiveDeviceHost?
    private lazy var device = EmulatedDevice(root: context.root, center: context.center, clock: context.clock, process: context.process)
    private var shieldStores: [String: ManagedSettingsStore] = [:]
    private lazy var activityCenter = DeviceActivityCenter(device: device)
    private lazy var authorizationCenter = AuthorizationCenter(device: device)
    private lazy var notificationCenter = UNUserNotificationCenter(device: device)
    /// The response an extension gave iOS (shield action), if any.
    public private(set) var response: ShieldActionResponse?
    /// Where `.respond` goes besides the trace: the completion handler iOS gave a shield-action
    /// extension (the seed's `completionHandler(.none)`). Nil = traced only.
    public var onRespond: ((ShieldActionResponse) -> Void)?

    /// The OS's id of the extension call this process serves (traced with its answer).
    let delivery: String?

    public init(context: StandInContext, delivery: String? = nil) {
        self.context = context
        self.delivery = delivery
    }

    public func writeDefaults(_ writes: [DefaultsWrite]) throws {
        try context.defaults.update { d in for w in writes { d[w.key] = w.value } }
    }

    public func writePrivateDefaults(_ writes: [DefaultsWrite]) throws {
        try context.privateDefaults().update { d in for w in writes { d[w.key] = w.value } }
    }

    public func post(_ name: String) throws { try context.center.post(name) }

    func store(_ name: String) -> ManagedSettingsStore {
        if let s = shieldStores[name] { return s }
        let s = ManagedSettingsStore(named: ManagedSettingsStore.Name(name), device: device)
        shieldStores[name] = s
        return s
    }

    /// The properties the write names, in one read-modify-write of the store (bundle ids and
    /// category ids become the OS's tokens).
    public func writeShield(_ write: ShieldWrite) throws {
        try store(write.store).updateShield { s in
            if let change = write.applications.change {
                s.applications = change.map { Set($0.map(ApplicationToken.init(bundleIdentifier:))) }
            }
            if let change = write.applicationCategories.change {
                s.applicationCategories = change.map(Self.policy)
            }
            if let change = write.webDomains.change {
                s.webDomains = change.map { Set($0.map(WebDomainToken.init(domain:))) }
            }
        }
    }

    static func policy(_ r: CategoryPolicyRecord) -> ShieldSettings.ActivityCategoryPolicy<Application> {
        let except = Set(r.except.map(ApplicationToken.init(bundleIdentifier:)))
        switch r.policy {
        case .none: return .none
        case .all: return .all(except: except)
        case .specific: return .specific(Set(r.categories.map(ActivityCategoryToken.init(categoryIdentifier:))), except: except)
        }
    }

    public func clearSettings(store name: String) throws {
        try store(name).clearAllSettingsThrowing()
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
        try activityCenter.stopMonitoringThrowing(activities.map { DeviceActivityName($0) })
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

    /// The frameworks mark the OS calls' crash points; `respond` is marked here (or, through
    /// `onRespond`, by `FrameworkExtension` where the completion handler's answer is traced).
    public var frameworksMarkCrashPoints: Bool { true }

    public func respond(_ response: ShieldActionResponse) {
        if let onRespond { return onRespond(response) }
        CrashPoints.passNonThrowing("respond")
        self.response = response
        var f = ["response": response.rawValue]
        if let delivery { f["delivery"] = delivery }
        context.trace.log("responded", f)
    }

    /// Blocks for the prompt's answer (bounded by the frameworks: 3600 device s, 10 s wall), then
    /// hands it to the machine as an input; an extension, which has no run loop, only traces it.
    public func requestAuthorization(_ request: AuthorizationRequest) {
        let answer: AuthorizationAnswer
        switch request {
        case .screenTime(let member):
            do {
                try authorizationCenter.requestAuthorizationBlocking(for: member == "child" ? .child : .individual)
                answer = AuthorizationAnswer(kind: request.kind, granted: true, status: "approved")
            } catch {
                answer = AuthorizationAnswer(kind: request.kind, granted: false, status: "\(error)")
            }
        case .notifications(let options):
            do {
                let granted = try notificationCenter.requestAuthorizationBlocking(options: UNAuthorizationOptions(names: options))
                answer = AuthorizationAnswer(kind: request.kind, granted: granted, status: granted ? "authorized" : "denied")
            } catch {
                answer = AuthorizationAnswer(kind: request.kind, granted: false, status: "\(error)")
            }
        }
        context.trace.log("authorization_answered", ["kind": answer.kind, "granted": String(answer.granted), "status": answer.status])
        guard let host else { return unsupported("requestAuthorization", request.kind) }
        host.deliverLater(.authorization(answer))
    }

    public func setNotificationCategories(_ categories: [NotificationCategoryRecord]) throws {
        try notificationCenter.setNotificationCategoriesThrowing(categories)
    }

    public func addNotification(_ request: NotificationRequest) throws {
        try notificationCenter.addThrowing(identifier: request.identifier, content: request.content, trigger: request.trigger)
    }

    public func removeNotifications(_ removal: NotificationRemoval) throws {
        switch removal {
        case .pending(let ids): notificationCenter.removePendingNotificationRequests(withIdentifiers: ids)
        case .allPending: notificationCenter.removeAllPendingNotificationRequests()
        case .delivered(let ids): notificationCenter.removeDeliveredNotifications(withIdentifiers: ids)
        case .allDelivered: notificationCenter.removeAllDeliveredNotifications()
        }
    }

    public func setBadge(_ count: Int) throws {
        try notificationCenter.setBadgeCountThrowing(count)
    }

    public func trace(_ event: String, _ fields: [String: String]) { context.trace.log(event, fields) }

    /// An extension asked for something only a long-lived process has: traced, never silent.
    private func unsupported(_ effect: String, _ detail: String) {
        context.trace.log("unsupported_effect", ["effect": effect, "detail": detail])
    }
}
