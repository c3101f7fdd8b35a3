import Foundation

/// A run's plan as `harness coverage --fuzz` mutates it: the user's actions and the nemesis's
/// faults as schedule.json records them (one JSON object each), and the seed, which still decides
/// what is random inside the run (field faults with a probability, `p%` failpoints).
package struct FuzzPlan: Sendable, Equatable {
    package var actions: [String]
    package var faults: [String]
    package var seed: UInt64

    package init(actions: [String], faults: [String], seed: UInt64) {
        self.actions = actions
        self.faults = faults
        self.seed = seed
    }
}

/// AFL's havoc, with a scenario's plan as the input: one change to a plan that reached new code —
/// an action moved, repeated soon after itself, dropped, or made with another choice (which
/// button); a fault moved, lengthened or shortened,
/// dropped, or copied onto another moment; the second half of another plan spliced in; the seed
/// changed. Pure: the same generator gives the same mutation. What the pack accepts is checked
/// when the scenario is read (an entry it cannot take makes that input fail to load, and it is
/// skipped); the packs' checkers judge the run from its history as any other.
package enum PlanMutator {
    package static let operators = [
        "move-action", "repeat-action", "drop-action", "other-choice", "move-fault", "stretch-fault", "drop-fault", "copy-fault", "splice", "reseed",
    ]

    /// One mutation of `plan` (`other`: another plan of the corpus, for `splice`), within a run of
    /// `durationSeconds`; returns the plan and what was done, in one line. A plan whose faults on
    /// one process would overlap (a scenario may not have them: the process is already down), or
    /// one that came out the same (a splice past both plans' ends), is drawn again, up to 8 times;
    /// then the seed is changed instead.
    package static func mutate(
        _ plan: FuzzPlan, other: FuzzPlan?, durationSeconds: Double, generator g: inout SeededGenerator
    ) -> (plan: FuzzPlan, what: String) {
        for _ in 0..<8 {
            let m = once(plan, other: other, durationSeconds: durationSeconds, generator: &g)
            if !overlapping(m.plan.faults) && m.plan != plan { return m }
        }
        var p = plan
        p.seed = g.next() % 1_000_000
        return (p, "reseed \(p.seed)")
    }

    /// Whether two faults on one target overlap in time.
    package static func overlapping(_ faults: [String]) -> Bool {
        var byTarget: [String: [(Int, Int)]] = [:]
        for f in faults {
            let (at, hold) = faultTimes(f)
            byTarget[object(f)["target"] as? String ?? "", default: []].append((at, at + hold))
        }
        for spans in byTarget.values {
            let s = spans.sorted { $0.0 < $1.0 }
            for i in s.indices.dropFirst() where s[i].0 < s[i - 1].1 { return true }
        }
        return false
    }

    static func once(
        _ plan: FuzzPlan, other: FuzzPlan?, durationSeconds: Double, generator g: inout SeededGenerator
    ) -> (plan: FuzzPlan, what: String) {
        var p = plan
        let choices = choices(p, other: other)
        // Operators that cannot apply to this plan are not drawn.
        let usable = operators.filter { op in
            switch op {
            case "move-action", "repeat-action", "drop-action": return !p.actions.isEmpty
            case "move-fault", "stretch-fault", "drop-fault", "copy-fault": return !p.faults.isEmpty
            case "other-choice": return !choices.isEmpty
            case "splice": return other != nil && other != plan
            default: return true
            }
        }
        let op = usable[Int.random(in: 0..<usable.count, using: &g)]
        let end = max(1, durationSeconds)
        switch op {
        case "move-action":
            let i = Int.random(in: 0..<p.actions.count, using: &g)
            let t = actionTime(p.actions[i])
            let to = clamp(t + Double.random(in: -600...600, using: &g), 0, end - 1)
            p.actions[i] = with(p.actions[i], "atDeviceOffsetSeconds", rounded(to))
            p.actions = sortedActions(p.actions)
            return (p, "move-action \(i) \(seconds(t)) → \(seconds(rounded(to)))")
        case "repeat-action":
            // The same step again soon after: a double tap, a press while the last one is pending.
            let i = Int.random(in: 0..<p.actions.count, using: &g)
            let t = actionTime(p.actions[i])
            let to = clamp(t + Double.random(in: 1...90, using: &g), 0, end - 1)
            p.actions.append(with(p.actions[i], "atDeviceOffsetSeconds", rounded(to)))
            p.actions = sortedActions(p.actions)
            return (p, "repeat-action \(i) at \(seconds(rounded(to)))")
        case "drop-action":
            let i = Int.random(in: 0..<p.actions.count, using: &g)
            p.actions.remove(at: i)
            return (p, "drop-action \(i)")
        case "other-choice":
            let c = choices[Int.random(in: 0..<choices.count, using: &g)]
            p.actions[c.index] = withChoice(p.actions[c.index], c.key, c.value)
            return (p, "other-choice \(c.index) \(c.key) → \(c.value)")
        case "move-fault":
            let i = Int.random(in: 0..<p.faults.count, using: &g)
            let (at, hold) = faultTimes(p.faults[i])
            let to = Int(clamp(Double(at) + Double.random(in: -600_000...600_000, using: &g), 0, (end - 1) * 1000 - Double(hold)))
            p.faults[i] = with(p.faults[i], faultAtKey(p.faults[i]), Double(max(0, to)))
            p.faults = sortedFaults(p.faults)
            return (p, "move-fault \(i) \(seconds(Double(at) / 1000)) → \(seconds(Double(max(0, to)) / 1000))")
        case "stretch-fault":
            let i = Int.random(in: 0..<p.faults.count, using: &g)
            let (at, hold) = faultTimes(p.faults[i])
            let factor = [0.1, 0.5, 2, 5][Int.random(in: 0..<4, using: &g)]
            let longest = max(1, (end * 1000) - Double(at) - 1)
            let to = Int(clamp(Double(max(hold, 1)) * factor, 1, longest))
            p.faults[i] = with(p.faults[i], faultHoldKey(p.faults[i]), Double(to))
            return (p, "stretch-fault \(i) \(hold) → \(to) ms")
        case "drop-fault":
            let i = Int.random(in: 0..<p.faults.count, using: &g)
            p.faults.remove(at: i)
            return (p, "drop-fault \(i)")
        case "copy-fault":
            let i = Int.random(in: 0..<p.faults.count, using: &g)
            let (_, hold) = faultTimes(p.faults[i])
            let latest = max(0, end * 1000 - Double(hold) - 1)
            let to = Int(Double.random(in: 0...latest, using: &g))
            p.faults.append(with(p.faults[i], faultAtKey(p.faults[i]), Double(to)))
            p.faults = sortedFaults(p.faults)
            return (p, "copy-fault \(i) to \(seconds(Double(to) / 1000))")
        case "splice":
            // This plan's first half, the other's second half (by device time).
            let o = other!
            let cut = Double.random(in: 0...end, using: &g)
            p.actions = sortedActions(p.actions.filter { actionTime($0) < cut } + o.actions.filter { actionTime($0) >= cut })
            p.faults = sortedFaults(p.faults.filter { Double(faultTimes($0).at) < cut * 1000 } + o.faults.filter { Double(faultTimes($0).at) >= cut * 1000 })
            return (p, "splice at \(seconds(cut))")
        default:
            p.seed = g.next() % 1_000_000
            return (p, "reseed \(p.seed)")
        }
    }

    /// Which button: every (action, field, value) where a text field of the action — its kind, a
    /// button, an app, a notification's action — could take a value the same field has in another
    /// action of this plan or of `other` (the generator's own words: a choice the pack knows), in
    /// a stable order. A value the action cannot take makes the pack refuse the plan (counted).
    static func choices(_ plan: FuzzPlan, other: FuzzPlan?) -> [(index: Int, key: String, value: String)] {
        var vocabulary: [String: Set<String>] = [:]
        for line in plan.actions + (other?.actions ?? []) {
            for (k, v) in (object(line)["action"] as? [String: Any]) ?? [:] { if let v = v as? String { vocabulary[k, default: []].insert(v) } }
        }
        var out: [(Int, String, String)] = []
        for (i, line) in plan.actions.enumerated() {
            let action = (object(line)["action"] as? [String: Any]) ?? [:]
            for key in action.keys.sorted() {
                guard let current = action[key] as? String else { continue }
                for value in (vocabulary[key] ?? []).sorted() where value != current { out.append((i, key, value)) }
            }
        }
        return out
    }

    static func withChoice(_ line: String, _ key: String, _ value: String) -> String {
        var o = object(line)
        var action = (o["action"] as? [String: Any]) ?? [:]
        action[key] = value
        o["action"] = action
        guard let d = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes]) else { return line }
        return String(decoding: d, as: UTF8.self)
    }

    static func object(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    static func with(_ line: String, _ key: String, _ value: Double) -> String {
        var o = object(line)
        o[key] = value == value.rounded() && abs(value) < 1e15 ? NSNumber(value: Int64(value)) : NSNumber(value: value)
        guard let d = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes]) else { return line }
        return String(decoding: d, as: UTF8.self)
    }

    package static func actionTime(_ line: String) -> Double { (object(line)["atDeviceOffsetSeconds"] as? NSNumber)?.doubleValue ?? 0 }

    static func faultTimes(_ line: String) -> (at: Int, hold: Int) {
        let o = object(line)
        let at = ((o["atDeviceOffsetMillis"] ?? o["atWallOffsetMillis"]) as? NSNumber)?.intValue ?? 0
        let hold = ((o["holdDeviceMillis"] ?? o["holdMillis"]) as? NSNumber)?.intValue ?? 0
        return (at, hold)
    }

    static func faultAtKey(_ line: String) -> String { object(line)["atWallOffsetMillis"] != nil ? "atWallOffsetMillis" : "atDeviceOffsetMillis" }

    static func faultHoldKey(_ line: String) -> String { object(line)["holdDeviceMillis"] != nil ? "holdDeviceMillis" : "holdMillis" }

    static func sortedActions(_ a: [String]) -> [String] {
        a.enumerated().sorted { (actionTime($0.element), $0.offset) < (actionTime($1.element), $1.offset) }.map(\.element)
    }

    static func sortedFaults(_ f: [String]) -> [String] {
        f.enumerated().sorted { (faultTimes($0.element).at, $0.offset) < (faultTimes($1.element).at, $1.offset) }.map(\.element)
    }

    static func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double { min(max(v, lo), max(lo, hi)) }
    /// Device seconds to the millisecond (a plan's times are written so).
    static func rounded(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
    static func seconds(_ v: Double) -> String { String(format: "%.0fs", v) }
}
