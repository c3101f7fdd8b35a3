import History

/// Field spellings of seed 000's traces. The harness writes `sid`; the FocusPledge stand-ins
/// write `sessionId`: a checker accepts both so a rename on either side does not silently
/// empty a verdict.
extension HistoryEvent {
    static let harnessProcessName = "harness"
    static let hostProcessName = "host-app"
    static let serverProcessName = "settlement-server"

    var sessionIdField: String? { self["sid"] ?? self["sessionId"] }

    func isHarnessLine(_ name: String) -> Bool { process == Self.harnessProcessName && event == name }

    func isHostLine(_ name: String) -> Bool { process == Self.hostProcessName && event == name }

    func isUserAction(_ action: String) -> Bool { isHarnessLine("user_action") && self["action"] == action }

    /// `pid` field of a harness line (spawn, exit, signal, callback_*), which names the child.
    var childPid: Int32? { self["childPid"].flatMap { Int32($0) } }
}
