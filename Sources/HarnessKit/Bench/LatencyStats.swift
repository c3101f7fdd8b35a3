/// Nearest-rank percentiles of a latency sample, in nanoseconds. Both sides of every benchmark
/// are summarised by this one function, so the comparison is like for like.
public struct LatencyStats: Codable, Equatable, Sendable {
    public var count: Int
    public var p50Nanos: Int64
    public var p90Nanos: Int64
    public var p99Nanos: Int64
    public var p999Nanos: Int64
    public var maxNanos: Int64
    public var meanNanos: Int64

    public init(samplesNanos: [Int64]) {
        precondition(!samplesNanos.isEmpty, "no samples")
        let s = samplesNanos.sorted()
        func pct(_ p: Double) -> Int64 { Self.nearestRank(p, ofSorted: s)! }
        count = s.count
        p50Nanos = pct(0.50)
        p90Nanos = pct(0.90)
        p99Nanos = pct(0.99)
        p999Nanos = pct(0.999)
        maxNanos = s.last!
        meanNanos = s.reduce(0, +) / Int64(s.count)
    }

    /// The smallest sample with at least `p` of the samples at or below it (nil when empty).
    /// Every latency figure the project prints — benchmarks and detection latency — comes from here.
    public static func nearestRank<T>(_ p: Double, ofSorted sorted: [T]) -> T? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    public static func micros(_ ns: Int64) -> String {
        let us = Double(ns) / 1000
        return us < 10 ? String(format: "%.2f", us) : (us < 1000 ? String(format: "%.1f", us) : String(format: "%.0f", us))
    }
}
