import AppGroup
import FocusPledge
import Foundation
import History
import ScreenTimeShims

#if canImport(Glibc)
import Glibc
#endif

/// The host app's imperative shell: feeds OS callbacks, user taps (inbox), Darwin notifications,
/// timers and HTTP answers into the pure `HostApp` machine, one at a time on one thread, and
/// carries out its effects. All timers run in device time.
public final class HostAppShell: @unchecked Sendable {
    enum Input {
        case inbox
        case failureNotification
        case http(requestId: Int, outcome: HTTPOutcome)
    }

    let ctx: StandInContext
    var machine: HostApp
    let shields: ManagedSettingsStore
    let activities: DeviceActivityCenter
    let inbox: AppInbox
    let client: SettlementClient
    let heartbeat: HeartbeatWriter

    private let cond = NSCondition()
    private var inputs: [Input] = []
    nonisolated(unsafe) static var terminate: sig_atomic_t = 0

    // Timers, in device unix seconds.
    var pollTimer: (interval: Double, next: Double)?
    var sessionTimer: Double?
    var retryTimers: [Int: Double] = [:]
    /// HTTP calls in flight (each on its own thread, each bounded by the client's timeout).
    var inFlight = 0
    static let maxInFlight = 16
    /// The longest the loop sleeps in real time: clock jumps and SIGTERM are noticed this fast.
    static let maxSleepSeconds = 0.02

    public init(context: StandInContext) throws {
        ctx = context
        machine = HostApp(variant: context.variant)
        shields = try ManagedSettingsStore(deviceRoot: context.root, center: context.center)
        activities = try DeviceActivityCenter(deviceRoot: context.root, center: context.center)
        inbox = try AppInbox(process: "host-app", deviceRoot: context.root, center: context.center)
        client = SettlementClient(portFile: context.runDirectory + "/settlement-server.port")
        let container = try AppGroupContainer(deviceRoot: context.root, groupIdentifier: FocusPledgeKeys.appGroupId, entitlements: .fromEnvironment())
        heartbeat = try HeartbeatWriter(container: container, writer: "host-app", intervalSeconds: 5, clock: context.clock)
    }

    func enqueue(_ i: Input) {
        cond.lock()
        inputs.append(i)
        cond.signal()
        cond.unlock()
    }

    public func run() -> Never {
        signal(SIGTERM) { _ in HostAppShell.terminate = 1 }
        ctx.trace.log("launched", ["variant": ctx.variant.rawValue])
        do {
            try ctx.center.addObserver(EmulatedOSPaths.inboxPosted("host-app")) { [weak self] _ in self?.enqueue(.inbox) }
            try ctx.center.addObserver(FocusPledgeKeys.failureNotification) { [weak self] _ in self?.enqueue(.failureNotification) }
        } catch {
            StandInContext.fail("host-app", "cannot observe notifications: \(error)")
        }
        heartbeat.onError = { [ctx] e in ctx.trace.log("heartbeat_error", ["error": "\(e)"]) }
        heartbeat.start()
        feed(.launched(now: ctx.clock.now(), store: ctx.snapshot()))
        enqueue(.inbox)  // taps that arrived while we were not running
        while HostAppShell.terminate == 0 {
            cond.lock()
            let pending = inputs
            inputs.removeAll()
            cond.unlock()
            for i in pending { handle(i) }
            fireDueTimers()
            cond.lock()
            if inputs.isEmpty {
                let wait = min(Self.maxSleepSeconds, secondsUntilNextTimer())
                if wait > 0 { cond.wait(until: Date(timeIntervalSinceNow: wait)) }
            }
            cond.unlock()
        }
        heartbeat.stop()
        ctx.trace.log("terminated", ["signal": "TERM"])
        exit(0)
    }

    func secondsUntilNextTimer() -> Double {
        let now = ctx.clock.nowUnixSeconds()
        var next = Double.infinity
        if let p = pollTimer { next = min(next, p.next) }
        if let s = sessionTimer { next = min(next, s) }
        for d in retryTimers.values { next = min(next, d) }
        return next.isFinite ? ctx.clock.realSeconds(forVirtual: max(0, next - now)) : Self.maxSleepSeconds
    }

