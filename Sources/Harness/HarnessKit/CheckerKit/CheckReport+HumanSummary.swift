/// The few lines a developer reads first: verdict, invariants, latency, then each violation with
/// the history lines (JSON, as in history.jsonl) that show it.
extension CheckReport {
    /// `proven`: per violation number (1-based), lines printed between its explanation and its
    /// evidence — what reruns proved of its causes (`harness run`, `harness why`).
    public func humanSummary(proven: [Int: [String]] = [:]) -> String {
        // Violations at a fixed rate whose bound is shorter than the machine's jitter: said, not blamed.
        let machines = (speedDependent ?? []).map { "  speed-dependent (not blamed on the system): \($0.invariant) — \($0.subjectDescription): \($0.explanation)" }
        guard decided else {
            var lines = ["\(checker): could not decide — \(undecidedReason ?? "incomplete history")"] + machines
            if !results.isEmpty {
                lines.append("  what could be checked of the partial history (not a verdict: a run cut short may not have settled):")
                for result in results {
                    lines.append("  \(result.passed ? "ok  " : "open") \(result.name) (checked \(result.checkedCount))")
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }
        var lines = ["\(checker): \(passed ? "PASS" : "FAIL") (\(violations.count) violation(s))"]
        // An invariant whose every violation is speed-dependent is open, not failed.
        let open = Set((speedDependent ?? []).map(\.invariant)).subtracting(violations.map(\.invariant))
        for result in results {
            let state = result.passed ? "ok  " : open.contains(result.name) ? "open" : "FAIL"
            lines.append("  \(state) \(result.name) (checked \(result.checkedCount))\(state == "open" ? "; every violation speed-dependent" : "")")
        }
        for series in latencies { lines.append("  latency " + series.summaryLine) }
        for v in heartbeats ?? [] {
            lines.append("  heartbeat \(v.monitor) (\(v.rule)): \(v.decisions) decision(s): \(v.trueAlarms) true, \(v.falseAlarms) false"
                + (v.falseAlarmStates.isEmpty ? "" : " (" + v.falseAlarmStates.keys.sorted().map { "\($0) \(v.falseAlarmStates[$0]!)" }.joined(separator: ", ") + ")")
                + "; \(v.deaths) death(s), detected \(v.detected), missed \(v.missed)")
        }
        lines += machines
        if let lost = lostByOS, !lost.isEmpty {
            lines.append("  lost by iOS (not blamed on the system): \(lost.count) user action(s)")
            for l in lost { lines.append("    \(l.subjectDescription): \(l.explanation)") }
        }
        let idle = faultRulesNeverFired
        if !idle.isEmpty {
            lines.append("  fault rules armed, never fired (this run did not test them): " + idle.map { $0.kind == FaultRuleTally.failpointKind ? $0.rule : "\($0.rule) \($0.kind)" }.joined(separator: ", "))
        }
        for (number, violation) in zip(1..., violations) {
            lines.append("")
            lines.append("\(violation.invariant) — \(violation.subjectDescription)")
            lines.append("  \(violation.explanation)")
            lines += proven[number] ?? []
            if let chain = violation.chain {
                // history.jsonl line numbers: `sed -n 'N p' RUN/history.jsonl` shows the whole line.
                // A disturbance before the broken promise is "before", not a cause: only a rerun
                // without it proves that (the lines above).
                if proven[number] != nil { lines.append("  evidence:") }
                lines += chain.map { "    \($0.role == .cause ? "before" : "      ") #\($0.line)  \($0.text)" }
            } else {
                lines += violation.relevantEvents.prefix(Self.maxRelevantEvents).map { "    " + $0.jsonLine() }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
