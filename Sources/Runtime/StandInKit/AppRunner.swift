import AppGroup
import CSystemShims
import Foundation
import History
import ScreenTimeModel
import StandInRuntime
import OSFiles
import SystemKit

#if canImport(Glibc)
import Glibc
#endif

/// The pack's side of an app process: feeds inputs into its pure machine and returns the effects.
/// `now` is device time; `store` reads a fresh snapshot of the suite (only when the seed reads it).
public protocol AppAdapter: AnyObject {
    /// Darwin notifications the app observes while it runs.
    var observedNotifications: [String] { get }
    /// True for an app written against the frameworks, whose own code hands iOS's messages to
    /// `UNUserNotificationCenter.receive(inboxAction:fields:)` (its delegate): it gets them as
    /// `.user` messages, untouched. False (the default): they arrive typed (`AppInput`).
    var takesOSMessagesRaw: Bool { get }
    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect]
}

extension AppAdapter {
    public var takesOSMessagesRaw: Bool { false }
}

/// The imperative shell of every app stand-in: one thread feeds inputs (user taps from the inbox,
/// notifications, timers, HTTP answers) to the adapter one at a time and carries out the effects
/// through the one `EffectInterpreter`. Timers run in device time. Under stepped virtual time it
/// is a participant (PROTOCOL.md §9): whenever it has nothing left to do it reports its earliest
/// timer, its requests in flight and the notification generations it has consumed.
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
    /// Held while the inbox is taken: by the notify thread, at launch, and by the loop at TERM.
    private let inboxTaking = NSLock()
    /// An input, or only a marker that a notification generation has been taken in.
    struct Queued {
        var input: AppInput?
        var consumed: (name: String, generation: UInt64)?
        var isTap: Bool { if case .user? = input { true } else { false } }
    }
    private var inputs: [Queued] = []
    /// Answers that came back and are not handled yet, in the order they came (under stepped time one
    /// worker sends the requests one after another, so that is the order they were sent). The
    /// loop hands one over only when nothing else is queued: after the work at hand and what it
    /// queued itself (a completion it delivers later), after a notification posted before and
    /// after the timers due — so when in that sequence the answer happened to arrive never
    /// changes the order (a settle answer arriving while the host's start tap waited for its
    /// authorization was handled before or after the answer, run to run).
    private var replies: [(requestId: Int, reply: HTTPReply)] = []
    nonisolated(unsafe) static var terminate: sig_atomic_t = 0

    /// Stepped virtual time: the scheduler FIFO, and what this process has consumed so far.
    let scheduler: SchedulerChannel?
    /// Stepped: the FIFO the harness wakes this process through (nil: it posts the wake name).
    var wake: WakeReceiver?
    var consumed: [String: UInt64] = [:]
    /// Every name this process observes, in the order it began to.
    var observedNames: [String] = []
    /// Stepped: how long (wall) the loop holds due timers back for a posted notification the
    /// watcher thread has not handed over yet (it always does within microseconds; the bound only
    /// keeps a lost one from stopping the timers).
    static let postedNotificationWaitNanos: UInt64 = 1_000_000_000
    /// Per name, the generation a wait for it ran out at (never waited for again).
    var waitedOut: [String: UInt64] = [:]
    /// Requests in flight: their service, and (stepped) the device time they give up at.
    var httpInFlight: [Int: (service: String, giveUpAt: Double?)] = [:]
    /// Their crash-point labels (`<service> <method> <path>`).
    var httpLabels: [Int: String] = [:]
    static let heartbeatTimer = "__heartbeat"
    struct Timer {
        var next: Double
        var every: Double?
    }
    /// Device unix seconds.
    var timers: [String: Timer] = [:]
    /// HTTP calls in flight (each on its own thread, each bounded by the client's timeout).
    var inFlight = 0
    static let maxInFlight = 16
    /// Under stepped time one worker: requests reach their servers in the order the machine sent
    /// them, so two runs hand a server the same sequence (at a fixed rate they race, as on a phone).
    lazy var http = WorkerPool(name: "http", maxThreads: scheduler == nil ? AppRunner.maxInFlight : 1)
    static let maxTimers = 1024
    /// The longest the loop sleeps in real time: clock jumps and SIGTERM are noticed this fast.
    static let maxSleepSeconds = 0.02
    /// Every request's bound (connect + send + receive): wall time at a fixed rate, device time
    /// when stepped (where a stopped server must not hold time for wall seconds).
    public static let httpTimeout: Duration = .seconds(2)
    public static let httpTimeoutDeviceSeconds = 2.0
    /// Stepped: the wall-time cap on a request whose device deadline never comes.
    public static let httpSteppedWallCap: Duration = .seconds(30)

    public init(context: StandInContext, adapter: AppAdapter, heartbeat: Heartbeat? = nil) throws {
        self.context = context
        self.adapter = adapter
        device = LiveDevice(context: context)
        inbox = try AppInbox(process: context.process, deviceRoot: context.root, center: context.center)
        self.heartbeat = try heartbeat.map {
            try HeartbeatWriter(container: context.container, writer: $0.writer, intervalSeconds: $0.intervalSeconds, clock: context.clock)
        }
        scheduler = context.clock.isStepped ? SchedulerChannel.open(deviceRoot: context.root) : nil
        device.host = self
        DeviceTime.install(context.clock)
    }

    /// An answer to request `requestId` (or its transport error) came back: handed to the loop
    /// when it has nothing else to do (`takeReply`).
    func answered(_ requestId: Int, _ reply: HTTPReply) {
        cond.lock()
        replies.append((requestId, reply))
        cond.signal()
        cond.unlock()
    }

    /// The first answer that came back, when nothing else is queued (the caller goes on to it).
    func takeReply() -> AppInput? {
        cond.lock()
        defer { cond.unlock() }
        guard inputs.isEmpty, !replies.isEmpty else { return nil }
        let r = replies.removeFirst()
        return .httpReply(requestId: r.requestId, r.reply)
    }

    func enqueue(_ i: AppInput?, consumed: (String, UInt64)? = nil) {
        cond.lock()
        inputs.append(Queued(input: i, consumed: consumed))
        cond.signal()
        cond.unlock()
    }

    /// Observes `name`; each callback enqueues `input()` with the generation it was called for.
    func observe(_ name: String, _ input: @escaping @Sendable () -> [AppInput]) throws {
        let center = context.center
        observedNames.append(name)
        try center.addObserver(name) { [weak self] _ in
            guard let self else { return }
            let gen = center.lastDelivered(name)
            for i in input() { self.enqueue(i) }
            if let gen { self.enqueue(nil, consumed: (name, gen)) }
        }
        if let gen = center.lastDelivered(name) { consumed[name] = max(consumed[name] ?? 0, gen) }
    }

    /// Runs until SIGTERM; then exits 0.
    public func run() -> Never {
        if let inProcess = InProcessStandIns.current { runInProcess(inProcess) }
        // SIGTERM is taken by this loop alone, at a point of its choosing: blocked here (and so
        // in every thread started from now on), it stays pending until the process exits, and
        // the loop asks `sigpending` before it acts. A thread waits on a signalfd — readable while
        // the signal is pending, without taking it — to wake the loop at once (else it sleeps up
        // to `maxSleepSeconds`: wall time the harness waits for at every SIGTERM). A process the
        // nemesis terminates while stopped gets TERM, then CONT, with a timer come due meanwhile;
        // when a handler on some other thread set a flag, whether the timer fired first differed
        // from run to run (24 h seeds 3, 4). The handler stays for a thread started before this.
        signal(SIGTERM) { _ in AppRunner.terminate = 1 }
        let termFd = sth_block_sigterm_signalfd()
        if termFd >= 0 {
            let waiter = Thread { [weak self] in
                var p = pollfd(fd: termFd, events: Int16(POLLIN), revents: 0)
                while poll(&p, 1, -1) < 0 && errno == EINTR {}
                self?.enqueue(nil)
            }
            waiter.name = "sigterm"
            waiter.start()
        }
        context.trace.log("launched", ["variant": context.variant])
        let inboxName = OSPaths.inboxPosted(context.process)
        do {
            try observe(inboxName) { [weak self] in
                self?.queueInbox()
                return []
            }
            for name in adapter.observedNotifications {
                try observe(name) { [.notification(name)] }
            }
            if scheduler != nil {
                // The harness wakes this process when a deadline it reported has come (due timers
                // fire below): through its own FIFO, or else by posting its wake name.
                let name = SchedulerChannel.wakeNotification(pid: getpid())
                wake = WakeReceiver(deviceRoot: context.root) { [weak self] generation in
                    self?.enqueue(nil, consumed: (name, generation))
                }
                if wake != nil {
                    consumed[name] = 0
                } else {
                    try observe(name) { [] }
                }
            }
        } catch {
            StandInContext.fail(context.process, "cannot observe notifications: \(error)")
        }
        launch()
        var heldSince: UInt64?
        while !Self.terminationPending() {
            let pending = takeQueued()
            for q in pending { handle(q) }
            // Stepped: notifications posted before now are handled before timers that came due.
            // A process continued after a stop finds both waiting — a tap the OS put in its inbox
            // while it was stopped, and its poll timer, due since the clock moved — and which of
            // its threads looked first decided the order (24 h seed 2: a heartbeat for the old
            // session, or none), so two runs differed. Now the tap always comes first.
            if scheduler != nil, postedNotificationNotTakenIn() {
                let now = DeviceClock.monotonicNanos()
                let since = heldSince ?? now
                heldSince = since
                if now - since < Self.postedNotificationWaitNanos {
                    cond.lock()
                    if inputs.isEmpty { cond.wait(until: Date(timeIntervalSinceNow: 0.002)) }
                    cond.unlock()
                    continue
                }
                // Given up on: these generations never hold the timers again.
                for name in observedNames { waitedOut[name] = (try? context.center.generation(name)) ?? 0 }
                context.trace.log("notification_wait_timeout", ["names": observedNames.joined(separator: ",")])
            }
            heldSince = nil
            if Self.terminationPending() { break }
            fireDueTimers()
            if let reply = takeReply() {
                receive(reply)
                continue
            }
            cond.lock()
            if inputs.isEmpty && replies.isEmpty {
                cond.unlock()
                reportIdle()
                cond.lock()
            }
            if inputs.isEmpty && replies.isEmpty {
                let wait = min(Self.maxSleepSeconds, secondsUntilNextTimer())
                if wait > 0 { cond.wait(until: Date(timeIntervalSinceNow: wait)) }
            }
            cond.unlock()
        }
        // The taps the OS put in the inbox before the TERM are lost with the process, never left
        // for the next launch: taken here, as the notify thread — woken by the same post, or by
        // the CONT after a stop — may have taken them already (then there is nothing left to
        // take). Which thread looked first decided whether the next launch read them, so two
        // runs of one seed differed (exit-midnight hardened seed 1); the in-process loop takes
        // them at its TERM the same way.
        _ = takeInbox()
        context.trace.log("terminated", ["signal": "TERM"])
        exit(0)
    }

    /// The first heartbeat and its timer, `launched`, and the taps that arrived while the app was
    /// not running: what either loop does before it takes its first input.
    func launch() {
        if let heartbeat {
            heartbeat.onError = { [context] e in context.trace.log("heartbeat_error", ["error": "\(e)"]) }
            try? heartbeat.beat()
            startTimer(Self.heartbeatTimer, .every(seconds: heartbeat.intervalSeconds))
        }
        feed(.launched)
        // The taps that arrived while we were not running, or while we launched, now: those the
        // notify thread has queued meanwhile first, so they are handled in the order they were put
        // in the inbox. Taken straight into `receive`, a tap the notify thread had just queued
        // waited for the loop while a later one was handled first (a start before its pick: a
        // fixed-rate run's host, both taps made while it launched). What else is queued — a
        // notification, a wake — waits for the loop, as it always did.
        queueInbox()
        cond.lock()
        let taps = inputs.filter(\.isTap)
        inputs.removeAll(where: \.isTap)
        cond.unlock()
        for q in taps { handle(q) }
    }

    /// One queued input: handled, and the generation it was called for taken in.
    private func handle(_ q: Queued) {
        if let input = q.input { receive(input) }
        if let (name, gen) = q.consumed { consumed[name] = max(consumed[name] ?? 0, gen) }
    }

    /// The inputs queued so far (taken out of the queue).
    func takeQueued() -> [Queued] {
        cond.lock()
        defer { cond.unlock() }
        let pending = inputs
        inputs.removeAll()
        return pending
    }

    /// True once SIGTERM is pending (blocked, it stays so) or its handler ran on a thread started
    /// before `run` blocked it: the loop looks before every input batch and before timers.
    static func terminationPending() -> Bool { terminate != 0 || sth_sigterm_pending() == 1 }

    /// True when an observed name's current generation is past what this process has taken in:
    /// its watcher thread is about to hand the callback over.
    func postedNotificationNotTakenIn() -> Bool {
        let generation = context.center.generationSnapshot()
        return observedNames.contains { name in
            let current = generation(name)
            return current > (consumed[name] ?? 0) && current > (waitedOut[name] ?? 0)
        }
    }

    /// Stepped time: tells the harness what this process waits for (nothing is queued).
    func reportIdle() {
        guard let scheduler else { return }
        let timerNext = timers.values.map(\.next).min()
        let httpNext = httpInFlight.values.compactMap(\.giveUpAt).min()
        let next = [timerNext, httpNext].compactMap { $0 }.min()
        var services: [String: Int] = [:]
        for (_, h) in httpInFlight { services[h.service, default: 0] += 1 }
        scheduler.reportIdle(nextUnixSeconds: next, http: services, consumed: consumed)
    }

    /// Takes the inbox's messages (at a TERM: lost with the process).
    func takeInbox() -> [AppInput] {
        inboxTaking.lock()
        defer { inboxTaking.unlock() }
        return inboxMessages()
    }

    /// Takes the inbox's messages into the input queue (on the notify thread, or at launch), in
    /// one step under the inbox lock: a tap one thread took is queued before another thread can
    /// take — and queue — a later one.
    func queueInbox() {
        inboxTaking.lock()
        defer { inboxTaking.unlock() }
        for i in inboxMessages() { enqueue(i) }
    }

    /// The inbox's messages, taken out of it (the caller holds `inboxTaking`).
    private func inboxMessages() -> [AppInput] {
        inbox.take(onMalformed: { [context] in context.trace.log("inbox_malformed", ["file": $0]) }).map { .user($0) }
    }

    func receive(_ input: AppInput) {
        var input = input
        switch input {
        case .httpReply(let id, let reply):
            // A reply to a request already given up at its device deadline is dropped.
            guard httpInFlight.removeValue(forKey: id) != nil else { return }
            let label = httpLabels.removeValue(forKey: id) ?? ""
            // A crash point after the server answered (and committed) and before the app reads
            // the answer; an `error` failpoint turns the answer into a lost connection.
            if case .response = reply {
                do { try CrashPoints.pass("http.reply:" + label) } catch {
                    input = .httpReply(requestId: id, .transportError("\(error)"))
                }
            }
        case .user(let m):
            // iOS's own messages (EMULATED-IOS.md §7.7) reach the machine typed, never as a tap.
            if !adapter.takesOSMessagesRaw {
                switch osInput(m) {
                case .input(let typed): return feed(typed)
                case .malformed: return  // traced
                case .appsOwn: break
                }
            }
            var fields = m.fields
            fields["action"] = m.action
            fields["seq"] = String(m.seq)
            context.trace.log("user_input", fields)
            feed(input)
            // The tap's handler returned with its effects carried out: a process that dies before
            // this line died inside the tap, and the user taps again once it is back (EMULATED-IOS.md §7.7).
            context.trace.log("user_input_done", ["action": m.action, "seq": String(m.seq)])
            return
        default: break
        }
        feed(input)
    }

    /// What an inbox message is: one of iOS's, typed; one of iOS's that is malformed (traced, to
    /// be dropped); or the app's own action.
    enum InboxMessageKind {
        case input(AppInput)
        case malformed
        case appsOwn
    }

    func osInput(_ m: AppMessage) -> InboxMessageKind {
        if m.action == NotificationResponseMessage.action {
            do {
                let p = try NotificationResponseMessage.parse(m.fields)
                let request = p.notification.request
                context.trace.log("os_input", [
                    "action": m.action, "seq": String(m.seq), "identifier": request.identifier, "actionIdentifier": p.actionIdentifier,
                ])
                return .input(.notificationResponse(NotificationResponse(
                    identifier: request.identifier, actionIdentifier: p.actionIdentifier,
                    categoryIdentifier: request.content.categoryIdentifier, userInfo: request.content.userInfo, userText: p.userText)))
            } catch {
                context.trace.log("inbox_malformed", ["seq": String(m.seq), "action": m.action, "why": "\(error)"])
                return .malformed
            }
        }
        switch OSMessage.input(for: m) {
        case nil: return .appsOwn
        case .success(let input)?:
            var fields = m.fields
            fields["action"] = m.action
            fields["seq"] = String(m.seq)
            context.trace.log("os_input", fields)
            return .input(input)
        case .failure(let e)?:
            context.trace.log("inbox_malformed", ["seq": String(m.seq), "action": m.action, "why": e.reason])
            return .malformed
        }
    }

    func feed(_ input: AppInput) {
        // The adapter runs the app's code (a pure machine, or a seed's own Swift): `Date()` in it
        // is device time (DeviceTime).
        let effects = DeviceTime.asAppCode { adapter.handle(input, now: context.clock.now(), store: { self.context.snapshot() }) }
        let outcome = EffectInterpreter.perform(effects, on: device)
        // One level deep: a failure while handling a failure is traced only, so a machine that
        // retries at once cannot loop.
        if case .effectFailed = input { return }
        for failure in outcome.failures { feed(.effectFailed(failure)) }
    }

    // MARK: Timers (device time)

    func secondsUntilNextTimer() -> Double {
        guard let next = timers.values.map(\.next).min() else { return Self.maxSleepSeconds }
        return context.clock.realSeconds(forVirtual: max(0, next - context.clock.nowUnixSeconds()))
    }

    func fireDueTimers() {
        let now = context.clock.nowUnixSeconds()
        // Stepped: a request whose device deadline came gives up now, in this loop — not when its
        // thread next looks at the clock — so the answer is the same in every run.
        for (id, h) in httpInFlight.sorted(by: { $0.key < $1.key }) {
            guard let at = h.giveUpAt, at <= now else { continue }
            httpInFlight[id] = nil
            httpLabels[id] = nil
            feed(.httpReply(requestId: id, .transportError("\(h.service): no answer within \(Self.httpTimeoutDeviceSeconds) device seconds")))
        }
        // Earliest first; equal times by name, so the order never depends on hashing.
        let due = timers.filter { $0.value.next <= now }.sorted { ($0.value.next, $0.key) < ($1.value.next, $1.key) }
        for (name, timer) in due {
            guard timers[name]?.next == timer.next else { continue }  // replaced or cancelled meanwhile
            if let every = timer.every {
                // A stopped process resumes with one firing, not a burst of the missed ones: the
                // next one is the first point of the timer's grid strictly after now.
                let missed = max(0, ((now - timer.next) / every).rounded(.down))
                timers[name] = Timer(next: timer.next + (missed + 1) * every, every: every)
            } else {
                timers[name] = nil
            }
            if name == Self.heartbeatTimer {
                do { try heartbeat?.beat() } catch { context.trace.log("heartbeat_error", ["error": "\(error)"]) }
                continue
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

    /// Queued behind the input being handled: its effects land first, as when an app's
    /// completion handler runs later on its main queue.
    public func deliverLater(_ input: AppInput) { enqueue(input) }

    // MARK: HTTP

    public func send(requestId: Int, _ call: HTTPCall) {
        let label = "\(call.service) \(call.method) \(call.path)"
        // Awaited from here on: an answer (or error) for it is handed to the machine exactly once.
        httpInFlight[requestId] = (call.service, nil)
        httpLabels[requestId] = label
        // A crash point before the request leaves; an `error` failpoint = it could not be sent.
        do { try CrashPoints.pass("http.send:" + label) } catch {
            answered(requestId, .transportError("\(error)"))
            return
        }
        if inProcess != nil {
            // The request leaves at once, as a process's worker sends it while the app goes on
            // (a kill right after the send does not take it back: the server has it); the answer
            // is handed over when the loop has nothing else, as the process's loop does.
            let portFile = StandInContext.portFile(runDirectory: context.runDirectory, service: call.service)
            let reply = LoopbackHTTPClient.perform(call, portFile: portFile, timeout: Self.httpSteppedWallCap, giveUp: { false })
            answered(requestId, reply)
            return
        }
        cond.lock()
        let busy = inFlight
        cond.unlock()
        guard busy < Self.maxInFlight else {
            answered(requestId, .transportError("too many requests in flight"))
            return
        }
        adjustInFlight(+1)
        let portFile = StandInContext.portFile(runDirectory: context.runDirectory, service: call.service)
        let clock = context.clock
        let stepped = scheduler != nil
        // Stepped: the request gives up at a device deadline, which this process reports; the
        // run loop gives it up at that instant (fireDueTimers), never the thread on its own.
        let giveUpAt = stepped ? clock.nowUnixSeconds() + Self.httpTimeoutDeviceSeconds : nil
        httpInFlight[requestId] = (call.service, giveUpAt)
        http.run { [weak self] in
            let reply: HTTPReply
            if let giveUpAt {
                reply = LoopbackHTTPClient.perform(
                    call, portFile: portFile, timeout: Self.httpSteppedWallCap, giveUp: { clock.nowUnixSeconds() >= giveUpAt })
            } else {
                reply = LoopbackHTTPClient.perform(call, portFile: portFile, timeout: Self.httpTimeout)
            }
            guard let self else { return }
            self.adjustInFlight(-1)
            if stepped, case .transportError(let message) = reply, message.hasSuffix(LoopbackHTTPClient.gaveUpMessage) { return }
            self.answered(requestId, reply)
        }
    }

    // MARK: In the harness's process

    /// Set when the harness runs this app inside its own process (`InProcessStandIns`).
    var inProcess: InProcessStandIns.Current?

    /// The run loop of an app the harness runs inside its own process, a thread of its own that
    /// runs only while the harness lets it (`InProcessStandIns.Current.idle`). The same inputs in
    /// the same order as `run` under virtual time: a notification posted before now before the
    /// timers that came due, the answer to a request after the work at hand (its own thread's
    /// answer, which the loop takes once it is done); no thread of its own watches anything — it
    /// looks at the generations of the names it observes whenever it runs. HTTP goes to the
    /// server's port as from a process, synchronously, when it is sent (`send`).
    func runInProcess(_ p: InProcessStandIns.Current) -> Never {
        inProcess = p
        context.trace.log("launched", ["variant": context.variant])
        let inboxName = OSPaths.inboxPosted(context.process)
        observedNames = [inboxName] + adapter.observedNotifications
        let atLaunch = context.center.generationSnapshot()
        for name in observedNames { consumed[name] = atLaunch(name) }
        launch()
        while true {
            if p.terminateRequested() {
                // The taps posted before the TERM are lost with it, not read by the next launch,
                // as a process's loop takes them at its TERM (`run`).
                if context.center.generationSnapshot()(inboxName) > (consumed[inboxName] ?? 0) { _ = takeInbox() }
                context.trace.log("terminated", ["signal": "TERM"])
                p.end(0)
            }
            // Notifications posted since it last looked, in the order it began to observe them.
            let generation = context.center.generationSnapshot()
            var notified = false
            for name in observedNames {
                let g = generation(name)
                guard g > (consumed[name] ?? 0) else { continue }
                consumed[name] = g
                notified = true
                if name == inboxName {
                    queueInbox()
                } else {
                    enqueue(.notification(name))
                }
            }
            let pending = takeQueued()
            for q in pending { handle(q) }
            if notified || !pending.isEmpty { continue }
            fireDueTimers()
            if let reply = takeReply() {
                receive(reply)
                continue
            }
            cond.lock()
            let queued = !inputs.isEmpty
            cond.unlock()
            if queued { continue }
            p.idle(InProcessStandIns.IdleReport(next: timers.values.map(\.next).min(), consumed: consumed))
        }
    }

    /// Requests whose threads still run (bounded by `maxInFlight`).
    private func adjustInFlight(_ delta: Int) {
        cond.lock()
        inFlight += delta
        cond.unlock()
    }
}
