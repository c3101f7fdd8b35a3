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

/// A ratio measured once per round of a benchmark whose two sides are interleaved in rounds, so
/// that machine noise hits both alike: its median, range and spread. The spread is the
/// interquartile range of the rounds' ratios over their median — how far the rounds of one run
/// disagree; a figure whose spread is wider than `trustedSpread` cannot guard a regression of that
/// size, and the record says so.
public struct RatioSpread: Codable, Equatable, Sendable {
    public var rounds: [Double]
    public var median: Double
    public var min: Double
    public var max: Double
    /// (third quartile − first quartile) / median of the rounds' ratios.
    public var spread: Double

    /// The widest spread a figure may have and still be compared with another (10 %).
    public static let trustedSpread = 0.10

    public var trusted: Bool { spread <= Self.trustedSpread }

    public init(_ rounds: [Double]) {
        precondition(!rounds.isEmpty, "no rounds")
        let s = rounds.sorted()
        self.rounds = rounds
        median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        min = s[0]
        max = s[s.count - 1]
        let q1 = LatencyStats.nearestRank(0.25, ofSorted: s)!, q3 = LatencyStats.nearestRank(0.75, ofSorted: s)!
        spread = median > 0 ? (q3 - q1) / median : .infinity
    }

    /// "1.29 (rounds 1.21-1.40, spread 4.2 %)".
    public var text: String {
        String(format: "%.2f (rounds %.2f-%.2f, spread %.1f %%%@)", median, min, max, spread * 100, trusted ? "" : ": too wide to trust")
    }
}
