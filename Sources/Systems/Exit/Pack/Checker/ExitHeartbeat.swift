import Exit

/// The pack's heartbeat, declared for judging (issue "heartbeat checks"): who writes it, where,
/// who decides from it, by which rule, and what the decision looks like in the history.
public struct HeartbeatDeclaration: Sendable, Equatable {
    /// The App Group key the writer sets (device unix seconds).
    public var key: String
    public var writerRole: String
    /// The writer runs only when the OS calls it (an extension), not as a daemon.
    public var writerOnDemand: Bool
    public var monitorRole: String
    /// Declared dead when `now - heartbeat > staleSeconds`.
    public var staleSeconds: Double
    /// The monitor's trace line for a decision "dead".
    public var decisionEvent: String
}

public enum ExitHeartbeat {
    /// §6.1: the extension writes `extension_heartbeat`; the main app checks it against 300 s.
    public static let declaration = HeartbeatDeclaration(
        key: ExitKeys.extensionHeartbeat, writerRole: ExitRoles.monitor, writerOnDemand: true, monitorRole: ExitRoles.host,
        staleSeconds: ExitKeys.heartbeatStaleSeconds, decisionEvent: "reinitialize_extensions")
}
