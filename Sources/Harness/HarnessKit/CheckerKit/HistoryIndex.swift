import Foundation
import History

/// A run's history read once, for every rule of a pack: the lines in order, and the facts every
/// pack needs decoded from the harness's own lines (HISTORY.md §8) — the run's bounds, each role's
/// processes, iOS's extension calls, the user's actions, the host's states, the shields, the
/// device's time zones and every App Group write that landed. A pack's own index (its sessions,
/// its signals) is built on top of it and holds only what is the pack's.
public struct HistoryIndex: Sendable {
    /// Every line, in `mono` order (stable: lines with equal `mono` keep the order they came in,
    /// which is the merge's — process, pid, file order — for a merged history; lines a pack added
    /// after the run, such as FocusPledge's `ledger`, find their place).
    public let events: [HistoryEvent]
    public let runStarted: HistoryEvent?
    /// The last `run_finished` line.
    public let runFinished: HistoryEvent?
    public let quiesce: HistoryEvent?
    /// Every `user_action` line (the user's steps, as the core recorded them before acting).
    public let userActions: [HistoryEvent]
    /// Every extension call iOS made, with how it ended.
    public let deliveries: [CallbackDelivery]
    /// Every App Group write a process traced (`defaults_set`, PROTOCOL.md §3), in order.
    public let defaultsWrites: [DefaultsWrite]
    /// iOS's `host_state` lines, in order.
    public let hostStates: [HistoryEvent]
    /// The shields iOS drew (`shields` lines).
    public let shields: ShieldTimeline
    /// The device's time zone at the start (`run_started` `timeZone`) and each move (`time_zone`).
    public let timeZones: [(mono: Int64, zone: TimeZone)]
    /// iOS's FamilyControls (Screen Time) `authorization` lines, in order: answers and revocations.
    public let screenTimeAuthorizations: [HistoryEvent]
    private let lives: [String: [ProcessLifetime]]

    public init(_ history: [HistoryEvent]) {
        let events = history.enumerated()
            .sorted { ($0.element.mono, $0.offset) < ($1.element.mono, $1.offset) }
            .map(\.element)
        self.events = events
        var started: HistoryEvent?, finished: HistoryEvent?, quiesce: HistoryEvent?
        var users: [HistoryEvent] = [], states: [HistoryEvent] = [], writes: [DefaultsWrite] = []
        var zones: [(mono: Int64, zone: TimeZone)] = []
        var screenTime: [HistoryEvent] = []
        var lives: [String: [ProcessLifetime]] = [:]
        var tapsLost: [Int] = []
        for (i, e) in events.enumerated() {
            guard e.process == HistoryEvent.harnessProcessName else {
                if e.event == "defaults_set" { writes.append(DefaultsWrite(e)) }
                continue
            }
            switch e.harnessLine {
            case .runStarted?:
                if started == nil {
                    started = e
                    zones.append((e.mono, e["timeZone"].flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!))
                }
            case .runFinished?: finished = e
            case .quiesce?: if quiesce == nil { quiesce = e }
            case .userAction?: users.append(e)
            case .hostState?: states.append(e)
            case .authorization?: if e["kind"] == "familyControls" { screenTime.append(e) }
            case .userTapLost?: tapsLost.append(i)
            case .timeZone?: if let z = e["timeZone"].flatMap(TimeZone.init(identifier:)) { zones.append((e.mono, z)) }
            case .spawn?, .exit?, .signal?:
                guard let role = e["target"], let pid = e.childPid else { break }
                var mine = lives[role, default: []]
                let open = mine.lastIndex { $0.pid == pid && $0.exit == nil }
                switch e.harnessLine {
                case .spawn?: mine.append(ProcessLifetime(pid: pid, spawn: e))
                case .exit?: if let i = open { mine[i].exit = e }
                default: if let i = open { mine[i].signals.append(e) }
                }
                lives[role] = mine
            default: break
            }
        }
        (runStarted, runFinished, self.quiesce) = (started, finished, quiesce)
        (userActions, hostStates, defaultsWrites, timeZones, self.lives) = (users, states, writes, zones, lives)
        screenTimeAuthorizations = screenTime
        deliveries = CallbackDelivery.deliveries(in: events)
        shields = ShieldTimeline(events)
        lostTaps = Self.lostTaps(at: tapsLost, in: events)
    }

    /// The user's revocation of Screen Time access in force just before `mono` (the latest
    /// FamilyControls line before it is a revocation: iOS lifted every shield then, EMULATED-IOS.md
    /// §10.3); nil when access was not revoked or was given back since.
    public func screenTimeRevocation(before mono: Int64) -> HistoryEvent? {
        guard let last = screenTimeAuthorizations.last(where: { $0.mono < mono }), last["status"] == "denied", last["why"] == "revoked" else { return nil }
        return last
    }

