/// The few lines a developer reads first: verdict, invariants, latency, then each violation with
/// the history lines (JSON, as in history.jsonl) that show it.
extension CheckReport {
    public func humanSummary() -> String {
        guard decided else {
            var lines = ["\(checker): could not decide — \(undecidedReason ?? "incomplete history")"]
            if !results.isEmpty {
                lines.append("  what could be checked of the partial history (not a verdict: a run cut short may not have settled):")
                for result in results {
                    lines.append("  \(result.passed ? "ok  " : "open") \(result.name) (checked \(result.checkedCount))")
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }
        var lines = ["\(checker): \(passed ? "PASS" : "FAIL") (\(violations.count) violation(s))"]
        for result in results {
            lines.append("  \(result.passed ? "ok  " : "FAIL") \(result.name) (checked \(result.checkedCount))")
        }
        lines.append("  " + latencyLine)
        if let lost = lostByOS, !lost.isEmpty {
            lines.append("  lost by iOS (not blamed on the system): \(lost.count) user action(s)")
            for l in lost { lines.append("    \(l.sessionId ?? "-"): \(l.explanation)") }
        }
        for violation in violations {
            lines.append("")
            lines.append("\(violation.invariant) — session \(violation.sessionId ?? "-")")
            lines.append("  \(violation.explanation)")
            lines += violation.relevantEvents.prefix(Self.maxRelevantEvents).map { "    " + $0.jsonLine() }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var latencyLine: String {
        let l = detectionLatency
        guard let p50 = l.p50Micros, let p99 = l.p99Micros else {
            return "detection latency: no samples (unseen \(l.unseenCount), suspended \(l.suspendedCount))"
        }
        return "detection latency: n=\(l.count) p50=\(Self.micros(p50)) µs p99=\(Self.micros(p99)) µs"
            + " (unseen \(l.unseenCount), suspended \(l.suspendedCount))"
    }

    private static func micros(_ value: Double) -> String {
        String(Double((value * 10).rounded()) / 10)
    }
}
