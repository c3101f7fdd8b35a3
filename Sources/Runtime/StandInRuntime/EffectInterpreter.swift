import AppGroup
import Foundation
import ScreenTimeModel
import SystemKit

/// The one place effects are carried out, in order.
public enum EffectInterpreter {
    public struct Outcome: Sendable, Equatable {
        /// What landed, in order; a non-atomic write cut short by death appears with the keys that landed.
        public var landed: [Effect]
        /// False when the process died (the budget ran out) before every effect landed.
        public var complete: Bool
        /// Effects that were carried out and threw (each also traced): the machine may be told.
        public var failures: [EffectFailure] = []
    }

    /// Performs `effects` on `device`. `budget` is how many units (`Effect.units`) may still land
    /// before the process dies; nil = it does not die. It is decremented as units land.
    @discardableResult
    public static func perform(_ effects: [Effect], on device: some DevicePort, budget: inout Int?) -> Outcome {
        var landed: [Effect] = []
        var failures: [EffectFailure] = []
        func spend() -> Bool {
            guard let left = budget else { return true }
            if left <= 0 { return false }
            budget = left - 1
            return true
        }
        for effect in effects {
            if let (writes, isPrivate) = effect.separateWrites {
                let rebuild: ([DefaultsWrite]) -> Effect = { isPrivate ? .setPrivateDefaults($0, atomic: false) : .setDefaults($0, atomic: false) }
                for (i, write) in writes.enumerated() {
                    guard spend() else {
                        if i > 0 { landed.append(rebuild(Array(writes.prefix(i)))) }
                        return Outcome(landed: landed, complete: false, failures: failures)
                    }
                    let e = isPrivate
                        ? attempt(device, "private_store_error", ["op": "write", "key": write.key], { try device.writePrivateDefaults([write]) })
                        : attempt(device, "store_error", ["op": "write", "key": write.key], { try device.writeDefaults([write]) })
                    if let e { failures.append(EffectFailure(effect: rebuild([write]), error: e)) }
                }
                landed.append(effect)
                continue
            }
            guard spend() else { return Outcome(landed: landed, complete: false, failures: failures) }
            if let e = carryOut(effect, on: device) { failures.append(EffectFailure(effect: effect, error: e)) }
            landed.append(effect)
        }
        return Outcome(landed: landed, complete: true, failures: failures)
    }

    /// Performs every effect; the process does not die.
    @discardableResult
    public static func perform(_ effects: [Effect], on device: some DevicePort) -> Outcome {
        var unbounded: Int? = nil
        return perform(effects, on: device, budget: &unbounded)
    }

