import AppGroup
import FocusPledge
import FocusPledgeServer
import Foundation
import StandInRuntime
import SystemKit

typealias Snapshot = [String: PropertyListValue]

/// The settlement server as it really decides: the production `SettlementLedger` behind the
/// production `SettlementService` routing, in memory. Requests arrive as the host's `HTTPCall`s
/// and answers go back as `HTTPReply`s, so the host's own wire code is exercised too.
struct TestServer {
    var ledger = SettlementLedger()
    var isUp = true
    /// Every request that reached the server.
    var received: [SettlementCall] = []

    /// Resolutions of every settlement of the session, in ledger order.
    func resolutions(_ sessionId: String) -> [Resolution] {
        ledger.session(sessionId)?.resolutions.map(\.resolution) ?? []
    }

    mutating func respond(_ call: HTTPCall, now: Date) -> HTTPReply {
        guard isUp else { return .transportError("connection refused") }
        if let c = SettlementCall(call) { received.append(c) }
        let step = SettlementService.handle(method: call.method, path: call.path, body: call.body, ledger: &ledger, now: now)
        return .response(status: step.reply.status, body: step.reply.body)
    }

    /// The seed's "Server-side scheduled job ... Auto-resolves as FAILURE with reason no_heartbeat",
    /// run long after every active session went quiet (the ledger's own expiry rule decides).
    mutating func staleJob(_ sessionId: String) {
        precondition(ledger.session(sessionId)?.status == .active, "stale job on a session that is not active")
        _ = SettlementService.expireStale(ledger: &ledger, now: Date(timeIntervalSince1970: 4_000_000_000), staleAfterSeconds: 60)
    }
}

extension InMemoryDevice {
    var pollTimerRunning: Bool { timers[HostApp.pollTimer] != nil }
    var sessionTimer: Date? {
        if case .at(let date)? = timers[HostApp.sessionTimer] { return date }
        return nil
    }
    var activeSessionId: String? { store[FocusPledgeKeys.activeSessionId]?.stringValue }
}

