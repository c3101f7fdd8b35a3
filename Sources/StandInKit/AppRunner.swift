import AppGroup
import Foundation
import History
import ScreenTimeShims
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// Everything that can happen to a running app, as its run loop hands it to the pack's adapter.
public enum AppInput: Sendable, Equatable {
    /// The process started (first launch or relaunch): memory is empty, the App Group is not.
    case launched
    /// The user did something in the app (`AppInbox`).
    case user(AppMessage)
    /// A Darwin notification the app observes was posted.
    case notification(String)
    /// A timer the app started (`Effect.startTimer`) fired.
    case timer(String)
    /// The answer to `Effect.http(requestId:_:)`.
    case httpReply(requestId: Int, HTTPReply)
}

/// The pack's side of an app process: feeds inputs into its pure machine and returns the effects.
/// `now` is device time; `store` reads a fresh snapshot of the suite (only when the seed reads it).
public protocol AppAdapter: AnyObject {
    /// Darwin notifications the app observes while it runs.
    var observedNotifications: [String] { get }
    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect]
}

/// The imperative shell of every app stand-in: one thread feeds inputs (user taps from the inbox,
/// notifications, timers, HTTP answers) to the adapter one at a time and carries out the effects
/// through the one `EffectInterpreter`. Timers run in device time.
public final class AppRunner: LiveDeviceHost, @unchecked Sendable {
    public struct Heartbeat: Sendable {
        public var writer: String
        public var intervalSeconds: Double
        public init(writer: String, intervalSeconds: Double) {
            self.writer = writer
            self.intervalSeconds = intervalSeconds
        }
    }

    let context: StandInContext
    let adapter: AppAdapter
    let device: LiveDevice
    let inbox: AppInbox
    let heartbeat: HeartbeatWriter?

    private let cond = NSCondition()
    private var inputs: [AppInput] = []
    nonisolated(unsafe) static var terminate: sig_atomic_t = 0

    struct Timer {
        var next: Double
        var every: Double?
    }
    /// Device unix seconds.
    var timers: [String: Timer] = [:]
    /// HTTP calls in flight (each on its own thread, each bounded by the client's timeout).
    var inFlight = 0
    static let maxInFlight = 16
    static let maxTimers = 1024
    /// The longest the loop sleeps in real time: clock jumps and SIGTERM are noticed this fast.
    static let maxSleepSeconds = 0.02
    /// Every request's bound (connect + send + receive).
    public static let httpTimeout: Duration = .seconds(2)

    public init(context: StandInContext, adapter: AppAdapter, heartbeat: Heartbeat? = nil) throws {
        self.context = context
        self.adapter = adapter
        device = LiveDevice(context: context)
        inbox = try AppInbox(process: context.process, deviceRoot: context.root, center: context.center)
        self.heartbeat = try heartbeat.map {
            try HeartbeatWriter(container: context.container, writer: $0.writer, intervalSeconds: $0.intervalSeconds, clock: context.clock)
        }
        device.host = self
    }

    func enqueue(_ i: AppInput) {
        cond.lock()
        inputs.append(i)
        cond.signal()
        cond.unlock()
    }

    /// Runs until SIGTERM; then exits 0.
    public func run() -> Never {
        signal(SIGTERM) { _ in AppRunner.terminate = 1 }
        context.trace.log("launched", ["variant": context.variant])
        let inboxName = EmulatedOSPaths.inboxPosted(context.process)
        do {
            try context.center.addObserver(inboxName) { [weak self] _ in self?.takeInbox() }
            for name in adapter.observedNotifications {
                try context.center.addObserver(name) { [weak self] _ in self?.enqueue(.notification(name)) }
            }
        } catch {
            StandInContext.fail(context.process, "cannot observe notifications: \(error)")
        }
        if let heartbeat {
            heartbeat.onError = { [context] e in context.trace.log("heartbeat_error", ["error": "\(e)"]) }
            heartbeat.start()
        }
        feed(.launched)
        takeInbox()  // taps that arrived while we were not running
        while AppRunner.terminate == 0 {
            cond.lock()
            let pending = inputs
            inputs.removeAll()
            cond.unlock()
            for i in pending { receive(i) }
            fireDueTimers()
            cond.lock()
            if inputs.isEmpty {
                let wait = min(Self.maxSleepSeconds, secondsUntilNextTimer())
                if wait > 0 { cond.wait(until: Date(timeIntervalSinceNow: wait)) }
            }
            cond.unlock()
        }
        heartbeat?.stop()
        context.trace.log("terminated", ["signal": "TERM"])
        exit(0)
    }

    /// Called on the notify thread: only queues.
    func takeInbox() {
        for m in inbox.take(onMalformed: { [context] in context.trace.log("inbox_malformed", ["file": $0]) }) {
            enqueue(.user(m))
        }
    }

    func receive(_ input: AppInput) {
        switch input {
        case .httpReply: inFlight -= 1
        case .user(let m):
            var fields = m.fields
            fields["action"] = m.action
            fields["seq"] = String(m.seq)
            context.trace.log("user_input", fields)
        default: break
        }
        feed(input)
    }

    func feed(_ input: AppInput) {
        let effects = adapter.handle(input, now: context.clock.now(), store: { self.context.snapshot() })
        EffectInterpreter.perform(effects, on: device)
    }

    // MARK: Timers (device time)

    func secondsUntilNextTimer() -> Double {
        guard let next = timers.values.map(\.next).min() else { return Self.maxSleepSeconds }
        return context.clock.realSeconds(forVirtual: max(0, next - context.clock.nowUnixSeconds()))
    }

    func fireDueTimers() {
        let now = context.clock.nowUnixSeconds()
        // Earliest first; equal times by name, so the order never depends on hashing.
        let due = timers.filter { $0.value.next <= now }.sorted { ($0.value.next, $0.key) < ($1.value.next, $1.key) }
        for (name, timer) in due {
            guard timers[name]?.next == timer.next else { continue }  // replaced or cancelled meanwhile
            if let every = timer.every {
                // A stopped process resumes with one firing, not a burst of the missed ones.
                timers[name] = Timer(next: max(timer.next + every, now), every: every)
            } else {
                timers[name] = nil
            }
            feed(.timer(name))
        }
    }

    public func startTimer(_ name: String, _ fire: TimerFire) {
        guard timers[name] != nil || timers.count < Self.maxTimers else {
            context.trace.log("timer_refused", ["name": name, "why": "more than \(Self.maxTimers) timers"])
            return
        }
        let now = context.clock.nowUnixSeconds()
        switch fire {
        case .after(let seconds): timers[name] = Timer(next: now + max(0, seconds), every: nil)
        case .at(let date): timers[name] = Timer(next: date.timeIntervalSince1970, every: nil)
        case .every(let seconds): timers[name] = Timer(next: now + max(0.001, seconds), every: max(0.001, seconds))
        }
    }

    public func cancelTimer(_ name: String) { timers[name] = nil }

    // MARK: HTTP

    public func send(requestId: Int, _ call: HTTPCall) {
        if inFlight >= Self.maxInFlight {
            enqueue(.httpReply(requestId: requestId, .transportError("too many requests in flight")))
            inFlight += 1
            return
        }
        inFlight += 1
        let portFile = StandInContext.portFile(runDirectory: context.runDirectory, service: call.service)
        Thread { [weak self] in
            let reply = LoopbackHTTPClient.perform(call, portFile: portFile, timeout: Self.httpTimeout)
            self?.enqueue(.httpReply(requestId: requestId, reply))
        }.start()
    }
}