    /// Device time at the end of the history: `run_finished`'s, else the last line's.
    public var endT: Double { runFinished?.t ?? events.last?.t ?? 0 }

    /// The end of the history by `mono`: `run_finished`, else the last line.
    public var endMono: Int64 { runFinished?.mono ?? events.last?.mono ?? 0 }

    /// Why the history cannot be judged as a whole run, or nil if it can.
    public var undecidableReason: String? {
        if runStarted == nil { return "no run_started: the history is not a whole run" }
        if runFinished == nil { return "no run_finished: the run was cut short, settlements may be missing" }
        return nil
    }

    /// Every process the harness started as `role`, in spawn order, with its signals and exit.
    public func lifetimes(of role: String) -> [ProcessLifetime] { lives[role] ?? [] }

    /// When a process of `role` could act: alive and not stopped (iOS suspends an app in the
    /// background with SIGSTOP; the nemesis stops processes too).
    public func running(_ role: String) -> HostAvailability { HostAvailability.running(lifetimes(of: role), endT: endT) }

    /// When iOS had the host in the foreground (`host_state`), whether or not its process ran.
    public var foreground: HostAvailability { HostAvailability.foreground(hostStates, endT: endT) }

    /// The host's state (`foreground`, `background`, `suspended`, `notRunning`) at `mono`, after
    /// every `host_state` line at or before it; `notRunning` before any.
    public func hostState(atMono mono: Int64) -> String { hostStates.last { $0.mono <= mono }?["state"] ?? "notRunning" }

    /// The user's `action` steps, in order.
    public func userActions(_ action: String) -> [HistoryEvent] { userActions.filter { $0["action"] == action } }

    /// The user's taps the app died while handling and that were not made again (`user_tap_lost`:
    /// the user did not tap again, or could not), in order, each with what it may have caused.
    public let lostTaps: [LostTap]

    /// Each lost tap (`lines`: its `user_tap_lost` positions in `events`) with the app's
    /// `user_input` of it, the exit that lost it and what came of it meanwhile.
    static func lostTaps(at lines: [Int], in events: [HistoryEvent]) -> [LostTap] {
        lines.compactMap { i -> LostTap? in
            let lost = events[i]
            guard let role = lost["target"] else { return nil }
            let before = events[..<i]
            let input = before.last { $0.process == role && $0.event == "user_input" && $0["seq"] == lost["seq"] }
            let exit = before.last { $0.isHarnessLine("exit") && $0["target"] == role }
            var effects: [HistoryEvent] = []
            if let input {
                let end = exit?.mono ?? lost.mono
                effects = events.filter { e in
                    guard e.mono > input.mono && e.mono < end else { return false }
                    if e.process == HistoryEvent.harnessProcessName { return e.harnessLine?.source == .ios }
                    return e.process != role || e.event == "defaults_set"
                }
            }
            return LostTap(line: lost, input: input, exit: exit, effects: effects)
        }
    }

    /// The apps the user picked in the first `select_apps`, in the order picked.
    public var selectedApps: [String] {
        (userActions.first { $0["action"] == "select_apps" }?["apps"] ?? "").split(separator: ",").map(String.init)
    }

    /// The device's time zone at `mono`.
    public func timeZone(atMono mono: Int64) -> TimeZone {
        timeZones.last { $0.mono <= mono }?.zone ?? timeZones.first?.zone ?? TimeZone(identifier: "UTC")!
    }

    /// App Group writes to `suite` (any suite when nil) by a process of `role` (any when nil).
    public func writes(suite: String? = nil, by role: String? = nil) -> [DefaultsWrite] {
        defaultsWrites.filter { w in suite.map { w.suite == $0 } ?? true && role.map { w.writer == $0 } ?? true }
    }
}

/// One App Group write that landed, as its process traced it (`defaults_set`, PROTOCOL.md §3):
/// the suite, the keys it changed and each value as one short line (cut at 80 characters;
/// `<removed>` for a removal).
public struct DefaultsWrite: Sendable {
    public let line: HistoryEvent
    public var suite: String { line["suite"] ?? "" }
    /// The keys the write changed, sorted.
    public var keys: [String] { (line["keys"] ?? "").split(separator: ",").map(String.init) }
    /// The role of the process that wrote it.
    public var writer: String { line.process }
    public var pid: Int32 { line.pid }
    public var t: Double { line.t }
    public var mono: Int64 { line.mono }

    /// What the trace writes for a removed key.
    public static let removed = "<removed>"

    public init(_ line: HistoryEvent) { self.line = line }

    /// The value written to `key` as the trace has it, nil when the write did not touch it.
    public subscript(key: String) -> String? { line["v." + key] }

    /// Whether the write changed `key` (a removal included).
    public func wrote(_ key: String) -> Bool { self[key] != nil || keys.contains(key) }
}

