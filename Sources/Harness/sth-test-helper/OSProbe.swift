// `sth-test-helper osprobe host|monitor|shield|config`: the processes of the test suite's OS probe
// (Tests/HarnessKitTests/Systems/OSProbePack.swift), written against the Apple-named frameworks
// the way an app is: DeviceActivity schedules from hour/minute components, ManagedSettingsStore
// shields, FamilyControls and UserNotifications authorization, a DeviceActivityMonitor subclass, a
// ShieldActionDelegate and a ShieldConfigurationDataSource, each run by StandInKit's shells.
//
//   host:    an app (AppRunner): does what the scenario's steps tap into its inbox (`monitor`,
//            `stop`, `shield`, `unshield`, `authorize`, `notify_auth`, `notify`, `write_pair`,
//            `read`), traces a `tick` every device minute while it runs (none while suspended),
//            and traces what it reads of the App Group at launch.
//   monitor: traces each callback (`monitor_callback`) and writes `lastCallback` to the defaults.
//   shield:  answers every button press with the response the host keeps in the App Group
//            (`shieldResponse`, from the host's `--shield-response close|defer|none`).
//   config:  returns a shield titled "Probe".
@_spi(ScreenTimeHarness) import DeviceActivity
@_spi(ScreenTimeHarness) import FamilyControls
import AppGroup
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ManagedSettingsUI
import ScreenTimeModel
import StandInKit
import SystemKit
import UIKit
@_spi(ScreenTimeHarness) import UserNotifications

enum OSProbe {
    static let group = "group.test.osprobe"

    static func run(_ args: [String]) -> Never {
        guard let role = args.first else { fail("osprobe: host|monitor|shield|config") }
        var rest = Array(args.dropFirst())
        var shieldResponse: String?
        if let i = rest.firstIndex(of: "--shield-response"), i + 1 < rest.count {
            shieldResponse = rest[i + 1]
            rest.removeSubrange(i...(i + 1))
        }
        let context: StandInContext
        do { context = try StandInContext(process: role, appGroup: group) } catch { fail("osprobe \(role): \(error)") }
        switch role {
        case "host":
            do {
                // What the shield-action extension answers is the app's choice, kept in the App Group.
                if let shieldResponse { try context.defaults.store(shieldResponse, forKey: "shieldResponse") }
                let runner = try AppRunner(context: context, adapter: ProbeHost(context: context))
                runner.run()
            } catch {
                StandInContext.fail(role, "\(error)")
            }
        case "monitor", "shield", "config":
            let point: ExtensionPoint = role == "monitor" ? .deviceActivityMonitor : role == "shield" ? .shieldAction : .shieldConfiguration
            let options: FrameworkCallOptions
            let call: FrameworkCall
            do {
                options = try FrameworkCallOptions.parse(rest)
                call = try options.call(for: point)
            } catch {
                StandInContext.fail(role, "\(error)")
            }
            let principal: ExtensionPrincipal
            switch point {
            case .deviceActivityMonitor: principal = .monitor(ProbeMonitor(context: context))
            case .shieldAction: principal = .shieldAction(ProbeShieldAction(response: context.defaults.string(forKey: "shieldResponse") ?? "none"))
            case .shieldConfiguration: principal = .shieldConfiguration(ProbeShieldConfiguration())
            }
            do { try FrameworkExtension.run(call, delivery: options.delivery, context: context, principal: principal) } catch {
                StandInContext.fail(role, "\(error)")
            }
        default:
            fail("osprobe: role must be host, monitor, shield or config, not \(role)")
        }
    }
}

/// The host app's side: each inbox action is one framework call, traced with its outcome.
final class ProbeHost: AppAdapter, @unchecked Sendable {
    let context: StandInContext
    let notifications = UNUserNotificationCenter.current()
    let delegate: ProbeNotificationDelegate
    var observedNotifications: [String] { [] }

    init(context: StandInContext) {
        self.context = context
        delegate = ProbeNotificationDelegate(context: context)
        notifications.delegate = delegate
    }

