import Foundation

/// One heartbeat file: `containers/<group>/Heartbeats/<writer>.json` (PROTOCOL.md §5).
public struct HeartbeatRecord: Codable, Equatable, Sendable {
    public var writer: String
    public var pid: Int32
    /// Random per process start: a new launch id with an old writer name means "restarted".
    public var launchId: String
    /// 0, 1, 2, ... within one launch.
    public var sequence: UInt64
    /// Device (virtual or real) unix time of the stamp.
    public var wallTime: Double
    /// Device monotonic seconds (CLOCK_MONOTONIC, scaled by the clock rate): comparable across
    /// processes on one machine, immune to clock jumps.
    public var monotonicTime: Double
    /// The writer's declared interval, in device seconds.
    public var intervalSeconds: Double

    public init(writer: String, pid: Int32, launchId: String, sequence: UInt64, wallTime: Double, monotonicTime: Double, intervalSeconds: Double) {
        self.writer = writer
        self.pid = pid
        self.launchId = launchId
        self.sequence = sequence
        self.wallTime = wallTime
        self.monotonicTime = monotonicTime
        self.intervalSeconds = intervalSeconds
    }

    public static let directoryName = "Heartbeats"
    static let maxFileBytes = 4096
}
