/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and — unlike the standard library's
/// `random(in:using:)` algorithms, which may change between toolchains — every number a plan
/// draws is defined here, so a seed means the same schedule on every machine and Swift version.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// `stream` separates independent sequences drawn from one seed (the workload and the nemesis),
    /// so that changing the nemesis settings does not change the user's actions, and vice versa.
    public init(seed: UInt64, stream: UInt64 = 0) {
        state = seed ^ (stream &* 0xD1B5_4A32_D192_ED03)
        // Decorrelate nearby seeds (0, 1, 2, ...) before the first draw.
        _ = next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range`, without modulo bias (rejection sampling).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
        if span == 0 { return Int(truncatingIfNeeded: next()) }  // the whole Int range
        let threshold = (0 &- span) % span
        // Each try fails with probability < span / 2^64; the bound only guards against a bug.
        let maximumTries = 64
        var draw = next()
        var tries = 1
        while draw < threshold && tries < maximumTries {
            draw = next()
            tries += 1
        }
        return range.lowerBound &+ Int(truncatingIfNeeded: draw % span)
    }

    /// Uniform in [0, 1), 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// True with probability `probability` (0 never, 1 always).
    public mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// An index into `weights`, each chosen in proportion to its weight; nil if no weight is positive.
    public mutating func weightedIndex(_ weights: [Double]) -> Int? {
        let total = weights.reduce(0) { $0 + max($1, 0) }
        guard total > 0 else { return nil }
        var remaining = unit() * total
        var lastPositive: Int?
        for (index, weight) in weights.enumerated() where weight > 0 {
            if remaining < weight { return index }
            remaining -= weight
            lastPositive = index
        }
        return lastPositive  // rounding left a sliver past the last bucket
    }
}
