import History

/// Invariants every system shares; a pack's checker lists the ones that apply to it.
public enum CoreRules {
    /// The App Group store was never found corrupt (a quarantine is never silent).
    public static let noStoreCorrupt = InvariantDescriptor(
        name: "no-store-corrupt", promise: "No App Group store file is ever found corrupt.",
        source: "PROTOCOL.md §6: corrupt files are quarantined and reported, never silently reset")
    /// The run reached quiescence within its wall-time bound.
    public static let runSettles = InvariantDescriptor(
        name: "run-settles",
        promise: "After the workload the system settles (every extension call ends) within the run's wall-time bound.",
        source: "a system that never settles is a violation (run_overran, HISTORY.md §8)")

    public static func noStoreCorrupt(_ events: [HistoryEvent]) -> RuleOutcome {
        var outcome = RuleOutcome(noStoreCorrupt.name, subjectKind: "file")
        outcome.checkedCount = 1
        for event in events where event.isHarnessLine("quarantine") {
            outcome.fail(
                event["file"],
                "store file \(event["file"] ?? "?") was corrupt (\(event["reason"] ?? "?")), moved to \(event["movedTo"] ?? "?")",
                [event])
        }
        return outcome
    }

    public static func runSettles(_ events: [HistoryEvent]) -> RuleOutcome {
        var outcome = RuleOutcome(runSettles.name)
        outcome.checkedCount = 1
        for event in events where event.isHarnessLine("run_overran") {
            outcome.fail(nil, "the system did not settle: \(event["why"] ?? "wall-time bound exceeded")", [event])
        }
        return outcome
    }
}
