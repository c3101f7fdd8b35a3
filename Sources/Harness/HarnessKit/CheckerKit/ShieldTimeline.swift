import History

/// The emulated OS's ManagedSettings ground truth over time (`shields {apps}` lines).
public struct ShieldTimeline: Sendable {
    /// In `mono` order; `apps` is comma-separated, empty = no shield.
    public var changes: [HistoryEvent]

    public init(_ events: [HistoryEvent]) {
        changes = events.filter { $0.isHarnessLine("shields") }
    }

    /// The change in force just before `mono` (nil: no shield was ever set before it).
    public func change(before mono: Int64) -> HistoryEvent? {
        changes.last { $0.mono < mono }
    }

    public func isShielded(before mono: Int64) -> Bool {
        guard let apps = change(before: mono)?["apps"] else { return false }
        return !apps.isEmpty
    }
}