    /// Written against the frameworks: its delegate takes notification responses.
    var takesOSMessagesRaw: Bool { true }

    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        switch input {
        case .launched:
            read("launch_read")
            return [.startTimer("tick", .every(seconds: 60))]
        case .timer:
            return [.trace("tick", [:])]
        case .user(let m):
            perform(m)
        default:
            break
        }
        return []
    }

    func read(_ event: String) {
        let d = context.defaults
        context.trace.log(event, [
            "pairA": d.object(forKey: "pairA").map { "\($0)" } ?? "-", "pairB": d.object(forKey: "pairB").map { "\($0)" } ?? "-",
            "lastCallback": d.string(forKey: "lastCallback") ?? "-",
        ])
    }

    static func list(_ s: Substring) -> [String] { s.split(separator: ",").map(String.init) }

    /// "specific:a,b", "all:except…", "auto:blocked…/except…" or "none".
    static func filterPolicy(_ text: String) -> WebContentSettings.FilterPolicy? {
        let parts = text.split(separator: ":", maxSplits: 1)
        let rest = parts.count > 1 ? parts[1] : ""
        func domains(_ s: Substring) -> Set<WebDomain> { Set(list(s).map(WebDomain.init(domain:))) }
        switch parts.first {
        case "specific": return .specific(domains(rest))
        case "all": return .all(except: domains(rest))
        case "auto":
            let halves = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            return .auto(domains(halves.first ?? ""), except: domains(halves.count > 1 ? halves[1] : ""))
        case "none": return WebContentSettings.FilterPolicy.none
        default: return nil
        }
    }

    static func components(_ hhmm: String?) -> DateComponents? {
        guard let parts = hhmm?.split(separator: ":"), parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        return DateComponents(hour: h, minute: m)
    }

    func perform(_ m: AppMessage) {
        let f = m.fields
        let trace = context.trace
        switch m.action {
        case "authorize":
            // `apps`: shield them first, in this same handler (an app that shields before it asks).
            if let apps = f["apps"]?.split(separator: ",").map(String.init) {
                ManagedSettings.ManagedSettingsStore().shield.applications = Set(apps.map(ApplicationToken.init(bundleIdentifier:)))
                trace.log("shield_set", ["apps": apps.joined(separator: ",")])
            }
            do {
                try AuthorizationCenter.shared.requestAuthorizationBlocking(for: .individual)
                trace.log("authorization", ["result": "approved"])
            } catch {
                trace.log("authorization", ["result": "\(error)"])
            }
        case "monitor":
            let activity = f["activity"] ?? "probe"
            guard var start = Self.components(f["start"]), var end = Self.components(f["end"]) else {
                trace.log("monitoring_error", ["activity": activity, "error": "bad start/end"])
                return
            }
            start.day = f["startDay"].flatMap(Int.init)
            end.day = f["endDay"].flatMap(Int.init)
            let warning = f["warningMinutes"].flatMap(Int.init).map { DateComponents(minute: $0) }
            let schedule = DeviceActivitySchedule(intervalStart: start, intervalEnd: end, repeats: f["repeats"] == "true", warningTime: warning)
            var events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
            if let app = f["eventApp"], let minutes = f["thresholdMinutes"].flatMap(Int.init) {
                events[DeviceActivityEvent.Name(f["event"] ?? "limit")] = DeviceActivityEvent(
                    applications: [ApplicationToken(bundleIdentifier: app)], threshold: DateComponents(minute: minutes))
            }
            do {
                try DeviceActivity.DeviceActivityCenter().startMonitoring(DeviceActivityName(activity), during: schedule, events: events)
                trace.log("monitoring_started", ["activity": activity])
            } catch let e as DeviceActivity.DeviceActivityCenter.MonitoringError {
                trace.log("monitoring_error", ["activity": activity, "error": e.caseName])
            } catch {
                trace.log("monitoring_error", ["activity": activity, "error": "\(error)"])
            }
        case "stop":
            DeviceActivity.DeviceActivityCenter().stopMonitoring([DeviceActivityName(f["activity"] ?? "probe")])
            trace.log("monitoring_stopped", ["activity": f["activity"] ?? "probe"])
        case "shield":
            let apps = (f["apps"] ?? "").split(separator: ",").map(String.init)
            ManagedSettings.ManagedSettingsStore().shield.applications = Set(apps.map(ApplicationToken.init(bundleIdentifier:)))
            trace.log("shield_set", ["apps": apps.joined(separator: ",")])
        case "restrict":
            // Settings beyond the shield: `denyAppRemoval`/`denyAppInstallation` true or false (nil),
            // `webFilter` "specific:a,b" | "all:except,…" | "auto:blocked,…/except,…" | "none",
            // `webShield` domains to shield.
            let store = ManagedSettings.ManagedSettingsStore()
            func flag(_ v: String?) -> Bool? { v == "true" ? true : nil }
            if f["denyAppRemoval"] != nil { store.application.denyAppRemoval = flag(f["denyAppRemoval"]) }
            if f["denyAppInstallation"] != nil { store.application.denyAppInstallation = flag(f["denyAppInstallation"]) }
            if let v = f["webFilter"] { store.webContent.blockedByFilter = Self.filterPolicy(v) }
            if let v = f["webShield"] { store.shield.webDomains = Set(Self.list(Substring(v)).map(WebDomainToken.init(domain:))) }
            trace.log("restricted", f)
        case "unshield":
            ManagedSettings.ManagedSettingsStore().clearAllSettings()
            trace.log("shield_set", ["apps": ""])
        case "notify_auth":
            do {
                let granted = try notifications.requestAuthorizationBlocking(options: [.alert, .sound])
                trace.log("notification_authorization", ["granted": String(granted)])
            } catch {
                trace.log("notification_authorization", ["error": "\(error)"])
            }
        case "notify":
            let id = f["identifier"] ?? "n1"
            notifications.setNotificationCategories([
                UNNotificationCategory(
                    identifier: "PROBE",
                    actions: [
                        UNNotificationAction(identifier: "OPEN", title: "Open", options: [.foreground]),
                        UNNotificationAction(identifier: "LATER", title: "Later", options: []),
                    ], intentIdentifiers: []),
            ])
            let content = UNMutableNotificationContent()
            content.title = "Probe"
            content.body = id
            content.categoryIdentifier = "PROBE"
            let seconds = f["afterSeconds"].flatMap(Double.init) ?? 60
            notifications.add(UNNotificationRequest(
                identifier: id, content: content, trigger: UNTimeIntervalNotificationTrigger(timeInterval: seconds, repeats: false)))
            trace.log("notification_added", ["identifier": id])
        case "write_pair":
            let n = Int(f["n"] ?? "1") ?? 1
            do {
                try context.defaults.setValues(["pairA": n, "pairB": n])
                trace.log("pair_written", ["n": String(n)])
            } catch {
                trace.log("store_error", ["error": "\(error)"])
            }
        case "read":
            read("read")
        default:
            // The OS's own messages (a notification response) go to the framework first.
            switch notifications.receive(inboxAction: m.action, fields: f) {
            case .notNotificationMessage: trace.log("unknown_action", ["action": m.action])
            case .delivered: break
            case let other: trace.log("notification_response_lost", ["outcome": "\(other)"])
            }
        }
    }
}

