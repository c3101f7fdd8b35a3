import Histogram

/// One named latency series a pack measures from a run's history, e.g. FocusPledge's
/// `violation-to-host` (an extension's record of a violation → the running host saw it), by
/// CLOCK_MONOTONIC, in microseconds. A pack declares which series it measures
/// (`SystemDescriptor.latencySeries`); the report, the run table and `harness check` of several
/// runs speak of them by name only.
///
/// Kept as an HDR histogram (3 significant digits; values under 2048 µs exactly), so `report.json`
/// holds a bounded list of buckets however many samples a run has, and runs merge into one
/// distribution (`merged`). Percentiles are nearest-rank over the bucketed values.
public struct LatencySeries: Codable, Equatable, Sendable {
    /// Stable, kebab-case: how reports, tables and scripts name the series.
    public var name: String
    /// One line: from which event to which.
    public var what: String
    public var count: Int
    public var p50Micros: Double?
    public var p99Micros: Double?
    public var maxMicros: Double?
    /// `[valueMicros, count]` per non-empty bucket, ascending (at most ~2,000 buckets up to 60 s).
    public var buckets: [[UInt64]]
    /// Samples left out, by reason (e.g. `unseen`: the host exited without seeing it;
    /// `suspended`: stopped in between, measuring the nemesis) — never silently dropped.
    public var excluded: [String: Int]

    /// Larger latencies are clamped here (they are a minute of a stuck process, not a measurement).
    public static let highestTrackableMicros: UInt64 = 60_000_000

    public init(name: String, what: String, samplesNanos: [Int64], excluded: [String: Int] = [:]) {
        var h = Self.histogram()
        for nanos in samplesNanos {
            _ = h.record(min(Self.highestTrackableMicros, UInt64(max(0, (nanos + 500) / 1000))))
        }
        self.init(name: name, what: what, h, excluded: excluded)
    }

    init(name: String, what: String, _ h: Histogram<UInt64>, excluded: [String: Int]) {
        self.name = name
        self.what = what
        count = Int(h.totalCount)
        if h.totalCount > 0 {
            p50Micros = Double(h.valueAtPercentile(50))
            p99Micros = Double(h.valueAtPercentile(99))
            maxMicros = Double(h.max)
        }
        buckets = h.recordedValues().map { [$0.value, $0.count] }
        self.excluded = excluded
    }

    static func histogram() -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestTrackableMicros, numberOfSignificantValueDigits: .three)
    }

    /// Samples left out for `reason` (0 when none).
    public func excluded(_ reason: String) -> Int { excluded[reason] ?? 0 }

    /// One distribution per series name over several runs (e.g. `harness check` of 20 run
    /// directories), in the order names first appear.
    public static func merged(_ runs: [[LatencySeries]]) -> [LatencySeries] {
        var order: [String] = []
        var parts: [String: [LatencySeries]] = [:]
        for series in runs.joined() {
            if parts[series.name] == nil { order.append(series.name) }
            parts[series.name, default: []].append(series)
        }
        return order.compactMap { name in parts[name].map(merged) }
    }

    /// One distribution of parts of the same series.
    public static func merged(_ parts: [LatencySeries]) -> LatencySeries {
        var h = histogram()
        var excluded: [String: Int] = [:]
        for part in parts {
            for bucket in part.buckets where bucket.count == 2 {
                _ = h.record(min(highestTrackableMicros, bucket[0]), count: bucket[1])
            }
            excluded.merge(part.excluded, uniquingKeysWith: +)
        }
        return LatencySeries(name: parts.first?.name ?? "", what: parts.first?.what ?? "", h, excluded: excluded)
    }

    /// `name: n=.. p50=.. µs p99=.. µs (unseen 1, suspended 2)`, or `name: no samples (...)`.
    public var summaryLine: String {
        let left = excluded.keys.sorted().map { "\($0) \(excluded[$0] ?? 0)" }.joined(separator: ", ")
        let tail = left.isEmpty ? "" : " (\(left))"
        guard let p50 = p50Micros, let p99 = p99Micros else { return "\(name): no samples\(tail)" }
        return "\(name): n=\(count) p50=\(Self.micros(p50)) µs p99=\(Self.micros(p99)) µs\(tail)"
    }

    private static func micros(_ value: Double) -> String {
        String(Double((value * 10).rounded()) / 10)
    }
}
