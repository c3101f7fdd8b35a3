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
        p50Micros = Self.nearestRank(0.50, of: samplesMicros)
        p99Micros = Self.nearestRank(0.99, of: samplesMicros)
        self.unseenCount = unseenCount
        self.suspendedCount = suspendedCount
    }

    /// The smallest sample with at least `p` of the samples at or below it.
    static func nearestRank(_ p: Double, of sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
