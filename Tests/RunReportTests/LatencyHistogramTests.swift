@testable import RunReport
import Testing

@Suite(.timeLimit(.minutes(1))) struct LatencyHistogramTests {
    func series(_ buckets: [[Double]]) -> RunRecord.Verdicts.Series {
        .init(name: "s", what: "a -> b", count: Int(buckets.reduce(0) { $0 + $1[1] }), p50Micros: 150, p99Micros: 3000, maxMicros: 3000, buckets: buckets)
    }

    /// HDR buckets regroup into power-of-two bins: 100 and 120 µs share 64–128, 150 is in 128–256.
    @Test func bucketsRegroupIntoPowerOfTwoBins() {
        let h = LatencyHistogram(series([[100, 2], [120, 1], [150, 4], [3000, 1]]))
        #expect(h.bars.map(\.title) == ["64 µs–128 µs: 3 samples", "128 µs–256 µs: 4 samples", "2.05 ms–4.1 ms: 1 sample"])
        #expect(h.maxCount == 4)
        // The tallest bar fills the plot; bars never overlap and stay inside the chart.
        let tallest = h.bars.map(\.h).max() ?? 0
        #expect(tallest == LatencyHistogram.height - LatencyHistogram.top - LatencyHistogram.bottom)
        for (a, b) in zip(h.bars, h.bars.dropFirst()) { #expect(a.x + a.w <= b.x) }
        #expect(h.bars.allSatisfy { $0.x >= 0 && $0.x + $0.w <= LatencyHistogram.width })
        #expect(h.marks.map(\.label) == ["p50", "p99"])
    }

    @Test func noSamplesNoBars() {
        let h = LatencyHistogram(.init(name: "s", what: nil, count: 0, p50Micros: nil, p99Micros: nil, maxMicros: nil, buckets: []))
        #expect(h.bars.isEmpty)
        #expect(h.summary == "n = 0: no samples")
    }
}
