import Exit
import Foundation
import HarnessKit
import History

/// A run's history, read once into the facts the rules judge (all from the history alone): the
/// core's `HistoryIndex`, and Exit's own facts on top of it.
struct ExitRun {
    let index: HistoryIndex
    var events: [HistoryEvent] { index.events }
    var finished: HistoryEvent? { index.runFinished }
    /// "Begin Breathing" taps that landed: the shield action's first write per call of
    /// `intervention_requested = true` or of `blocked_app`.
    let taps: [HistoryEvent]
    /// The host's writes of `unlock_timestamp`, with the value written.
    let unlocks: [(line: HistoryEvent, value: Double)]
    /// The host's daily resets that landed: after its `daily_reset` line (traced before it writes),
    /// the App Group write that completes the reset values of the flag and the two counters (one
    /// write hardened, one per key as-written) by the same process — a key already at its reset
    /// value is not written (a store writes only changes), so a reset with nothing to change lands
    /// at its line. A reset whose process died before that did not land: the counters keep what
    /// they had.
    let resets: [HistoryEvent]
    /// The host's foreground periods, from iOS's `host_state` lines.
    let foreground: [Period]
    var hostLives: [ProcessLifetime] { index.lifetimes(of: ExitRoles.host) }
    /// The apps the user picked (`select_apps`).
    var monitoredApps: [String] { index.selectedApps }

    struct Period {
        var start: HistoryEvent
        /// The line that ended it (nil: it lasted to the end of the history).
        var end: HistoryEvent?
    }

    init(_ history: [HistoryEvent]) {
        index = HistoryIndex(history)
        // A tap landed when its call wrote the flag (true) or a new `blocked_app`: one per call.
        var tapCalls: Set<Int32> = []
        let writes = index.writes(suite: ExitKeys.appGroup)
        taps = writes.filter { w in
            guard w.writer == ExitRoles.shieldAction, w[ExitKeys.interventionRequested] == "true" || w.keys.contains(ExitKeys.blockedApp) else { return false }
            return tapCalls.insert(w.pid).inserted
        }.map(\.line)
        unlocks = writes.compactMap { w in
            guard w.writer == ExitRoles.host, let v = w[ExitKeys.unlockTimestamp].flatMap(Double.init) else { return nil }
            return (w.line, v)
        }
        resets = Self.landedResets(index)
        var periods: [Period] = []
        for e in index.hostStates {
            if e["state"] == "foreground" {
                if periods.last.map({ $0.end == nil }) != true { periods.append(Period(start: e)) }
            } else if let last = periods.indices.last, periods[last].end == nil {
                periods[last].end = e
            }
        }
        foreground = periods
    }

    static func landedResets(_ index: HistoryIndex) -> [HistoryEvent] {
        // As the trace writes them (PROTOCOL.md §3: `true`, `0`).
        let values = Dictionary(uniqueKeysWithValues: ExitKeys.dailyResetValues.map { kv -> (String, String) in
            switch kv.value {
            case .bool(let b): return (kv.key, String(b))
            case .integer(let i): return (kv.key, String(i))
            default: return (kv.key, "\(kv.value)")
            }
        })
        var landed: [HistoryEvent] = []
        var open: [Int32: Set<String>] = [:]  // pid -> keys its reset has still to write
        // The three keys as every traced write left them: a store writes (and traces) only a
        // change, so a key that already holds its reset value is not written again.
        var current: [String: String] = [:]
        for e in index.events {
            let write = e.event == "defaults_set" && e["suite"] == ExitKeys.appGroup ? DefaultsWrite(e) : nil
            if let write { for k in values.keys { if let v = write[k] { current[k] = v } } }
            guard e.process == ExitRoles.host else { continue }
            if e.event == "daily_reset" {
                let keys = Set(values.keys.filter { current[$0] != values[$0] })
                if keys.isEmpty { landed.append(e) } else { open[e.pid] = keys }
            } else if var keys = open[e.pid], let write {
                keys = keys.filter { write[$0] != values[$0] }
                if keys.isEmpty { landed.append(e); open[e.pid] = nil } else { open[e.pid] = keys }
            }
        }
        return landed
    }

    /// The local day of `e`, in the zone the device was in then.
    func day(_ e: HistoryEvent) -> String { LocalDay.of(e.t, in: index.timeZone(atMono: e.mono)) }

    /// Device time at the end of the history.
    var endT: Double { index.endT }

    func endT(of p: Period) -> Double { p.end?.t ?? endT }

    /// The monotonic time of the first line at or after device time `t` (the end if none).
    func mono(atOrAfter t: Double) -> Int64 {
        events.first { $0.t >= t }?.mono ?? (events.last?.mono ?? 0)
    }

    /// The monotonic time of the last line at or before device time `t`: the state at `t`.
    func mono(atOrBefore t: Double) -> Int64 {
        events.last { $0.t <= t }?.mono ?? (events.first?.mono ?? 0)
    }

    /// The host's incarnation running at `mono`.
    func hostPid(atMono mono: Int64) -> Int32? { hostLives.alive(atMono: mono)?.pid }

    /// True when the nemesis held the host stopped at some moment in `[from, to]` (iOS's own
    /// suspensions, `by: ios`, end a foreground period instead).
    func hostStopped(from: Int64, to: Int64) -> Bool {
        for life in hostLives where life.spawn.mono <= to && (life.exit?.mono ?? .max) >= from {
            var stopped = false
            for s in life.signals where s["by"] == "nemesis" {
                if s.mono <= from {
                    if s["signal"] == "STOP" { stopped = true } else if s["signal"] == "CONT" { stopped = false }
                } else if s.mono <= to, s["signal"] == "STOP" {
                    return true
                }
            }
            if stopped { return true }
        }
        return false
    }
}
