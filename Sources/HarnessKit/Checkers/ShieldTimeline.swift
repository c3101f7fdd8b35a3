import History

extension FocusPledgeChecker {
    /// The emulated OS's ManagedSettings ground truth over time (`shields {apps}` lines).
    struct ShieldTimeline: Sendable {
        /// In `mono` order; `apps` is comma-separated, empty = no shield.
        var changes: [HistoryEvent]

        init(_ events: [HistoryEvent]) {
            changes = events.filter { $0.isHarnessLine("shields") }
        }

        /// The change in force just before `mono` (nil: no shield was ever set before it).
        func change(before mono: Int64) -> HistoryEvent? {
            changes.last { $0.mono < mono }
        }

        func isShielded(before mono: Int64) -> Bool {
            guard let apps = change(before: mono)?["apps"] else { return false }
            return !apps.isEmpty
        }
    }
}
