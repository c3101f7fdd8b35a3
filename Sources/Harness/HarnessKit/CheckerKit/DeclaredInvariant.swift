import Foundation
import History

/// A promise declared in the scenario file (`invariants:`, docs/SCENARIOS.md) and judged by the
/// core from the history alone — a first check of a team's own app without a line of Swift. The
/// scenario's declarations travel in the `run_started` line (`invariants`, JSON), so `harness
/// check` judges a recorded history as the run did.
///
///     invariants:
///       - name: every-return-won
///         follows:
///           when: { process: returner, write: returned }          # its App Group write of `returned`
///           then: { process: host, write: won, sameValue: true }  # answered by the host's `won`, same value
///           chance: host            # judged once the host launched or came to the foreground after it
///           withinSeconds: 600      # optional: device seconds
///       - name: no-fatal-log
///         never: { process: host, log: "fatal" }
///       - name: one-reminder-per-signal
///         once: { process: host, write: lastReminder }        # no value written twice
public struct DeclaredInvariant: Codable, Sendable, Equatable {
    /// The invariant's name in reports (`[a-z0-9-]`).
    public var name: String
    public var follows: Follows?
    public var never: Match?
    /// Lines matching it carry each value at most once (a write's value, or an event's `field`):
    /// at most one notification per signal, one settlement per session.
    public var once: Match?

    public init(name: String, follows: Follows? = nil, never: Match? = nil, once: Match? = nil) {
        self.name = name
        self.follows = follows
        self.never = never
        self.once = once
    }

    /// Every line matching `when` is followed by one matching `then`.
    public struct Follows: Codable, Sendable, Equatable {
        public var when: Match
        public var then: Match
        /// `then` carries the same value as `when` (the written value, or the `field`).
        public var sameValue: Bool
        /// A role: a `when` after which it never launched or came to the foreground is not judged
        /// (the app had no chance to act; the report says how many).
        public var chance: String?
        /// `then` must come within this many device seconds.
        public var withinSeconds: Double?

        public init(when: Match, then: Match, sameValue: Bool = false, chance: String? = nil, withinSeconds: Double? = nil) {
            self.when = when
            self.then = then
            self.sameValue = sameValue
            self.chance = chance
            self.withinSeconds = withinSeconds
        }
    }

    /// History lines of one process: exactly one of an App Group write of a key (`defaults_set`
    /// with it among `keys`; its value is `v.<key>`), a trace event (its value is `field`, if named),
    /// or a log line whose message contains a text (`os_log`).
    public struct Match: Codable, Sendable, Equatable, CustomStringConvertible {
        public var process: String
        public var write: String?
        public var event: String?
        public var field: String?
        public var log: String?

        public init(process: String, write: String? = nil, event: String? = nil, field: String? = nil, log: String? = nil) {
            self.process = process
            self.write = write
            self.event = event
            self.field = field
            self.log = log
        }

        func matches(_ e: HistoryEvent) -> Bool {
            guard e.process == process else { return false }
            if let write {
                return e.event == "defaults_set" && (e["keys"] ?? "").split(separator: ",").contains(Substring(write))
            }
            if let event { return e.event == event }
            if let log { return e.event == "os_log" && (e["message"] ?? "").contains(log) }
            return false
        }

        /// What the line carries: the written value, or the named field.
        func value(_ e: HistoryEvent) -> String? {
            if let write { return e["v." + write] }
            if let field { return e[field] }
            return nil
        }

        public var description: String {
            if let write { return "\(process)'s write of \(write)" }
            if let event { return "\(process)'s \(event)" + (field.map { " (\($0))" } ?? "") }
            return "\(process)'s log \"\(log ?? "")\""
        }
    }

    /// The `run_started` field that carries a run's declarations.
    public static let runStartedField = "invariants"

    public static func encode(_ list: [DeclaredInvariant]) -> String {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        return (try? e.encode(list)).flatMap { String(data: $0, encoding: .utf8) } ?? "[]"
    }

    /// The declarations a history's `run_started` line carries (none when it has none).
    public static func declared(in events: [HistoryEvent]) -> [DeclaredInvariant] {
        guard let text = events.first(where: { $0.isHarnessLine("run_started") })?[runStartedField] else { return [] }
        return (try? JSONDecoder().decode([DeclaredInvariant].self, from: Data(text.utf8))) ?? []
    }

    /// Judges `events` (sorted) against this declaration.
    public func judge(_ events: [HistoryEvent]) -> RuleOutcome {
        if let never {
            var outcome = RuleOutcome(name, subjectKind: "line")
            outcome.checkedCount = 1
            for (i, e) in events.enumerated() where never.matches(e) {
                outcome.fail(String(i + 1), "\(never) happened (the scenario declares it never does)", [e])
                if outcome.violations.count >= Self.maxViolations { break }
            }
            return outcome
        }
        if let once {
            var outcome = RuleOutcome(name, subjectKind: "value")
            var seen: [String: (first: Int, count: Int)] = [:]
            var order: [String] = []
            for (i, e) in events.enumerated() where once.matches(e) {
                guard let v = once.value(e) else { continue }
                if seen[v] == nil { order.append(v) }
                seen[v, default: (i, 0)].count += 1
            }
            outcome.checkedCount = order.count
            for v in order where seen[v]!.count > 1 {
                let lines = events.enumerated().filter { once.matches($0.element) && once.value($0.element) == v }.map(\.element)
                outcome.fail(v, "\(once) = \(v) happened \(seen[v]!.count) times (the scenario declares each value at most once)", Array(lines.prefix(CheckReport.maxRelevantEvents)))
                if outcome.violations.count >= Self.maxViolations { break }
            }
            return outcome
        }
        guard let f = follows else { return RuleOutcome(name) }
        var outcome = RuleOutcome(name, subjectKind: f.sameValue ? "value" : "occurrence")
        for (i, when) in events.enumerated() where f.when.matches(when) {
            let value = f.when.value(when)
            let deadline = f.withinSeconds.map { when.t + $0 }
            let answer = events[(i + 1)...].first { e in
                f.then.matches(e) && (!f.sameValue || f.then.value(e) == value) && (deadline.map { e.t <= $0 } ?? true)
            }
            if answer != nil {
                outcome.checkedCount += 1
                continue
            }
            if let chance = f.chance {
                let chances = events[(i + 1)...].filter { e in
                    (deadline.map { e.t <= $0 } ?? true)
                        && (e.isLine(of: chance, "launched") || (e.isHarnessLine("host_state") && e["state"] == "foreground"))
                }
                guard !chances.isEmpty else { continue }  // it never had a chance: not judged
            }
            outcome.checkedCount += 1
            let id = value ?? String(i + 1)
            let within = f.withinSeconds.map { " within \(Self.seconds($0))" } ?? ""
            outcome.fail(id, "\(f.when)\(value.map { " = \($0)" } ?? "") was not followed by \(f.then)\(f.sameValue ? " with the same value" : "")\(within)", [when])
            if outcome.violations.count >= Self.maxViolations { break }
        }
        return outcome
    }

    /// Violations one declaration reports, at most (the count says the rest).
    public static let maxViolations = 50

    static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }

    /// The pack's report with the declared invariants' results and violations added.
    public static func add(to report: inout CheckReport, _ events: [HistoryEvent]) {
        for d in declared(in: events) {
            let outcome = d.judge(events)
            report.results.append(outcome.result)
            report.violations += outcome.violations
        }
    }
}
