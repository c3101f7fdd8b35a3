import AppGroup
import FocusPledge
import Foundation

typealias Snapshot = [String: PropertyListValue]

/// The settlement server as the seed describes it, in memory: idempotency keys name their first
/// settlement forever; a new key on a settled session is refused (`alreadyResolved`) when
/// `ifActive`, and APPLIED as another settlement when not (the seed's function only knows keys).
struct FakeServer {
    var isUp = true
    var created: Set<String> = []
    /// Every settlement applied, per session, in order.
    var settlements: [String: [ResolveSessionRequest]] = [:]
    var firstByKey: [String: Resolution] = [:]
    /// Every request that reached the server.
    var received: [HTTPRequest] = []

    func resolutions(_ sessionId: String) -> [Resolution] {
        settlements[sessionId, default: []].map(\.resolution)
    }

    mutating func respond(_ request: HTTPRequest) -> HTTPOutcome {
        guard isUp else { return .transportError("connection refused") }
        received.append(request)
        switch request {
        case .createSession(let sessionId, _):
            created.insert(sessionId)
            return .accepted
        case .heartbeat(let sessionId):
            guard created.contains(sessionId) else { return .notFound }
            if let last = settlements[sessionId]?.last { return .alreadyResolved(last.resolution) }
            return .accepted
        case .resolveSession(let r):
            if let first = firstByKey[r.idempotencyKey] { return .duplicate(first) }
            guard created.contains(r.sessionId) else { return .notFound }
            if r.ifActive, let last = settlements[r.sessionId]?.last { return .alreadyResolved(last.resolution) }
            settlements[r.sessionId, default: []].append(r)
            firstByKey[r.idempotencyKey] = r.resolution
            return .settled(r.resolution)
        }
    }

    /// The seed's "Server-side scheduled job ... Auto-resolves as FAILURE with reason no_heartbeat".
    mutating func staleJob(_ sessionId: String) {
        settlements[sessionId, default: []].append(ResolveSessionRequest(
            sessionId: sessionId, resolution: .failure, idempotencyKey: "server_stale_\(sessionId)",
            reason: "no_heartbeat", nativeEvidence: [:], ifActive: true))
    }
}

/// The emulated device: App Group suite, ManagedSettings, DeviceActivity, timers, the wire.
struct FakeDevice {
    var store: Snapshot = [:]
    var shields: [String]?
    var monitored: [String: ClosedRange<Date>] = [:]
    var pollTimerRunning = false
    var sessionTimer: Date?
    var notifications: [String] = []
    var responses: [ShieldActionResponse] = []
    var traces: [(name: String, fields: [String: String])] = []
    /// Every effect performed (landed), in order.
    var performed: [Effect] = []

    func traces(named name: String) -> [[String: String]] {
        traces.filter { $0.name == name }.map(\.fields)
    }

    var activeSessionId: String? { store[FocusPledgeKeys.activeSessionId]?.stringValue }

    /// Applies one defaults write to the suite.
    mutating func write(_ w: DefaultsWrite) {
        if let value = w.value { store[w.key] = value } else { store.removeValue(forKey: w.key) }
    }
}

/// Effects an `http` / `scheduleRetry` effect left for the rig to act on.
enum Wire {
    case request(id: Int, HTTPRequest)
    case retry(id: Int, afterSeconds: Double)
}

extension FakeDevice {
    /// Units a list of effects has: one per effect, except one per key of a non-atomic write
    /// (a process can die between those keys, not inside an atomic write).
    static func units(_ effects: [Effect]) -> Int {
        effects.reduce(0) { n, e in
            if case .setDefaults(let writes, false) = e { return n + writes.count }
            return n + 1
        }
    }

