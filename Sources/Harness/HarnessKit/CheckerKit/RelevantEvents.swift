import History

/// Picks the few history lines a violation is explained by: ordered, deduplicated, bounded.
public enum RelevantEvents {
    public static func pick(_ events: [HistoryEvent?]) -> [HistoryEvent] {
        var seen: [HistoryEvent] = []
        for case let event? in events where !seen.contains(event) { seen.append(event) }
        // The normalized history's order (`HistoryNormalizer.order`; within a process, the merge's
        // order is `mono`'s), so a violation lists the same lines in the same order in every run:
        // two processes' lines at one device instant are merged by wall clock, in either order
        // from run to run. Stable: lines with equal keys keep the order the rule listed them in.
        let ordered = seen.enumerated().sorted {
            ($0.element.t, $0.element.process, $0.element.mono, $0.offset) < ($1.element.t, $1.element.process, $1.element.mono, $1.offset)
        }
        // Over the bound, keep both ends: how it began and the settlements (written last).
        let keep = CheckReport.maxRelevantEvents
        guard ordered.count > keep else { return ordered.map(\.element) }
        return (ordered.prefix(keep - keep / 2) + ordered.suffix(keep / 2)).map(\.element)
    }
}