/// A tap the app died while handling, not made again (`user_tap_lost`, EMULATED-IOS.md §7.7).
public struct LostTap: Sendable {
    /// The harness's `user_tap_lost` line: `target`, the tap's `action` and fields, `seq`, `how`, `why`.
    public let line: HistoryEvent
    /// The app's `user_input` of the tap (nil: taken out of the inbox, never traced).
    public let input: HistoryEvent?
    /// The app's exit that lost it.
    public let exit: HistoryEvent?
    /// What may have come of the tap before the app died, between the app's `user_input` of it and
    /// its exit: the app's App Group writes, every line of another process of the system (a
    /// server's request, an extension acting meanwhile — counted, to be safe) and what the
    /// emulated iOS recorded (a registration, a shield, an authorization, a notification). The
    /// app's other trace lines are its account of what it was about to do, not an effect.
    public let effects: [HistoryEvent]

    public var role: String { line["target"] ?? "" }
    /// The tap's action as the app reads it (`AppMessage.action`, e.g. `start_session`).
    public var action: String { line["action"] ?? "" }
    public subscript(key: String) -> String? { line[key] }

    /// Nothing of the tap left the app before it died: no process of the system could act on it
    /// later, whatever its code. An app traces `user_input` before it acts on a tap, so one never
    /// traced counts as before any effect too. A rule excuses an outcome that only such a tap
    /// could have made; once something came of it, the relaunched app is the one to finish it.
    public var beforeAnyEffect: Bool { effects.isEmpty }

    /// The app's App Group writes among `effects`: what a relaunched app (or an extension) could
    /// read of the tap. None: whatever the tap carried (a pick of apps) died with the process.
    public var writes: [DefaultsWrite] { effects.filter { $0.process == role && $0.event == "defaults_set" }.map(DefaultsWrite.init) }
}

/// When a process of a role could act (or the host was in the foreground), in device time:
/// sorted, disjoint intervals `[from, to)`. A promise "at once" is judged after the app has had
/// its grace of such time: iOS runs an app only when it is up, and a dead app does nothing.
public struct HostAvailability: Sendable, Equatable {
    public private(set) var spans: [(from: Double, to: Double)]

    /// Sorts and merges `raw` (empty and overlapping intervals allowed).
    public init(_ raw: [(from: Double, to: Double)]) {
        var merged: [(from: Double, to: Double)] = []
        for (f, t) in raw.filter({ $0.to > $0.from }).sorted(by: { $0.from < $1.from }) {
            if let last = merged.last, f <= last.to {
                merged[merged.count - 1].to = max(last.to, t)
            } else {
                merged.append((f, t))
            }
        }
        spans = merged
    }

    public static func == (a: HostAvailability, b: HostAvailability) -> Bool {
        a.spans.elementsEqual(b.spans) { $0.from == $1.from && $0.to == $1.to }
    }

    /// When one of `lives` was alive and not SIGSTOPped, up to `endT` for one still running.
    public static func running(_ lives: [ProcessLifetime], endT: Double) -> HostAvailability {
        var out: [(from: Double, to: Double)] = []
        for life in lives {
            var from: Double? = life.spawn.t
            for s in life.signals.sorted(by: { $0.mono < $1.mono }) {
                switch s["signal"] {
                case "STOP": if let f = from { out.append((f, s.t)); from = nil }
                case "CONT": if from == nil { from = s.t }
                default: break
                }
            }
            if let f = from { out.append((f, life.exit?.t ?? endT)) }
        }
        return HostAvailability(out)
    }

    /// The `foreground` periods of `host_state` lines, up to `endT` for one still going.
    public static func foreground(_ hostStates: [HistoryEvent], endT: Double) -> HostAvailability {
        var out: [(from: Double, to: Double)] = []
        var since: Double?
        for e in hostStates {
            if e["state"] == "foreground" {
                if since == nil { since = e.t }
            } else if let s = since {
                out.append((s, e.t))
                since = nil
            }
        }
        if let s = since { out.append((s, endT)) }
        return HostAvailability(out)
    }

    /// The time both were available (e.g. the host while its server was up).
    public func intersection(_ other: HostAvailability) -> HostAvailability {
        var out: [(from: Double, to: Double)] = []
        for a in spans {
            for b in other.spans where b.to > a.from && b.from < a.to { out.append((max(a.from, b.from), min(a.to, b.to))) }
        }
        return HostAvailability(out)
    }

    /// The device time by which `seconds` of availability have passed after `t`; nil if they
    /// never do within these spans.
    public func deadline(after t: Double, seconds: Double) -> Double? {
        var left = seconds
        for s in spans where s.to > t {
            let from = max(s.from, t)
            if s.to - from >= left { return from + left }
            left -= s.to - from
        }
        return nil
    }

    /// True when `[t, t + seconds]` lies inside one span.
    public func covers(_ t: Double, seconds: Double = 0) -> Bool { spans.contains { $0.from <= t && t + seconds <= $0.to } }
}
