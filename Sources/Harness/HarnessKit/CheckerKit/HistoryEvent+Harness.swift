import History

/// How the harness's own lines are read back (HISTORY.md §8).
extension HistoryEvent {
    public static let harnessProcessName = "harness"

    public func isHarnessLine(_ name: String) -> Bool { process == Self.harnessProcessName && event == name }

    public func isUserAction(_ action: String) -> Bool { isHarnessLine("user_action") && self["action"] == action }

    /// `childPid` field of a harness line (spawn, exit, signal, callback_*), which names the child.
    public var childPid: Int32? { self["childPid"].flatMap { Int32($0) } }

    /// A line of the process `role` (any pid).
    public func isLine(of role: String, _ name: String) -> Bool { process == role && event == name }
}
