/// One signal the nemesis sends, at a wall time measured from the start of the run.
public struct PlannedFault: Sendable, Equatable, Codable {
    public var atWallOffsetMillis: Int
    public var target: FaultTarget
    public var kind: FaultKind
    /// `stop`: how long until SIGCONT. `kill` / `term`: how long the process stays down before relaunch.
    public var holdMillis: Int

    public init(atWallOffsetMillis: Int, target: FaultTarget, kind: FaultKind, holdMillis: Int) {
        self.atWallOffsetMillis = atWallOffsetMillis
        self.target = target
        self.kind = kind
        self.holdMillis = holdMillis
    }

    /// When the target is back (continued, or relaunched).
    public var endWallOffsetMillis: Int { atWallOffsetMillis + holdMillis }
}

/// A session as planned, so checkers and reports can say what each session should have ended as
/// without re-deriving it from the action list.
public struct PlannedSession: Sendable, Equatable, Codable {
    public var sessionId: String
    public var startDeviceOffsetSeconds: Double
    public var durationMinutes: Int
    /// Offset of the user's `stopSession`, if they stop it by hand before the end.
    public var stopDeviceOffsetSeconds: Double?
    /// Violations planned inside the session (before any hand stop).
    public var violationCount: Int

    public init(
        sessionId: String, startDeviceOffsetSeconds: Double, durationMinutes: Int,
        stopDeviceOffsetSeconds: Double?, violationCount: Int
    ) {
        self.sessionId = sessionId
        self.startDeviceOffsetSeconds = startDeviceOffsetSeconds
        self.durationMinutes = durationMinutes
        self.stopDeviceOffsetSeconds = stopDeviceOffsetSeconds
        self.violationCount = violationCount
    }

    /// Where the session's interval ends if nobody stops it.
    public var endDeviceOffsetSeconds: Double { startDeviceOffsetSeconds + Double(durationMinutes * 60) }
}
