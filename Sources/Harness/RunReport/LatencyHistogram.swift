import Foundation

/// One latency series of report.json drawn as a histogram: the HDR buckets regrouped into
/// power-of-two bins of microseconds (1 µs, 2 µs, 4 µs, … — a latency spans six decades), with
/// p50 and p99 marked. Geometry only; the template draws it as inline SVG.
public struct LatencyHistogram: Sendable {
    public static let width = 460.0
    public static let height = 170.0
    static let left = 40.0, right = 10.0, top = 12.0, bottom = 34.0

    public struct Bar: Sendable {
        public var x: Double, y: Double, w: Double, h: Double
        public var title: String
    }

    public struct Tick: Sendable {
        public var x: Double
        public var label: String
    }

    public struct Line: Sendable {
        public var x: Double
        public var label: String
    }

    public var name: String
    public var what: String
    public var count: Int
    public var summary: String
    public var bars: [Bar] = []
    public var ticks: [Tick] = []
    public var marks: [Line] = []
    public var maxCount = 0

    public init(_ s: RunRecord.Verdicts.Series) {
        name = s.name
        what = s.what ?? ""
        count = s.count
        if let p50 = s.p50Micros, let p99 = s.p99Micros, let mx = s.maxMicros {
            summary = "n = \(s.count), p50 \(Self.text(p50)), p99 \(Self.text(p99)), max \(Self.text(mx))"
        } else {
            summary = "n = \(s.count): no samples"
        }
        var bins: [Int: Int] = [:]
        for b in s.buckets ?? [] where b.count == 2 && b[1] > 0 { bins[Self.bin(b[0]), default: 0] += Int(b[1]) }
        guard let lo = bins.keys.min(), let hi = bins.keys.max() else { return }
        let n = hi - lo + 1
        let plotW = Self.width - Self.left - Self.right, plotH = Self.height - Self.top - Self.bottom
        let w = plotW / Double(n)
        maxCount = bins.values.max()!
        for (b, c) in bins {
            let h = max(1, plotH * Double(c) / Double(maxCount))
            let x = Self.left + Double(b - lo) * w
            bars.append(Bar(
                x: x + 1, y: Self.top + plotH - h, w: max(1, w - 2), h: h,
                title: "\(Self.text(Self.lower(b)))–\(Self.text(Self.lower(b + 1))): \(c) sample\(c == 1 ? "" : "s")"))
        }
        bars.sort { $0.x < $1.x }
        let step = max(1, n / 6)
        for b in stride(from: lo, through: hi + 1, by: step) { ticks.append(Tick(x: Self.left + Double(b - lo) * w, label: Self.text(Self.lower(b)))) }
        func x(of v: Double) -> Double { Self.left + (log2(max(v, 1)) - Double(lo)) * w }
        if let p50 = s.p50Micros { marks.append(Line(x: x(of: p50), label: "p50")) }
        if let p99 = s.p99Micros { marks.append(Line(x: x(of: p99), label: "p99")) }
    }

    static func bin(_ micros: Double) -> Int { micros < 1 ? 0 : Int(log2(micros).rounded(.down)) }
    static func lower(_ bin: Int) -> Double { pow(2, Double(bin)) }

    static func text(_ micros: Double) -> String {
        if micros >= 1_000_000 { return String(format: "%.3g s", micros / 1_000_000) }
        if micros >= 1000 { return String(format: "%.3g ms", micros / 1000) }
        return String(format: "%.0f µs", micros)
    }
}
