import AppGroup
import Foundation
import History

/// How often each `os.faults` rule of a scenario acted in a run, from the history: a rule that
/// could fire but never did is said on the summary line ("armed, never fired"), so a user never
/// believes a fault was tested when it was not. Rules that cannot fire at all are
/// refused when the scenario is read.
public struct FaultRuleOutcome: Codable, Equatable, Sendable {
    /// `os.faults[i]`, as the history's `rule` field names it.
    public var rule: String
    public var kind: String
    /// Times it acted (calls dropped, held, duplicated, killed; boundaries reordered; defaults
    /// reads served stale, writes torn).
    public var fired: Int

    public init(rule: String, kind: String, fired: Int) {
        self.rule = rule
        self.kind = kind
        self.fired = fired
    }
}

public enum FaultRuleTally {
    /// A process's `defaults_fault` line's `kind` → the rule kind that arms it.
    static let defaultsFaultRule = ["stale_read": "stale_defaults", "torn_write": "torn_write"]

    /// Call and boundary faults carry their rule in the OS's lines (`rule`). App Group faults act
    /// inside the processes (`defaults_fault` trace lines with `kind`), which do not know rule
    /// numbers: such a line counts for every rule of its kind that selects the process's role and
    /// whose window holds its time.
    public static func tally(_ rules: [FieldFault], osRules: OSRules = OSRules(), deviceRoles: [String], events: [HistoryEvent]) -> [FaultRuleOutcome] {
        var fired = Array(repeating: 0, count: rules.count)
        let byName = Dictionary(uniqueKeysWithValues: rules.indices.map { (FieldFault.ruleName($0), $0) })
        for e in events {
            if e.process == "harness", let r = e["rule"], let i = byName[r] {
                fired[i] += 1
            } else if e.event == "defaults_fault", let kind = e["kind"].flatMap({ defaultsFaultRule[$0] }) {
                for (i, rule) in rules.enumerated() where rule.kind.isDefaultsFault && rule.name == kind {
                    let roles = rule.roles.isEmpty ? Set(deviceRoles) : rule.roles
                    guard roles.contains(e.process) else { continue }
                    if let w = rule.window, !w.contains(e.t) { continue }
                    fired[i] += 1
                }
            }
        }
        return rules.indices.map { FaultRuleOutcome(rule: FieldFault.ruleName($0), kind: rules[$0].name, fired: fired[$0]) }
            + tally(osRules, events: events)
    }

    /// The kind of a failpoint's outcome; its `rule` is `failpoint <spec>`.
    public static let failpointKind = "failpoint"

    /// Each failpoint armed (the scenario's and `--failpoint`'s) with the times it acted (its
    /// `failpoint` trace lines, labelled `<label>#<pass>`): one whose label never passed is said
    /// like a rule that never fired, never a silent PASS.
    public static func tally(_ failpoints: [Failpoint], fired labels: [String]) -> [FaultRuleOutcome] {
        let passes = labels.map { l -> (label: Substring, pass: Int?) in
            guard let hash = l.lastIndex(of: "#") else { return (l[...], nil) }
            return (l[..<hash], Int(l[l.index(after: hash)...]))
        }
        return failpoints.map { f in
            let n = passes.filter { $0.label == f.label && (f.occurrence == nil || $0.pass == f.occurrence) }.count
            return FaultRuleOutcome(rule: "failpoint \(f)", kind: failpointKind, fired: n)
        }
    }

    /// Each `os.rules` alternative the scenario picks (the defaults are not faults), with the times
    /// it acted: its `interval_missed` lines and the calls it made, each call once by its delivery
    /// (a call that waited has a `callback_queued` line before its `callback_delivered` one).
    public static func tally(_ rules: OSRules, events: [HistoryEvent]) -> [FaultRuleOutcome] {
        var out: [FaultRuleOutcome] = []
        for change in rules.changed {
            let name = OSRules.ruleName(String(change.prefix { $0 != "=" }))
            var missed = 0
            var calls: Set<String> = []
            for e in events where e.process == "harness" && e["rule"] == name {
                if e.event == "interval_missed" { missed += 1 } else if let d = e["delivery"] { calls.insert(d) }
            }
            out.append(FaultRuleOutcome(rule: name, kind: change, fired: missed + calls.count))
        }
        return out
    }
}
