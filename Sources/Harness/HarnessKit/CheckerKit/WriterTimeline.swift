import History
import SystemKit

/// What a heartbeat writer's process really was at a moment of device time.
public enum WriterState: String, Codable, Sendable, CaseIterable {
    /// Never started yet, or an on-demand extension between calls (its last call ended well).
    case notLaunched = "not-launched"
    case running
    /// SIGSTOPped by the nemesis (alive, frozen).
    case stoppedByNemesis = "stopped-by-nemesis"
    /// Suspended by the emulated iOS (an app in the background): alive, its timers stopped.
    case suspendedByIOS = "suspended-by-ios"
    /// Ended by a signal someone sent (the nemesis, or iOS: a force quit, a kill at launch).
    case killed
    /// Ended by a signal nobody sent: a crash (a failpoint's self-kill, a trap).
    case crashed
    /// An app or server that ended by itself.
    case exited

    /// No process of the writer exists, and not because an on-demand call ended well.
    public var isDead: Bool { self == .killed || self == .crashed || self == .exited }
}

/// The ground truth of one role over a run, from the harness's own lines alone: spawn, signal
/// and exit for apps and servers; callback_delivered/started/completed/failed and signals for an
/// extension, whose process lives for one call.
public struct WriterTimeline: Sendable {
    public struct Segment: Sendable, Equatable {
        public var state: WriterState
        /// Device time and CLOCK_MONOTONIC of the line that began it.
        public var t: Double
        public var mono: Int64
        /// In words: "SIGKILL by the nemesis", "idle since its call ended", …
        public var detail: String
        public var line: HistoryEvent?
    }

    /// A stretch of device time the writer was dead: from the line that ended it to the line that
    /// started it again (nil: dead to the end of the history).
    public struct Death: Sendable, Equatable {
        public var start: Segment
        public var endT: Double?
        public var endMono: Int64?

        public func contains(t: Double) -> Bool { t >= start.t && t <= (endT ?? .infinity) }
        public func contains(mono: Int64) -> Bool { mono >= start.mono && mono <= (endMono ?? .max) }
    }

    public let role: String
    /// In history order; the first is `notLaunched` at the start.
    public private(set) var segments: [Segment]

    public init(role: String, lifetime: ProcessRole.Lifetime?, events: [HistoryEvent]) {
        self.role = role
        let first = events.first
        segments = [Segment(state: .notLaunched, t: first?.t ?? 0, mono: first?.mono ?? 0, detail: "not launched yet", line: nil)]
        if case .extension(let point)? = lifetime {
            buildExtension(point: point, events: events)
        } else {
            buildLongLived(events: events)
        }
    }

    private mutating func append(_ state: WriterState, _ e: HistoryEvent, _ detail: String) {
        segments.append(Segment(state: state, t: e.t, mono: e.mono, detail: detail, line: e))
    }

    /// The state of the freshly running process after a signal (STOP/CONT) from `by`.
    private struct Frozen {
        var byNemesis = false
        var byIOS = false
        var state: WriterState { byNemesis ? .stoppedByNemesis : (byIOS ? .suspendedByIOS : .running) }
        var detail: String { byNemesis ? "SIGSTOP by the nemesis" : (byIOS ? "suspended by iOS" : "running") }
        mutating func apply(_ signal: HistoryEvent) -> Bool {
            let nemesis = signal["by"] == "nemesis"
            switch signal["signal"] {
            case "STOP": if nemesis { byNemesis = true } else { byIOS = true }
            case "CONT": if nemesis { byNemesis = false } else { byIOS = false }
            default: return false
            }
            return true
        }
    }

    static func ending(_ status: String?, killedBy: HistoryEvent?) -> (WriterState, String) {
        if let k = killedBy {
            return (.killed, "SIG\(k["signal"] ?? "KILL") by \(k["by"] == "nemesis" ? "the nemesis" : (k["by"] ?? "someone"))")
        }
        if let s = status, s.hasPrefix("signal") { return (.crashed, "crashed (\(s), no one sent it)") }
        return (.exited, "exited (\(status ?? "?"))")
    }

