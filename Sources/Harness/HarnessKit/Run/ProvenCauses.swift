import Foundation

/// What reruns proved about one violation (`harness why`, and `harness run` for the first violation
/// of each invariant): the steps without which it goes away, every other step kept. Written to the
/// run directory as `why.json` (`{"explained": [...]}`), which report.html reads; the verdict itself
/// stays the checker's, from the history alone.
package struct ProvenCauses: Codable, Equatable, Sendable {
    package struct Cause: Codable, Equatable, Sendable {
        /// The step in one line: `at +0:04:00 nemesis kill host-app for 5000 ms`, `failpoint …`.
        package var step: String
        /// What the process the step acted on was doing: its last history line before the step.
        package var interrupted: String?
        /// 1-based line of history.jsonl where the step shows (the harness's signal, user action,
        /// field-fault or failpoint line), when found.
        package var line: Int?
        /// It came after the last history line the checker cites.
        package var afterEvidence = false

        package init(step: String, interrupted: String? = nil, line: Int? = nil, afterEvidence: Bool = false) {
            self.step = step
            self.interrupted = interrupted
            self.line = line
            self.afterEvidence = afterEvidence
        }

        /// The cause in one line: the step, then what it interrupted.
        package var text: String {
            step + (interrupted.map { " — \($0)" } ?? "") + (afterEvidence ? " (after the last line the checker cites)" : "")
        }
    }

    /// The violation's number in the run's verdict (1 is the first).
    package var violation: Int
    package var invariant: String
    package var subject: String?
    /// Without each, the rerun holds (every other step kept).
    package var proven: [Cause] = []
    /// Needed only together: without both the rerun holds, without either one it still fails.
    package var together: [[Cause]] = []
    /// Steps without which it still fails.
    package var notNeeded = 0
    /// Candidates whose rerun could not be decided.
    package var undecided: [String] = []
    /// Candidates the budget did not reach (their summaries, in the order of the run).
    package var untried: [String] = []
    /// Causes the fast reruns (stand-ins inside the harness) found that a rerun with real processes
    /// did not confirm: listed as not proven.
    package var disagreed: [String] = []
    /// Whether every pair was tried when no single step was a cause.
    package var pairsComplete = false
    /// Reruns whose verdict this violation's search read (the repeat included; one rerun answers
    /// every violation of the run), and the search's wall time.
    package var runs = 0
    package var seconds = 0.0
    /// What bounded the search: `--why-budget 5s`, `--max-runs 40`.
    package var limit: String
    /// Set when nothing could be proven at all: why (the run with every step pinned did not fail
    /// this way again, a run at a fixed clock rate).
    package var unprovable: String?
    /// Not rerun here: the first violation of this invariant (same system and variant) was
    /// explained in that run directory. Only printed, never written to why.json.
    package var elsewhere: String?

    package init(violation: Int, invariant: String, subject: String?, limit: String) {
        self.violation = violation
        self.invariant = invariant
        self.subject = subject
        self.limit = limit
    }

    /// The lines `harness run` prints before the violation's evidence.
    package func runLines(runDirectory: String, executable: String) -> [String] {
        let more = "\(executable) why \(runDirectory) --violation \(violation)"
        if let elsewhere { return ["  causes: not rerun here — this invariant's first violation was explained in \(elsewhere); for this one: \(more)"] }
        if let unprovable { return ["  causes not proven: \(unprovable)"] }
        var out: [String] = []
        if !proven.isEmpty {
            out.append("  proven cause\(proven.count == 1 ? "" : "s") (a rerun without \(proven.count == 1 ? "it" : "each") holds, every other step kept):")
            out += proven.map { "    \($0.text)" }
        } else if !together.isEmpty {
            out.append("  proven causes, needed together (a rerun without both holds, without either one it still fails):")
            out += together.map { "    " + $0.map(\.text).joined(separator: "\n      and ") }
        }
        let open = untried.count + undecided.count + disagreed.count
        if proven.isEmpty && together.isEmpty {
            if open == 0 && (pairsComplete || notNeeded == 0) {
                out.append("  proven causes: none — no step left out makes it go away (it may come from the seed alone)")
            } else if open == 0 {
                out.append("  proven causes: none alone — \(notNeeded) step(s) not needed; not every pair of them tried within \(limit): \(more)")
            } else {
                out.append("  proven causes: none yet — \(notNeeded) step(s) not needed, \(open) candidate(s) not proven within \(limit): \(more)")
            }
        } else if open > 0 {
            out.append("  candidates not proven (\(limit) ran out): \(open) — \(more)")
        }
        return out
    }
}

/// The `why.json` of a run directory.
package struct WhyRecord: Codable, Equatable, Sendable {
    package var explained: [ProvenCauses]

    package init(explained: [ProvenCauses]) { self.explained = explained }

    package static let fileName = "why.json"

    package func write(runDirectory dir: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: URL(fileURLWithPath: dir + "/" + Self.fileName), options: .atomic)
    }
}