final class ProbeNotificationDelegate: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
    let context: StandInContext
    init(context: StandInContext) { self.context = context }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse, withCompletionHandler completionHandler: @escaping () -> Void
    ) {
        context.trace.log("notification_response", [
            "identifier": response.notification.request.identifier, "action": response.actionIdentifier,
        ])
        completionHandler()
    }
}

final class ProbeMonitor: DeviceActivityMonitor {
    let context: StandInContext
    init(context: StandInContext) { self.context = context }

    func note(_ callback: String, _ activity: DeviceActivityName, _ event: DeviceActivityEvent.Name? = nil) {
        // `date`: what the app's own `Date()` says here — the device's time (StandInKit.DeviceTime).
        var f = ["callback": callback, "activity": activity.rawValue, "date": String(Date().timeIntervalSince1970)]
        if let event { f["eventName"] = event.rawValue }  // `event` is a trace line's own key
        context.trace.log("monitor_callback", f)
        context.defaults.set("\(callback) \(activity.rawValue)", forKey: "lastCallback")
    }

    override func intervalDidStart(for activity: DeviceActivityName) { note("intervalDidStart", activity) }
    override func intervalDidEnd(for activity: DeviceActivityName) { note("intervalDidEnd", activity) }
    override func intervalWillStartWarning(for activity: DeviceActivityName) { note("intervalWillStartWarning", activity) }
    override func intervalWillEndWarning(for activity: DeviceActivityName) { note("intervalWillEndWarning", activity) }
    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        note("eventDidReachThreshold", activity, event)
    }
    override func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        note("eventWillReachThresholdWarning", activity, event)
    }
}

final class ProbeShieldAction: ShieldActionDelegate {
    let response: ManagedSettings.ShieldActionResponse
    init(response: String) {
        switch response {
        case "close": self.response = .close
        case "defer": self.response = .defer
        default: self.response = .none
        }
    }

    override func handle(
        action: ManagedSettings.ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping (ManagedSettings.ShieldActionResponse) -> Void
    ) {
        completionHandler(response)
    }
}

final class ProbeShieldConfiguration: ShieldConfigurationDataSource {
    override func configuration(shielding application: Application) -> ShieldConfiguration {
        ShieldConfiguration(
            title: .init(text: "Probe", color: .white), subtitle: .init(text: application.bundleIdentifier ?? "?", color: .gray),
            primaryButtonLabel: .init(text: "Close", color: .white))
    }
}
