import Foundation

/// What carrying out an `Effect` needs from the device. `LiveDevice` (StandInKit) writes the
/// device root and talks to servers; `InMemoryDevice` keeps it all in memory for tests and
/// crash-point exploration. Errors thrown here are traced by the interpreter, never swallowed.
public protocol DevicePort: AnyObject {
    /// One atomic write to the process's App Group suite.
    func writeDefaults(_ writes: [DefaultsWrite]) throws
    func post(_ name: String) throws
    /// nil = no shield.
    func setShield(applications: [String]?) throws
    func startMonitoring(activity: String, start: Date, end: Date, repeats: Bool) throws
    func startMonitoring(activity: String, schedule: MonitoringSchedule, events: [String: MonitoringEvent]) throws
    func stopMonitoring(_ activities: [String]) throws
    func startTimer(_ name: String, _ fire: TimerFire)
    func cancelTimer(_ name: String)
    func send(requestId: Int, _ call: HTTPCall)
    func respond(_ response: ShieldActionResponse)
    func trace(_ event: String, _ fields: [String: String])
}

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
            if case .setDefaults(let writes, let atomic) = effect, !atomic {
                for (i, write) in writes.enumerated() {
                    guard spend() else {
                        if i > 0 { landed.append(.setDefaults(Array(writes.prefix(i)), atomic: false)) }
                        return Outcome(landed: landed, complete: false, failures: failures)
                    }
                    if let e = attempt(device, "store_error", ["op": "write", "key": write.key], { try device.writeDefaults([write]) }) {
                        failures.append(EffectFailure(effect: .setDefaults([write], atomic: false), error: e))
                    }
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
        case .applyShields(let apps):
            let e = attempt(device, "shield_error", [:], { try device.setShield(applications: apps) })
            if e == nil { device.trace("shields_set", ["apps": apps.sorted().joined(separator: ",")]) }
            return e
        case .removeShields:
            let e = attempt(device, "shield_error", [:], { try device.setShield(applications: nil) })
            if e == nil { device.trace("shields_set", ["apps": ""]) }
            return e
        case .startMonitoring(let activity, let start, let end, let repeats):
            let e = attempt(device, "monitoring_error", ["activity": activity]) {
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
            let e = attempt(device, "monitoring_error", ["activities": names.joined(separator: ",")], { try device.stopMonitoring(names) })
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
            device.respond(response)
        case .trace(let event, let fields):
            device.trace(event, fields)
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
