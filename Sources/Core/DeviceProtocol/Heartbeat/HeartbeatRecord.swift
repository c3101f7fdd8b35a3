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
    public static let maxFileBytes = 4096
    public static let maxLaunchIdBytes = 64
    public static let maxIntervalSeconds = 86_400.0

    /// The bounds of PROTOCOL.md §5; `fileName` is the record's file name (`<writer>.json`). A record
    /// that breaks one is skipped and reported by the monitor, never taken for a beat.
    public func validate(fileName: String? = nil) throws {
        func bad(_ r: String) -> AppGroupError { .malformedFile(path: "\(Self.directoryName)/\(fileName ?? writer + ".json")", reason: r) }
        do { try SafeDirectory.validate(component: writer + ".json") } catch { throw bad("writer \(String(reflecting: writer)) is not a file name") }
        if let fileName, fileName != writer + ".json" { throw bad("writer \(String(reflecting: writer)) does not match the file name") }
        guard !launchId.isEmpty, launchId.utf8.count <= Self.maxLaunchIdBytes else { throw bad("launchId must be 1...\(Self.maxLaunchIdBytes) bytes") }
        guard pid > 0 else { throw bad("pid \(pid) is not positive") }
        guard intervalSeconds.isFinite, intervalSeconds > 0, intervalSeconds <= Self.maxIntervalSeconds else {
            throw bad("intervalSeconds \(intervalSeconds) is outside (0, \(Self.maxIntervalSeconds)]")
        }
        guard wallTime.isFinite, wallTime >= 0, monotonicTime.isFinite, monotonicTime >= 0 else {
            throw bad("wallTime and monotonicTime must be finite and not negative")
        }
    }

    /// Decodes and validates one heartbeat file's bytes.
    public static func decode(_ bytes: [UInt8], fileName: String? = nil) throws -> HeartbeatRecord {
        let record = try JSONDecoder().decode(HeartbeatRecord.self, from: Data(bytes))
        try record.validate(fileName: fileName)
        return record
    }
}
