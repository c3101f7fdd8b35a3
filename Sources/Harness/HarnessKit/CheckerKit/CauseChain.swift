import Foundation
import History

/// One line of a violation's chain: a history line, where to find it, and
/// whether it is a disturbance that came before (`cause`) or one of the lines the rule judged
/// (`step`; the last of them is where the promise was broken).
public struct ChainLine: Codable, Equatable, Sendable {
    /// 1-based line of `history.jsonl` (the judged history, merged and sorted by `mono`).
    public var line: Int
    public var role: Role
    /// The line in short: `t=<device time> <process>[<pid>] <event> key=value …`.
    public var text: String

    public enum Role: String, Codable, Sendable { case cause, step }

    public init(line: Int, role: Role, text: String) {
        self.line = line
        self.role = role
        self.text = text
    }
}

/// The chain that led to a violation, from the history alone: the lines the rule picked (its
/// steps and outcome), and before them the most recent disturbances of the processes those lines
/// are about — a kill, stop or crash of the process, a failpoint, a field fault on its calls, a
/// store or OS error it traced, a tap it lost. It names what happened, not why the app did what
/// it did: a cause line is a disturbance that came before, for the reader to weigh.
public enum CauseChain {
    /// "at most ~12 lines": every step the rule picked (≤ `CheckReport.maxRelevantEvents`)
    /// and causes up to this total — at least `minCauses` when there are any.
    public static let maxLines = 12
    public static let minCauses = 2

    /// Harness lines that disturb a process (HISTORY.md §8, EMULATED-IOS.md §10.5, §7.7). Not `defaults_fault_armed`:
    /// the run's setup, written at its start for every role a rule selects — where such a fault
    /// acts, the process traces `defaults_fault`.
    static let harnessDisturbances: Set<String> = [
        "signal", "callback_failed", "callback_not_delivered", "callback_dropped", "callback_held",
        "callback_duplicated", "callbacks_reordered", "quarantine", "user_tap_lost", "user_retry",
        "shields_ignored", "interval_missed",
    ]
    /// Lines a process traces about itself that mean it was disturbed or failed.
    static let processDisturbances: Set<String> = ["failpoint", "defaults_fault", "shield_action_lost", "notification_wait_timeout"]

    /// Whether `e` is a disturbance of one of `roles` (all roles when empty).
    static func isDisturbance(_ e: HistoryEvent, of roles: Set<String>) -> Bool {
        if e.isHarnessLine("exit") {
            guard e["status"] != "exit 0" else { return false }
            return roles.isEmpty || roles.contains(e["target"] ?? "")
        }
        if e.process == HistoryEvent.harnessProcessName {
            // A call an `os.rules` alternative made (a threshold at the first pickup) is the OS's
            // misbehaviour, as a fault's is.
            let madeByRule = e.event == "callback_delivered" && (e["rule"]?.hasPrefix("os.rules.") ?? false)
            guard harnessDisturbances.contains(e.event) || madeByRule else { return false }
            // A continued process was disturbed by its stop, not by the continuation; iOS
            // suspending an app in the background is its lifecycle, not a fault.
            if e.event == "signal", e["signal"] == "CONT" || (e["signal"] == "STOP" && e["by"] == "ios") { return false }
            guard let target = e["target"] ?? e["role"] else { return true }
            return roles.isEmpty || roles.contains(target)
        }
        guard roles.isEmpty || roles.contains(e.process) else { return false }
        return processDisturbances.contains(e.event) || e.event.hasSuffix("_error")
    }

