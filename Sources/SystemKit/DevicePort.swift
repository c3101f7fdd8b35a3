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
    }

    /// Performs `effects` on `device`. `budget` is how many units (`Effect.units`) may still land
    /// before the process dies; nil = it does not die. It is decremented as units land.
    @discardableResult
    public static func perform(_ effects: [Effect], on device: some DevicePort, budget: inout Int?) -> Outcome {
        var landed: [Effect] = []
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
                        return Outcome(landed: landed, complete: false)
                    }
                    attempt(device, "store_error", ["op": "write", "key": write.key]) { try device.writeDefaults([write]) }
                }
                landed.append(effect)
                continue
            }
            guard spend() else { return Outcome(landed: landed, complete: false) }
            carryOut(effect, on: device)
            landed.append(effect)
        }
        return Outcome(landed: landed, complete: true)
    }

    /// Performs every effect; the process does not die.
    @discardableResult
    public static func perform(_ effects: [Effect], on device: some DevicePort) -> Outcome {
        var unbounded: Int? = nil
        return perform(effects, on: device, budget: &unbounded)
    }

    private static func carryOut(_ effect: Effect, on device: some DevicePort) {
        switch effect {
        case .setDefaults(let writes, _):
            attempt(device, "store_error", ["op": "write"]) { try device.writeDefaults(writes) }
        case .applyShields(let apps):
            if attempt(device, "shield_error", [:], { try device.setShield(applications: apps) }) {
                device.trace("shields_set", ["apps": apps.sorted().joined(separator: ",")])
            }
        case .removeShields:
            if attempt(device, "shield_error", [:], { try device.setShield(applications: nil) }) {
                device.trace("shields_set", ["apps": ""])
            }
        case .startMonitoring(let activity, let start, let end, let repeats):
            let ok = attempt(device, "monitoring_error", ["activity": activity]) {
                try device.startMonitoring(activity: activity, start: start, end: end, repeats: repeats)
            }
            if ok {
                device.trace("monitoring_started", [
                    "activity": activity, "start": String(start.timeIntervalSince1970), "end": String(end.timeIntervalSince1970),
                ])
            }
        case .stopMonitoring(let names):
            if attempt(device, "monitoring_error", ["activities": names.joined(separator: ",")], { try device.stopMonitoring(names) }) {
                device.trace("monitoring_stopped", ["activities": names.joined(separator: ",")])
            }
        case .startTimer(let name, let fire):
            device.startTimer(name, fire)
        case .cancelTimer(let name):
            device.cancelTimer(name)
        case .http(let requestId, let call):
            device.send(requestId: requestId, call)
        case .postNotification(let name):
            attempt(device, "notify_error", ["name": name]) { try device.post(name) }
        case .respond(let response):
            device.respond(response)
        case .trace(let event, let fields):
            device.trace(event, fields)
        }
    }

    /// Runs `body`; a thrown error becomes a trace line `event` with the error. True on success.
    @discardableResult
    private static func attempt(
        _ device: some DevicePort, _ event: String, _ fields: [String: String], _ body: () throws -> Void
    ) -> Bool {
        do {
            try body()
            return true
        } catch {
            var fields = fields
            fields["error"] = "\(error)"
            device.trace(event, fields)
            return false
        }
    }
}
