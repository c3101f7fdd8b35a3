import Histogram

/// Violation → the running host has seen it: from the extension's record of the violation to the
/// host's first sight of it, by CLOCK_MONOTONIC, in microseconds.
///
/// Kept as an HDR histogram (3 significant digits; values under 2048 µs exactly), so `report.json`
/// holds a bounded list of buckets however many samples a run has, and runs merge into one
/// distribution (`merged`). Percentiles are nearest-rank over the bucketed values.
public struct DetectionLatency: Codable, Equatable, Sendable {
    public var count: Int
    public var p50Micros: Double?
    public var p99Micros: Double?
    public var maxMicros: Double?
    /// `[valueMicros, count]` per non-empty bucket, ascending (at most ~2,000 buckets up to 60 s).
    public var buckets: [[UInt64]]
    /// Violations recorded while a host ran that this host never reported seeing before it exited.
    public var unseenCount: Int
    /// Samples left out because the host was SIGSTOPped in between (they measure the nemesis).
    public var suspendedCount: Int

    /// Larger latencies are clamped here (they are a minute of a stuck host, not a measurement).
    public static let highestTrackableMicros: UInt64 = 60_000_000

    public init(samplesNanos: [Int64], unseenCount: Int = 0, suspendedCount: Int = 0) {
        var h = Self.histogram()
        for nanos in samplesNanos {
            _ = h.record(min(Self.highestTrackableMicros, UInt64(max(0, (nanos + 500) / 1000))))
        }
        self.init(h, unseenCount: unseenCount, suspendedCount: suspendedCount)
    }

    init(_ h: Histogram<UInt64>, unseenCount: Int, suspendedCount: Int) {
        count = Int(h.totalCount)
        if h.totalCount > 0 {
            p50Micros = Double(h.valueAtPercentile(50))
            p99Micros = Double(h.valueAtPercentile(99))
            maxMicros = Double(h.max)
        }
        buckets = h.recordedValues().map { [$0.value, $0.count] }
        self.unseenCount = unseenCount
        self.suspendedCount = suspendedCount
    }

    static func histogram() -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestTrackableMicros, numberOfSignificantValueDigits: .three)
    }

    /// One distribution over several runs (e.g. `harness check` of 20 run directories).
    public static func merged(_ parts: [DetectionLatency]) -> DetectionLatency {
        var h = histogram()
        for part in parts {
            for bucket in part.buckets where bucket.count == 2 {
                _ = h.record(min(highestTrackableMicros, bucket[0]), count: bucket[1])
            }
        }
        return DetectionLatency(
            h, unseenCount: parts.map(\.unseenCount).reduce(0, +), suspendedCount: parts.map(\.suspendedCount).reduce(0, +))
    }
}