    /// The chain of `violation` in `events` (the judged history, in order); nil when none of its
    /// lines is found there.
    /// The processes the steps are about: a process's own lines, a harness line's `target`, and
    /// the host (`hostRole`) for the harness's lines about the app without one (`host_state`, a tap).
    ///
    /// "Before" and the chain's order are the normalized history's (`rank`: each line's place in
    /// `HistoryNormalizer.order`), not the merge's wall-clock order: two processes'
    /// lines at one device instant came in either order from run to run, and so did the chain
    /// (which of two callbacks at one instant was listed, which disturbance made the cut).
    public static func chain(
        of violation: InvariantViolation, in events: [HistoryEvent], index: [Key: Int], rank: [Int], hostRole: String?
    ) -> [ChainLine]? {
        let steps = violation.relevantEvents.compactMap { e in index[Key(e)].map { ($0, e) } }.sorted { rank[$0.0] < rank[$1.0] }
        // Causes come before the last line the rule judged — not before the run's end, which a
        // rule names for "(to the run's end)": disturbances after the broken promise caused nothing.
        guard let last = (steps.last { !$0.1.isHarnessLine("run_finished") } ?? steps.last)?.0 else { return nil }
        var roles = Set<String>()
        for (_, e) in steps {
            if e.process != HistoryEvent.harnessProcessName {
                roles.insert(e.process)
            } else if let t = e["target"] {
                roles.insert(t)
            } else if let hostRole {
                roles.insert(hostRole)
            }
        }
        let stepLines = Set(steps.map(\.0))
        let want = max(minCauses, maxLines - steps.count)
        // A failpoint the user armed is named however long before it fired (at most two); then
        // the most recent other disturbances.
        var before = events.indices.filter { rank[$0] < rank[last] && !stepLines.contains($0) && isDisturbance(events[$0], of: roles) }
            .sorted { rank[$0] > rank[$1] }
        // An exit after the signal that caused it says the same thing twice.
        let signalled = Set(before.filter { events[$0].isHarnessLine("signal") }.compactMap { events[$0]["childPid"] })
        before.removeAll { events[$0].isHarnessLine("exit") && signalled.contains(events[$0]["childPid"] ?? "") }
        var causes = Array(before.filter { events[$0].event == "failpoint" }.prefix(minCauses))
        for i in before where causes.count < want && !causes.contains(i) { causes.append(i) }
        let lines = causes.map { ($0, ChainLine.Role.cause) } + steps.map { ($0.0, ChainLine.Role.step) }
        return lines.sorted { rank[$0.0] < rank[$1.0] }.map { ChainLine(line: $0.0 + 1, role: $0.1, text: short(events[$0.0])) }
    }

    /// Sets `chain` on every violation of `report` from `events` (the judged history).
    public static func attach(to report: inout CheckReport, events: [HistoryEvent], hostRole: String?) {
        guard !report.violations.isEmpty else { return }
        var index: [Key: Int] = [:]
        for (i, e) in events.enumerated() where index[Key(e)] == nil { index[Key(e)] = i }
        var rank = [Int](repeating: 0, count: events.count)
        for (r, i) in HistoryNormalizer.order(events).enumerated() { rank[i] = r }
        for v in report.violations.indices {
            report.violations[v].chain = chain(of: report.violations[v], in: events, index: index, rank: rank, hostRole: hostRole)
        }
    }

    /// A history line found again by what identifies it.
    public struct Key: Hashable {
        let mono: Int64, pid: Int32, process: String, event: String, fields: [String: String]
        init(_ e: HistoryEvent) { (mono, pid, process, event, fields) = (e.mono, e.pid, e.process, e.event, e.fields) }
    }

    /// `t=<device time> <process>[<pid>] <event> key=value …` (values cut at 100 characters).
    public static func short(_ e: HistoryEvent) -> String {
        let who = e.process == HistoryEvent.harnessProcessName ? e.process : "\(e.process)[\(e.pid)]"
        let fields = e.fields.keys.sorted().map { k -> String in
            let v = e.fields[k]!
            return "\(k)=" + (v.count > 100 ? String(v.prefix(97)) + "..." : v)
        }
        return (["t=" + String(format: "%.3f", e.t), who, e.event] + fields).joined(separator: " ")
    }
}
