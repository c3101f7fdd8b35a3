import Enforcement
import Foundation
import HarnessKit
import History

/// A run's history, read once for every rule: the rules engine's state over time (from the host's
/// App Group writes as they landed, `defaults_set`), the OS's shield set (`shields`), and the
/// formula evaluated from both.
struct EnforcementRun {
    let index: HistoryIndex
    var events: [HistoryEvent] { index.events }
    var timeZone: TimeZone { index.timeZones.first?.zone ?? TimeZone(identifier: "UTC")! }
    /// (when the write landed, the rules from then on), in history order.
    let states: [(event: HistoryEvent, rules: Rules)]
    var shields: ShieldTimeline { index.shields }
    let start: Double
    var end: Double { index.endT }
    var finished: HistoryEvent? { index.runFinished }
    /// Every instant the formula may change at: rule writes, grant ends, override ends, mode boundaries.
    let changeInstants: [Double]
    /// Every extension call the OS made, with how it ended.
    var deliveries: [CallbackDelivery] { index.deliveries }

    /// How long the rules must have been still before the shields are judged (device seconds).
    static let settleSeconds = 60.0

    init(_ history: [HistoryEvent]) {
        index = HistoryIndex(history)
        start = index.runStarted?.t ?? index.events.first?.t ?? 0
        let end = index.endT, timeZone = index.timeZones.first?.zone ?? TimeZone(identifier: "UTC")!
        var rules = Rules()
        var states: [(HistoryEvent, Rules)] = []
        // The host traces each write of the rules right after it landed, whole (`defaults_set`
        // cuts values at 80 characters).
        for e in index.events where e.process == EnforcementRoles.host {
            func decode<T: Decodable>(_ field: String, _ as: T.Type) -> T? {
                guard let v = e[field], let d = v.data(using: .utf8) else { return nil }
                return try? JSONDecoder().decode(T.self, from: d)
            }
            switch e.event {
            case "selection_saved": rules.selection = (e["apps"] ?? "").split(separator: ",").map(String.init)
            case "mode_enabled": rules.modes = decode("modes", [Mode].self) ?? rules.modes
            case "grant_created": rules.grants = decode("grants", [Grant].self) ?? rules.grants
            case "override_set": rules.overrides = decode("overrides", [Override].self) ?? rules.overrides
            default: continue
            }
            states.append((e, rules))
        }
        self.states = states
        var instants = Set(states.map { $0.0.t })
        var modes: [String: Mode] = [:]
        for (_, r) in states {
            for g in r.grants { instants.insert(g.endsTs) }
            for o in r.overrides { instants.insert(o.endsTs) }
            for m in r.modes { modes["\(m.id) \(m.startMinute) \(m.endMinute)"] = m }
        }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        let firstDay = cal.startOfDay(for: Date(timeIntervalSince1970: start - 86_400))
        var day = firstDay
        while day.timeIntervalSince1970 <= end + 86_400 {
            for m in modes.values {
                for minute in [m.startMinute, m.endMinute] {
                    if let d = cal.date(byAdding: .minute, value: minute, to: day) { instants.insert(d.timeIntervalSince1970) }
                }
            }
            guard let next = cal.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        let (from, to) = (start, end)
        changeInstants = instants.filter { $0 >= from && $0 <= to + 1 }.sorted()
    }

    /// The rules in force at device time `t` (writes landed at or before it).
    func rules(atT t: Double) -> Rules { states.last { $0.event.t <= t }?.rules ?? Rules() }

    /// The rules in force just before history line `mono`.
    func rules(beforeMono mono: Int64) -> Rules { states.last { $0.event.mono < mono }?.rules ?? Rules() }

    /// Should `app` be shielded at device time `t` (rules as of then)?
    func expected(_ app: String, atT t: Double) -> Bool { rules(atT: t).shieldedApps(at: t, timeZone: timeZone).contains(app) }

    /// The last instant at or before `t` where `app`'s expected state changed (nil: none since the start).
    func lastChange(of app: String, atOrBefore t: Double) -> Double? {
        var last: Double?
        var state = expected(app, atT: start)
        for c in changeInstants where c <= t {
            let now = expected(app, atT: c)
            if now != state { last = c }
            state = now
        }
        return last
    }

    /// True when `app`'s expected state has not changed in `[t - settle, t]`.
    func isSettled(_ app: String, at t: Double) -> Bool {
        guard let c = lastChange(of: app, atOrBefore: t) else { return true }
        return t - c >= Self.settleSeconds
    }

    /// The OS's shielded apps just before history line `mono`.
    func osShielded(beforeMono mono: Int64) -> Set<String> {
        Set((shields.change(before: mono)?["apps"] ?? "").split(separator: ",").map(String.init))
    }

    /// Every app any state selected or any mode names.
    var apps: [String] {
        var s = Set<String>()
        for (_, r) in states { s.formUnion(r.selection); for m in r.modes { s.formUnion(m.apps) } }
        return s.sorted()
    }
}
