import FocusPledge
import HarnessKit
import History

/// Field spellings of seed 000's traces. The harness writes `sid`; the FocusPledge stand-ins
/// write `sessionId`: a checker accepts both so a rename on either side does not silently
/// empty a verdict.
extension HistoryEvent {
    static let hostProcessName = "host-app"
    static let serverProcessName = "settlement-server"

    var sessionIdField: String? { self["sid"] ?? self["sessionId"] }

    func isHostLine(_ name: String) -> Bool { process == Self.hostProcessName && event == name }

    /// An App Group write of a violation as it landed (`defaults_set`, which the pack has every
    /// extension trace): as-written's seed code sets `focuspledge_session_failed` to true (its
    /// `markSessionFailed` writes that key first); hardened writes its one-key failure record
    /// (`focuspledge_failure`, H5). Read from what was written, not from what a stand-in says it did.
    var isFailureWrite: Bool {
        guard event == "defaults_set", self["suite"] == FocusPledgeKeys.suiteName else { return false }
        let write = DefaultsWrite(self)
        if write[FocusPledgeKeys.sessionFailed] == "true" { return true }
        if let record = write[FocusPledgeKeys.failureRecord] { return record != DefaultsWrite.removed }
        return false
    }
}

extension CallbackDelivery {
    /// The calls through which iOS tells the app that a blocked app was opened: the seed's two
    /// (`eventDidReachThreshold`, the shield button's `shieldAction`) and the shield's
    /// `shieldConfiguration`, which iOS makes whenever it shows the shield (README, H2).
    static let violationCallbacks: Set<String> = ["eventDidReachThreshold", "shieldAction", "shieldConfiguration"]

    /// The session the delivery is about: the user's label, else the activity's name.
    var sessionId: String? { delivered.sessionIdField ?? activity.flatMap(FocusPledgeKeys.sessionId(fromActivity:)) }

    var isViolationCallback: Bool { callback.map(Self.violationCallbacks.contains) ?? false }
}
