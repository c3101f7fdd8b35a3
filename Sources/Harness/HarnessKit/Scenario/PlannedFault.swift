/// One signal the nemesis sends, at a time measured from the start of the run: wall time at a
/// fixed clock rate, device time under virtual time (where it lands at that device instant, once
/// the system is idle).
public struct PlannedFault: Sendable, Equatable, Codable {
    public enum TimeBase: Sendable, Equatable {
        case wall
        case device
    }

    public var timeBase: TimeBase
    /// Milliseconds (wall or device, per `timeBase`) from the start of the run.
    public var atOffsetMillis: Int
    /// A role name of the system (`SystemDescriptor.nemesisTargets`).
    public var target: String
    public var kind: FaultKind
    /// `stop`: how long until SIGCONT. `kill` / `term`: how long the process stays down before
    /// relaunch. Same time base.
    public var holdMillis: Int

    public init(atWallOffsetMillis: Int, target: String, kind: FaultKind, holdMillis: Int) {
        self.init(timeBase: .wall, atOffsetMillis: atWallOffsetMillis, target: target, kind: kind, holdMillis: holdMillis)
    }

    public init(timeBase: TimeBase, atOffsetMillis: Int, target: String, kind: FaultKind, holdMillis: Int) {
        self.timeBase = timeBase
        self.atOffsetMillis = atOffsetMillis
        self.target = target
        self.kind = kind
        self.holdMillis = holdMillis
    }

    /// Wall faults keep their original keys (`atWallOffsetMillis`, `holdMillis`), so fixed-rate
    /// plans are byte-identical to those of earlier builds; device faults say so in their keys.
    enum CodingKeys: String, CodingKey {
        case atWallOffsetMillis, atDeviceOffsetMillis, target, kind, holdMillis, holdDeviceMillis
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        target = try c.decode(String.self, forKey: .target)
        kind = try c.decode(FaultKind.self, forKey: .kind)
        if let at = try c.decodeIfPresent(Int.self, forKey: .atDeviceOffsetMillis) {
            timeBase = .device
            atOffsetMillis = at
            holdMillis = try c.decode(Int.self, forKey: .holdDeviceMillis)
        } else {
            timeBase = .wall
            atOffsetMillis = try c.decode(Int.self, forKey: .atWallOffsetMillis)
            holdMillis = try c.decode(Int.self, forKey: .holdMillis)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(target, forKey: .target)
        try c.encode(kind, forKey: .kind)
        switch timeBase {
        case .wall:
            try c.encode(atOffsetMillis, forKey: .atWallOffsetMillis)
            try c.encode(holdMillis, forKey: .holdMillis)
        case .device:
            try c.encode(atOffsetMillis, forKey: .atDeviceOffsetMillis)
            try c.encode(holdMillis, forKey: .holdDeviceMillis)
        }
    }

    public var atWallOffsetMillis: Int { atOffsetMillis }

    /// When the target is back (continued, or relaunched).
    public var endOffsetMillis: Int { atOffsetMillis + holdMillis }
    public var endWallOffsetMillis: Int { endOffsetMillis }
}