    private mutating func buildLongLived(events: [HistoryEvent]) {
        var pid: Int32?
        var frozen = Frozen()
        var killedBy: HistoryEvent?
        for e in events where e.process == HistoryEvent.harnessProcessName && e["target"] == role {
            switch e.event {
            case "spawn":
                pid = e.childPid
                frozen = Frozen()
                killedBy = nil
                append(.running, e, "running (pid \(e["childPid"] ?? "?"))")
            case "signal":
                guard e.childPid == pid, pid != nil else { continue }
                if frozen.apply(e) {
                    append(frozen.state, e, frozen.detail)
                } else if e["signal"] == "KILL" || e["signal"] == "TERM" {
                    killedBy = e
                }
            case "exit":
                guard e.childPid == pid, pid != nil else { continue }
                let (state, detail) = Self.ending(e["status"], killedBy: killedBy)
                append(state, e, detail)
                pid = nil
            default: break
            }
        }
    }

    private mutating func buildExtension(point: ExtensionPoint, events: [HistoryEvent]) {
        // Calls of this extension by delivery id; the process of each (nil: not started yet).
        var calls: [String: Int32?] = [:]
        var frozen: [String: Frozen] = [:]
        var killedBy: [String: HistoryEvent] = [:]
        var pidToDelivery: [Int32: String] = [:]
        func mine(_ e: HistoryEvent) -> Bool { e["callback"].map { ExtensionCall.point(ofCallback: $0) == point } ?? false }
        for e in events where e.process == HistoryEvent.harnessProcessName {
            switch e.event {
            case "callback_delivered", "callback_started":
                guard mine(e), let id = e["delivery"] else { continue }
                if let pid = e.childPid {
                    calls[id] = .some(pid)
                    pidToDelivery[pid] = id
                    frozen[id] = frozen[id] ?? Frozen()
                    frozen[id]!.byNemesis = false  // started: a call held at launch was released
                    append(.running, e, "running a \(e["callback"] ?? "?") call (pid \(pid))")
                } else if e["deferredUntil"] != nil {
                    calls[id] = .some(nil)
                    var f = Frozen()
                    f.byNemesis = true
                    frozen[id] = f
                    append(.stoppedByNemesis, e, "a \(e["callback"] ?? "?") call held at launch (SIGSTOP by the nemesis)")
                } else {
                    calls[id] = .some(nil)  // "-": killed at launch, see callback_failed
                }
            case "signal":
                let id = e.childPid.flatMap { pidToDelivery[$0] } ?? (e["target"] == role ? e["delivery"] : nil)
                guard let id, calls[id] != nil else { continue }
                var f = frozen[id] ?? Frozen()
                if f.apply(e) {
                    frozen[id] = f
                    if e.childPid != nil { append(f.state, e, f.detail) }
                } else if e["signal"] == "KILL" || e["signal"] == "TERM" {
                    killedBy[id] = e
                }
            case "callback_completed", "callback_failed":
                guard let id = e["delivery"], calls[id] != nil else { continue }
                calls[id] = nil
                if !calls.isEmpty { continue }  // another call of it still runs
                if e.event == "callback_completed", e["status"] == "exit 0" {
                    append(.notLaunched, e, "idle: its \(e["callback"] ?? "") call ended (on demand, not a daemon)")
                } else if e["status"] == "killed at launch" {
                    append(.killed, e, "its \(e["callback"] ?? "") call was killed at launch")
                } else {
                    let (state, detail) = Self.ending(e["status"], killedBy: killedBy[id])
                    append(state, e, "its \(e["callback"] ?? "") call \(detail)")
                }
            default: break
            }
        }
    }

    /// The segment in force at a history line (by CLOCK_MONOTONIC: ties in device time are common).
    public func state(atMono mono: Int64) -> Segment {
        segments.last { $0.mono <= mono } ?? segments[0]
    }

    /// The segment in force at device time `t` (an offline decision has no line).
    public func state(atT t: Double) -> Segment {
        segments.last { $0.t <= t } ?? segments[0]
    }

    /// True when the process was not running (dead, stopped, suspended, not launched) at some
    /// moment of `[from, to]`: a monitor that was down cannot have received the beats of then.
    /// A role the history never shows starting (no harness line names it) is not known to be down.
    public func wasDown(from: Double, to: Double) -> Bool {
        guard segments.count > 1 else { return false }
        if state(atT: from).state != .running { return true }
        return segments.contains { $0.t > from && $0.t <= to && $0.state != .running }
    }

    /// Every stretch the writer was dead, in order.
    public var deaths: [Death] {
        var out: [Death] = []
        for s in segments {
            if s.state.isDead {
                if out.last.map({ $0.endT == nil }) == true { continue }  // already dead
                out.append(Death(start: s, endT: nil, endMono: nil))
            } else if let last = out.indices.last, out[last].endT == nil {
                out[last].endT = s.t
                out[last].endMono = s.mono
            }
        }
        return out
    }
}
