import Exit
import HarnessKit
import History

/// §2.1 "All shared keys must be documented here": every traced App Group write (seed code
/// included) is to a registry key its writer may write. One violation per role and key, with the
/// number of writes.
enum KeyRegistryRule {
    static func judge(_ run: ExitRun) -> RuleOutcome {
        var outcome = RuleOutcome(ExitInvariant.keyRegistry.rawValue, subjectKind: "key")
        var offences: [String: (count: Int, first: HistoryEvent)] = [:]
        var order: [String] = []
        for w in run.index.writes(suite: ExitKeys.appGroup) {
            guard let writer = ExitRoles.writer(w.writer) else { continue }
            let e = w.line
            for key in w.keys {
                outcome.checkedCount += 1
                guard !ExitRegistry.allows(writer, toWrite: key) else { continue }
                let id = "\(key) by \(e.process)"
                if let o = offences[id] { offences[id] = (o.count + 1, o.first) } else {
                    offences[id] = (1, e)
                    order.append(id)
                }
            }
        }
        for id in order {
            guard let (count, first) = offences[id] else { continue }
            let key = id.components(separatedBy: " by ").first ?? id
            let allowed = ExitRegistry.writers[key].map { "written by \($0.map(\.rawValue).sorted().joined(separator: ", ")) only" } ?? "not in the registry"
            outcome.fail(
                id, "\(first.process) wrote \(key) \(count) time(s) (first at t=\(first.t), value \(DefaultsWrite(first)[key] ?? "?")); §2.1/Appendix A: \(allowed)",
                [first])
        }
        return outcome
    }
}