    /// Performs effects in order, stopping (the process dies) once `budget` units have landed.
    /// Returns the wire effects that landed and whether every effect landed.
    mutating func perform(_ effects: [Effect], budget: inout Int?) -> (wire: [Wire], complete: Bool) {
        var wire: [Wire] = []
        func spend() -> Bool {
            guard let b = budget else { return true }
            if b <= 0 { return false }
            budget = b - 1
            return true
        }
        for effect in effects {
            if case .setDefaults(let writes, let atomic) = effect {
                if atomic {
                    guard spend() else { return (wire, false) }
                    writes.forEach { write($0) }
                } else {
                    for (i, w) in writes.enumerated() {
                        guard spend() else {
                            if i > 0 { performed.append(.setDefaults(Array(writes.prefix(i)), atomic: false)) }
                            return (wire, false)
                        }
                        write(w)
                    }
                }
                performed.append(effect)
                continue
            }
            guard spend() else { return (wire, false) }
            performed.append(effect)
            switch effect {
            case .setDefaults: break
            case .applyShields(let apps): shields = apps
            case .removeShields: shields = nil
            case .startMonitoring(let activity, let start, let end, _): monitored[activity] = start...end
            case .stopMonitoring(let names): names.forEach { monitored.removeValue(forKey: $0) }
            case .startPollTimer: pollTimerRunning = true
            case .stopPollTimer: pollTimerRunning = false
            case .scheduleSessionTimer(let at): sessionTimer = at
            case .cancelSessionTimer: sessionTimer = nil
            case .http(let id, let request): wire.append(.request(id: id, request))
            case .scheduleRetry(let id, let seconds): wire.append(.retry(id: id, afterSeconds: seconds))
            case .postNotification(let name): notifications.append(name)
            case .respond(let response): responses.append(response)
            case .trace(let name, let fields): traces.append((name, fields))
            }
        }
        return (wire, true)
    }
}

/// One device, one server, one host process (replaced on every kill), and extension processes
/// created per callback. The host dies when `hostKillBudget` units of its effects have landed
/// (nil = never); requests already sent still reach the server, their answers are lost.
struct Rig {
    let variant: Variant
    var now = Date(timeIntervalSince1970: 1_750_000_000)
    var device = FakeDevice()
    var server = FakeServer()
    var host: HostApp
    var hostAlive = true
    /// When false, requests wait in `outbox` until `flush()`.
    var autoHTTP = true
    var outbox: [(id: Int, request: HTTPRequest)] = []
    var retriesDue: [Int: Date] = [:]
    var hostKillBudget: Int?
    /// Every effect list the host returned, per event (landed or not).
    var hostEffects: [[Effect]] = []
    /// Number of host processes started (1 + relaunches).
    var launches = 1

    init(_ variant: Variant, apps: [String]? = ["com.example.game", "com.example.social"]) {
        self.variant = variant
        host = HostApp(variant: variant)
        if let apps { host(.userSelectedApps(apps)) }
    }

    var store: Snapshot { device.store }

    mutating func advance(_ seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }

    // MARK: Host

    /// Delivers an event to the host (if alive), performs its effects, and (with `autoHTTP`)
    /// answers its requests. Returns the effects the machine returned.
    @discardableResult
    mutating func host(_ event: HostApp.Event) -> [Effect] {
        guard hostAlive else { return [] }
        let effects = host.handle(event)
        hostEffects.append(effects)
        let (wire, complete) = device.perform(effects, budget: &hostKillBudget)
        for w in wire {
            switch w {
            case .request(let id, let request): outbox.append((id, request))
            case .retry(let id, let seconds): retriesDue[id] = now.addingTimeInterval(seconds)
            }
        }
        if !complete { die() }
        if autoHTTP { flush() }
        return effects
    }

    /// Requests reach the server; answers go back to the host while it lives.
    mutating func flush() {
        var rounds = 0
        while !outbox.isEmpty {
            rounds += 1
            precondition(rounds < 10_000, "request loop does not terminate")
            let (id, request) = outbox.removeFirst()
            let outcome = server.respond(request)
            if hostAlive { host(.httpResult(requestId: id, outcome)) }
        }
    }

    /// The process is gone: memory, timers and pending answers with it.
    private mutating func die() {
        hostAlive = false
        device.pollTimerRunning = false
        device.sessionTimer = nil
        retriesDue = [:]
        // Requests already written to the socket still reach the server.
        let pending = outbox
        outbox = []
        for (_, request) in pending { _ = server.respond(request) }
    }

    mutating func kill() { die() }