/// One device, one server, one host process (replaced on every kill), and extension processes
/// created per callback. Effects are carried out by the production `EffectInterpreter` on an
/// `InMemoryDevice`. The host dies when `hostKillBudget` units of its effects have landed
/// (nil = never); requests already sent still reach the server, their answers are lost.
struct Rig {
    let variant: Variant
    var now = Date(timeIntervalSince1970: 1_750_000_000)
    let device = InMemoryDevice()
    var server = TestServer()
    var host: HostApp
    var hostAlive = true
    /// When false, requests wait in the device's outbox until `flush()`.
    var autoHTTP = true
    var retriesDue: [Int: Date] = [:]
    var hostKillBudget: Int?
    /// Every effect list the host returned, per event (landed or not).
    var hostEffects: [[Effect]] = []
    /// Every effect that landed (host and extensions), in order.
    var performed: [Effect] = []
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
        let timersBefore = device.timers
        let outcome = EffectInterpreter.perform(effects, on: device, budget: &hostKillBudget)
        performed += outcome.landed
        // Retry timers the host started: the rig fires them by device time.
        for (name, fire) in device.timers where timersBefore[name] != fire {
            if let id = HostApp.retryRequestId(timer: name), case .after(let seconds) = fire {
                retriesDue[id] = now.addingTimeInterval(seconds)
            }
        }
        if !outcome.complete { die() }
        if autoHTTP { flush() }
        return effects
    }

    /// Requests reach the server; answers go back to the host while it lives.
    mutating func flush() {
        var rounds = 0
        while !device.outbox.isEmpty {
            rounds += 1
            precondition(rounds < 10_000, "request loop does not terminate")
            let (id, call) = device.outbox.removeFirst()
            let reply = server.respond(call, now: now)
            if hostAlive { host(.httpReply(requestId: id, reply)) }
        }
    }

    /// The process is gone: memory, timers and pending answers with it.
    private mutating func die() {
        hostAlive = false
        device.processDied()
        retriesDue = [:]
        // Requests already written to the socket still reach the server.
        let pending = device.outbox
        device.outbox = []
        for (_, call) in pending { _ = server.respond(call, now: now) }
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
    mutating func start(_ sessionId: String, minutes: Int, tappedAt: Date? = nil, screenTime: String? = nil) -> [Effect] {
        // The pledge exists server-side before the native session starts (pack README, A1).
        _ = server.ledger.createSession(sessionId: sessionId, durationMinutes: minutes, now: tappedAt ?? now)
        return host(.userStartsSession(
            sessionId: sessionId, durationMinutes: minutes, tappedAt: tappedAt, now: now, store: store,
            timeZone: TimeZone(identifier: "UTC")!, screenTime: screenTime))
    }

    @discardableResult mutating func poll() -> [Effect] { host(.pollTick(now: now, store: store)) }
    @discardableResult mutating func notified() -> [Effect] { host(.failureNotified(now: now, store: store)) }
    @discardableResult mutating func stop() -> [Effect] { host(.userStopsSession(now: now, store: store)) }

    @discardableResult
    mutating func fireSessionTimer() -> [Effect] {
        guard hostAlive, device.sessionTimer != nil else { return [] }
        device.cancelTimer(HostApp.sessionTimer)
        return host(.sessionTimerFired(now: now, store: store))
    }

    mutating func fireDueRetries() {
        for (id, due) in retriesDue.sorted(by: { $0.key < $1.key }) where due <= now {
            retriesDue.removeValue(forKey: id)
            device.cancelTimer(HostApp.retryTimer(id))
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

    private mutating func runExtension(_ effects: [Effect], budget: Int?) {
        var budget = budget
        performed += EffectInterpreter.perform(effects, on: device, budget: &budget).landed
    }

    @discardableResult
    mutating func threshold(_ sessionId: String, killAfter budget: Int? = nil) -> MonitorExtension {
        var monitor = MonitorExtension(variant: variant)
        let effects = monitor.handle(.eventDidReachThreshold(
            event: "focuspledge_threshold", activity: FocusPledgeKeys.activityName(sessionId: sessionId), now: now,
            store: store))
        runExtension(effects, budget: budget)
        return monitor
    }

    @discardableResult
    mutating func intervalDidEnd(_ sessionId: String) -> MonitorExtension {
        var monitor = MonitorExtension(variant: variant)
        let effects = monitor.handle(.intervalDidEnd(
            activity: FocusPledgeKeys.activityName(sessionId: sessionId), now: now, store: store))
        runExtension(effects, budget: nil)
        return monitor
    }

    @discardableResult
    mutating func shieldTap(_ app: String, killAfter budget: Int? = nil) -> ShieldActionExtension {
        var shield = ShieldActionExtension(variant: variant)
        let effects = shield.handle(.handle(action: .primaryButtonPressed, appBundleId: app, now: now, store: store))
        runExtension(effects, budget: budget)
        return shield
    }

    // MARK: Queries

    /// Every resolveSession request the host machines returned (landed or not).
    var settleRequests: [ResolveSessionRequest] { resolveRequests(hostEffects.flatMap { $0 }) }

    var allHostEffects: [Effect] { hostEffects.flatMap { $0 } }
}

/// The resolveSession requests among `effects`.
func resolveRequests(_ effects: [Effect]) -> [ResolveSessionRequest] {
    effects.compactMap {
        if case .http(_, let call) = $0, case .resolveSession(let r)? = SettlementCall(call) { return r }
        return nil
    }
}

/// The settlement calls among `effects`.
func settlementCalls(_ effects: [Effect]) -> [SettlementCall] {
    effects.compactMap {
        if case .http(_, let call) = $0 { return SettlementCall(call) }
        return nil
    }
}

func index(of predicate: (Effect) -> Bool, in effects: [Effect]) -> Int? {
    effects.firstIndex(where: predicate)
}