    func fireDueTimers() {
        let now = ctx.clock.nowUnixSeconds()
        if let s = sessionTimer, s <= now {
            sessionTimer = nil
            feed(.sessionTimerFired(now: ctx.clock.now(), store: ctx.snapshot()))
        }
        for (id, d) in retryTimers.sorted(by: { $0.key < $1.key }) where d <= now {
            retryTimers[id] = nil
            feed(.retryTimerFired(requestId: id, now: ctx.clock.now()))
        }
        if let p = pollTimer, p.next <= now {
            // A stopped process resumes with one tick, not a burst of missed ones.
            pollTimer = (p.interval, max(p.next + p.interval, now))
            feed(.pollTick(now: ctx.clock.now(), store: ctx.snapshot()))
        }
    }

    func handle(_ i: Input) {
        switch i {
        case .failureNotification:
            feed(.failureNotified(now: ctx.clock.now(), store: ctx.snapshot()))
        case .http(let id, let outcome):
            inFlight -= 1
            feed(.httpResult(requestId: id, outcome))
        case .inbox:
            for m in inbox.take(onMalformed: { self.ctx.trace.log("inbox_malformed", ["file": $0]) }) {
                ctx.trace.log("user_input", ["action": m.action, "sid": m.sessionId ?? "", "seq": String(m.seq)])
                switch m.action {
                case "select_apps": feed(.userSelectedApps(m.apps ?? []))
                case "start_session":
                    guard let sid = m.sessionId, let minutes = m.durationMinutes else {
                        ctx.trace.log("inbox_malformed", ["seq": String(m.seq), "why": "start_session needs sessionId and durationMinutes"])
                        continue
                    }
                    feed(.userStartsSession(sessionId: sid, durationMinutes: minutes, now: ctx.clock.now(), store: ctx.snapshot()))
                case "stop_session": feed(.userStopsSession(now: ctx.clock.now()))
                default: ctx.trace.log("inbox_malformed", ["seq": String(m.seq), "why": "unknown action \(m.action)"])
                }
            }
        }
    }

    func feed(_ e: HostApp.Event) {
        for effect in machine.handle(e) { perform(effect) }
    }

    func perform(_ effect: Effect) {
        switch effect {
        case .setDefaults(let writes, let atomic):
            ctx.apply(writes, atomic: atomic)
        case .applyShields(let apps):
            setShield(apps)
        case .removeShields:
            setShield(nil)
        case .startMonitoring(let activity, let start, let end, let repeats):
            do {
                try activities.startMonitoring(activity, during: DeviceActivitySchedule(intervalStart: start, intervalEnd: end, repeats: repeats))
                ctx.trace.log("monitoring_started", ["activity": activity, "start": String(start.timeIntervalSince1970), "end": String(end.timeIntervalSince1970)])
            } catch {
                ctx.trace.log("monitoring_error", ["activity": activity, "error": "\(error)"])
            }
        case .stopMonitoring(let names):
            activities.stopMonitoring(names)
            ctx.trace.log("monitoring_stopped", ["activities": names.joined(separator: ",")])
        case .startPollTimer(let seconds):
            pollTimer = (Double(seconds), ctx.clock.nowUnixSeconds() + Double(seconds))
        case .stopPollTimer:
            pollTimer = nil
        case .scheduleSessionTimer(let at):
            sessionTimer = at.timeIntervalSince1970
        case .cancelSessionTimer:
            sessionTimer = nil
        case .scheduleRetry(let id, let after):
            retryTimers[id] = ctx.clock.nowUnixSeconds() + after
        case .http(let id, let request):
            if inFlight >= Self.maxInFlight {
                feed(.httpResult(requestId: id, .transportError("too many requests in flight")))
                return
            }
            inFlight += 1
            let client = self.client
            Thread { [weak self] in
                let outcome = client.perform(request)
                self?.enqueue(.http(requestId: id, outcome: outcome))
            }.start()
        case .postNotification(let name):
            do { try ctx.center.post(name) } catch { ctx.trace.log("notify_error", ["name": name, "error": "\(error)"]) }
        case .respond:
            break  // only extensions answer iOS
        case .trace(let name, let fields):
            ctx.trace.log(name, fields)
        }
    }

    func setShield(_ apps: [String]?) {
        do {
            try shields.setShield(ManagedSettingsStore.Shield(applications: apps.map(Set.init)))
            ctx.trace.log("shields_set", ["apps": (apps ?? []).sorted().joined(separator: ",")])
        } catch {
            ctx.trace.log("shield_error", ["error": "\(error)"])
        }
    }
}