    /// Kills the host if it lives, starts a new process (dying after `budget` units, nil = never)
    /// and delivers `.launched`.
    @discardableResult
    mutating func relaunch(budget: Int? = nil) -> [Effect] {
        if hostAlive { die() }
        host = HostApp(variant: variant)
        hostAlive = true
        hostKillBudget = budget
        launches += 1
        return host(.launched(now: now, store: store))
    }

    @discardableResult
    mutating func start(_ sessionId: String, minutes: Int) -> [Effect] {
        host(.userStartsSession(sessionId: sessionId, durationMinutes: minutes, now: now, store: store))
    }

    @discardableResult mutating func poll() -> [Effect] { host(.pollTick(now: now, store: store)) }
    @discardableResult mutating func notified() -> [Effect] { host(.failureNotified(now: now, store: store)) }
    @discardableResult mutating func stop() -> [Effect] { host(.userStopsSession(now: now)) }

    @discardableResult
    mutating func fireSessionTimer() -> [Effect] {
        guard hostAlive, device.sessionTimer != nil else { return [] }
        device.sessionTimer = nil
        return host(.sessionTimerFired(now: now, store: store))
    }

    mutating func fireDueRetries() {
        for (id, due) in retriesDue.sorted(by: { $0.key < $1.key }) where due <= now {
            retriesDue.removeValue(forKey: id)
            host(.retryTimerFired(requestId: id, now: now))
        }
    }

    /// Lets `seconds` pass in 0.5 s steps, firing every due timer of a living host.
    mutating func run(for seconds: TimeInterval) {
        let stepSeconds = 0.5
        var elapsed = 0.0
        var sincePoll = 0.0
        while elapsed < seconds {
            advance(stepSeconds)
            elapsed += stepSeconds
            sincePoll += stepSeconds
            fireDueRetries()
            if let at = device.sessionTimer, at <= now { fireSessionTimer() }
            if sincePoll >= Double(HostApp.pollIntervalSeconds) {
                sincePoll = 0
                if device.pollTimerRunning { poll() }
            }
        }
    }

    // MARK: Extensions (a fresh process per callback)

    @discardableResult
    mutating func threshold(_ sessionId: String, killAfter budget: Int? = nil) -> MonitorExtension {
        var monitor = MonitorExtension(variant: variant)
        var budget = budget
        let effects = monitor.handle(.eventDidReachThreshold(
            event: "focuspledge_threshold", activity: FocusPledgeKeys.activityName(sessionId: sessionId), now: now,
            store: store))
        _ = device.perform(effects, budget: &budget)
        return monitor
    }

    @discardableResult
    mutating func intervalDidEnd(_ sessionId: String) -> MonitorExtension {
        var monitor = MonitorExtension(variant: variant)
        var budget: Int?
        let effects = monitor.handle(.intervalDidEnd(
            activity: FocusPledgeKeys.activityName(sessionId: sessionId), now: now, store: store))
        _ = device.perform(effects, budget: &budget)
        return monitor
    }

    @discardableResult
    mutating func shieldTap(_ app: String, killAfter budget: Int? = nil) -> ShieldActionExtension {
        var shield = ShieldActionExtension(variant: variant)
        var budget = budget
        let effects = shield.handle(.handle(action: .primaryButtonPressed, application: app, now: now, store: store))
        _ = device.perform(effects, budget: &budget)
        return shield
    }

    // MARK: Queries

    /// Every resolveSession request the host machines returned (landed or not).
    var settleRequests: [ResolveSessionRequest] {
        hostEffects.flatMap { $0 }.compactMap {
            if case .http(_, .resolveSession(let r)) = $0 { return r }
            return nil
        }
    }

    var allHostEffects: [Effect] { hostEffects.flatMap { $0 } }
}

func resolveRequests(_ effects: [Effect]) -> [ResolveSessionRequest] {
    effects.compactMap {
        if case .http(_, .resolveSession(let r)) = $0 { return r }
        return nil
    }
}

func index(of predicate: (Effect) -> Bool, in effects: [Effect]) -> Int? {
    effects.firstIndex(where: predicate)
}
