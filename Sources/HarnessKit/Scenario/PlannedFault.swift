/// One signal the nemesis sends, at a wall time measured from the start of the run.
public struct PlannedFault: Sendable, Equatable, Codable {
    public var atWallOffsetMillis: Int
    /// A role name of the system (`SystemDescriptor.nemesisTargets`).
    public var target: String
    public var kind: FaultKind
    /// `stop`: how long until SIGCONT. `kill` / `term`: how long the process stays down before relaunch.
    public var holdMillis: Int

    public init(atWallOffsetMillis: Int, target: String, kind: FaultKind, holdMillis: Int) {
        self.atWallOffsetMillis = atWallOffsetMillis
        self.target = target
        self.kind = kind
        self.holdMillis = holdMillis
    }

    /// When the target is back (continued, or relaunched).
    public var endWallOffsetMillis: Int { atWallOffsetMillis + holdMillis }
}