    /// Carries out one effect; the error it threw (already traced), or nil.
    private static func carryOut(_ effect: Effect, on device: some DevicePort) -> String? {
        switch effect {
        case .setDefaults(let writes, _):
            return attempt(device, "store_error", ["op": "write"]) { try device.writeDefaults(writes) }
        case .setPrivateDefaults(let writes, _):
            return attempt(device, "private_store_error", ["op": "write"]) { try device.writePrivateDefaults(writes) }
        case .setShield(let write):
            let e = attempt(device, "shield_error", write.store == ShieldWrite.defaultStore ? [:] : ["store": write.store]) {
                try osCallCrashPoint("shield:" + write.store, on: device)
                try device.writeShield(write)
            }
            if e == nil { device.trace("shields_set", write.traceFields) }
            return e
        case .clearSettings(let store):
            let e = attempt(device, "shield_error", ["store": store]) {
                try osCallCrashPoint("shield.clear:" + store, on: device)
                try device.clearSettings(store: store)
            }
            if e == nil { device.trace("settings_cleared", ["store": store]) }
            return e
        case .startMonitoring(let activity, let start, let end, let repeats):
            let e = attempt(device, "monitoring_error", ["activity": activity]) {
                try osCallCrashPoint("monitoring.start:" + activity, on: device)
                try device.startMonitoring(activity: activity, start: start, end: end, repeats: repeats)
            }
            if e == nil {
                device.trace("monitoring_started", [
                    "activity": activity, "start": String(start.timeIntervalSince1970), "end": String(end.timeIntervalSince1970),
                ])
            }
            return e
        case .startMonitoringSchedule(let activity, let schedule, let events):
            let e = attempt(device, "monitoring_error", ["activity": activity]) {
                try osCallCrashPoint("monitoring.start:" + activity, on: device)
                try device.startMonitoring(activity: activity, schedule: schedule, events: events)
            }
            if e == nil {
                device.trace("monitoring_started", [
                    "activity": activity, "intervalStart": describe(schedule.intervalStart), "intervalEnd": describe(schedule.intervalEnd),
                    "repeats": String(schedule.repeats), "events": events.keys.sorted().joined(separator: ","),
                ])
            }
            return e
        case .stopMonitoring(let names):
            let e = attempt(device, "monitoring_error", ["activities": names.joined(separator: ",")], {
                try osCallCrashPoint("monitoring.stop:" + names.joined(separator: ","), on: device)
                try device.stopMonitoring(names)
            })
            if e == nil { device.trace("monitoring_stopped", ["activities": names.joined(separator: ",")]) }
            return e
        case .startTimer(let name, let fire):
            device.startTimer(name, fire)
        case .cancelTimer(let name):
            device.cancelTimer(name)
        case .http(let requestId, let call):
            device.send(requestId: requestId, call)
        case .postNotification(let name):
            return attempt(device, "notify_error", ["name": name]) { try device.post(name) }
        case .respond(let response):
            try? osCallCrashPoint("respond", on: device)
            device.respond(response)
        case .requestAuthorization(let request):
            try? osCallCrashPoint("authorization:" + request.kind, on: device)
            device.trace("authorization_requested", ["kind": request.kind])
            device.requestAuthorization(request)
        case .setNotificationCategories(let categories):
            let ids = categories.map(\.identifier).joined(separator: ",")
            let e = attempt(device, "notification_error", ["op": "setNotificationCategories"]) {
                try osCallCrashPoint("notifications.categories", on: device)
                try device.setNotificationCategories(categories)
            }
            if e == nil { device.trace("notification_categories_set", ["categories": ids]) }
            return e
        case .addNotification(let request):
            let e = attempt(device, "notification_error", ["op": "add", "identifier": request.identifier]) {
                try osCallCrashPoint("notification.add:" + request.identifier, on: device)
                try device.addNotification(request)
            }
            if e == nil {
                device.trace("notification_added", [
                    "identifier": request.identifier, "category": request.content.categoryIdentifier,
                    "trigger": request.trigger.map { $0.kind.rawValue } ?? "now",
                ])
            }
            return e
        case .removeNotifications(let removal):
            let e = attempt(device, "notification_error", ["op": "remove"]) {
                try osCallCrashPoint("notifications.remove", on: device)
                try device.removeNotifications(removal)
            }
            if e == nil { device.trace("notifications_removed", removal.traceFields) }
            return e
        case .setBadge(let count):
            let e = attempt(device, "notification_error", ["op": "setBadge"]) {
                try osCallCrashPoint("badge", on: device)
                try device.setBadge(count)
            }
            if e == nil { device.trace("badge_set", ["count": String(count)]) }
            return e
        case .trace(let event, let fields):
            device.trace(event, fields)
        case .step(let name):
            return attempt(device, "step_error", ["step": name]) { try CrashPoints.pass("step:" + name) }
        }
        return nil
    }

    /// `{hour: 8, minute: 10}` as `hour=8,minute=10` (the fields set, in calendar order).
    static func describe(_ c: DateComponents) -> String {
        let fields: [(String, Int?)] = [
            ("year", c.year), ("month", c.month), ("day", c.day), ("weekday", c.weekday), ("hour", c.hour), ("minute", c.minute),
            ("second", c.second),
        ]
        return fields.compactMap { name, value in value.map { "\(name)=\($0)" } }.joined(separator: ",")
    }

    /// The crash point of an OS call (CRASH-POINTS.md §11). A device that goes through the Apple-named
    /// frameworks has it marked there, where a seed's own Swift calling them is marked too; here
    /// only for one that does not (`InMemoryDevice`).
    private static func osCallCrashPoint(_ label: @autoclosure () -> String, on device: some DevicePort) throws {
        if !device.frameworksMarkCrashPoints { try CrashPoints.pass(label()) }
    }

    /// Runs `body`; a thrown error becomes a trace line `event` with the error, and is returned.
    @discardableResult
    private static func attempt(
        _ device: some DevicePort, _ event: String, _ fields: [String: String], _ body: () throws -> Void
    ) -> String? {
        do {
            try body()
            return nil
        } catch {
            var fields = fields
            fields["error"] = "\(error)"
            device.trace(event, fields)
            return "\(error)"
        }
    }
}

extension Effect {
    /// The keys of a non-atomic write, each carried out (and a crash point) on its own; and
    /// whether it is the private store's.
    var separateWrites: (writes: [DefaultsWrite], isPrivate: Bool)? {
        switch self {
        case .setDefaults(let writes, false): return (writes, false)
        case .setPrivateDefaults(let writes, false): return (writes, true)
        default: return nil
        }
    }
}

extension NotificationRemoval {
    var traceFields: [String: String] {
        switch self {
        case .pending(let ids): ["pending": ids.joined(separator: ",")]
        case .allPending: ["pending": "*"]
        case .delivered(let ids): ["delivered": ids.joined(separator: ",")]
        case .allDelivered: ["delivered": "*"]
        }
    }
}
