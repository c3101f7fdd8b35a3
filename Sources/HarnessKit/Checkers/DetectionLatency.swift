/// Violation → the running host has seen it: from the extension's `failure_recorded` to the
/// host's first `failure_seen` for that session, by CLOCK_MONOTONIC. Nearest-rank percentiles.
public struct DetectionLatency: Codable, Equatable, Sendable {
    public var count: Int
    public var p50Micros: Double?
    public var p99Micros: Double?
    /// Every sample, ascending, so runs can be merged into one distribution.
    public var samplesMicros: [Double]
    /// Violations recorded while a host ran that this host never reported seeing before it exited.
    public var unseenCount: Int
    /// Samples left out because the host was SIGSTOPped in between (they measure the nemesis).
    public var suspendedCount: Int

    public init(samplesNanos: [Int64], unseenCount: Int = 0, suspendedCount: Int = 0) {
        samplesMicros = samplesNanos.sorted().map { Double($0) / 1000 }
        count = samplesMicros.count
        p50Micros = LatencyStats.nearestRank(0.50, ofSorted: samplesMicros)
        p99Micros = LatencyStats.nearestRank(0.99, ofSorted: samplesMicros)
        self.unseenCount = unseenCount
        self.suspendedCount = suspendedCount
    }
}
