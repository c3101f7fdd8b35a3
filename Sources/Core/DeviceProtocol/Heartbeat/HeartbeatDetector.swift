import Foundation

/// How a silent writer is judged.
public enum HeartbeatDetector: Sendable, Equatable {
    /// Dead after `thresholdSeconds` without a new beat (seed 004 uses 300 s); late after two
    /// missed intervals.
    case fixed(thresholdSeconds: Double)
    /// Hayashibara et al.'s phi-accrual detector over the observed inter-arrival times: dead when
    /// phi ≥ `threshold` (8 ≈ a 1e-8 chance the writer is alive), late when phi ≥ `lateThreshold`.
    case phiAccrual(threshold: Double, lateThreshold: Double = 1, minStdDevSeconds: Double = 0.05, window: Int = 100)
}

public enum HeartbeatStatus: String, Codable, Sendable {
    case alive, late, dead, restarted
}

/// A status change of one writer, with the device time it was decided at.
public struct HeartbeatTransition: Codable, Equatable, Sendable {
    public var writer: String
    public var from: HeartbeatStatus?
    public var to: HeartbeatStatus
    public var atWallTime: Double
    public var atMonotonicTime: Double
    /// Device seconds since the last beat when decided.
    public var ageSeconds: Double
    public var phi: Double?
    public var pid: Int32
    public var launchId: String
}

/// The pure part of heartbeat monitoring: records and times in, transitions out. No I/O.
public struct HeartbeatClassifier: Sendable {
    public let detector: HeartbeatDetector

    struct WriterState: Sendable {
        var record: HeartbeatRecord
        var status: HeartbeatStatus
        var intervals: [Double] = []
    }

    private(set) var writers: [String: WriterState] = [:]

    public init(detector: HeartbeatDetector) { self.detector = detector }

    public func status(of writer: String) -> HeartbeatStatus? { writers[writer]?.status }

    /// Feeds the latest file content of a writer. Emits `restarted` on a new launch id, and
    /// `alive` when a late/dead writer beats again.
    public mutating func observe(_ r: HeartbeatRecord, wallTime: Double, monotonicTime: Double) -> [HeartbeatTransition] {
        guard var s = writers[r.writer] else {
            writers[r.writer] = WriterState(record: r, status: .alive)
            return [transition(r, nil, .alive, wallTime, monotonicTime, phi: nil)]
        }
        var out: [HeartbeatTransition] = []
        if r.launchId != s.record.launchId {
            out.append(transition(r, s.status, .restarted, wallTime, monotonicTime, phi: nil))
            s = WriterState(record: r, status: .alive)
            out.append(transition(r, .restarted, .alive, wallTime, monotonicTime, phi: nil))
            writers[r.writer] = s
            return out
        }
        guard r.sequence > s.record.sequence else { return [] }
        let gap = (r.monotonicTime - s.record.monotonicTime) / Double(r.sequence - s.record.sequence)
        if gap > 0 && gap.isFinite {
            s.intervals.append(gap)
            if case .phiAccrual(_, _, _, let window) = detector, s.intervals.count > window {
                s.intervals.removeFirst(s.intervals.count - window)
            } else if s.intervals.count > 1000 {
                s.intervals.removeFirst(s.intervals.count - 1000)
            }
        }
        s.record = r
        if s.status != .alive {
            out.append(transition(r, s.status, .alive, wallTime, monotonicTime, phi: nil))
            s.status = .alive
        }
        writers[r.writer] = s
        return out
    }

    /// Re-judges every writer at `monotonicTime` (no new beats needed).
    public mutating func evaluate(wallTime: Double, monotonicTime: Double) -> [HeartbeatTransition] {
        var out: [HeartbeatTransition] = []
        for name in writers.keys.sorted() {
            var s = writers[name]!
            let age = max(0, monotonicTime - s.record.monotonicTime)
            let (next, phi) = judge(s, age: age)
            if next != s.status && !(s.status == .dead && next == .late) {
                out.append(transition(s.record, s.status, next, wallTime, monotonicTime, phi: phi))
                s.status = next
                writers[name] = s
            }
        }
        return out
    }

    func judge(_ s: WriterState, age: Double) -> (HeartbeatStatus, Double?) {
        switch detector {
        case .fixed(let threshold):
            if age > threshold { return (.dead, nil) }
            if age > 2 * s.record.intervalSeconds { return (.late, nil) }
            return (.alive, nil)
        case .phiAccrual(let threshold, let late, let minStd, _):
            let p = Self.phi(age: age, intervals: s.intervals, declared: s.record.intervalSeconds, minStdDev: minStd)
            if p >= threshold { return (.dead, p) }
            if p >= late { return (.late, p) }
            return (.alive, p)
        }
    }

    /// phi = −log10(P(next beat later than `age`)), inter-arrivals ~ Normal(mean, sd).
    /// With fewer than 3 samples the declared interval stands in for the mean.
    public static func phi(age: Double, intervals: [Double], declared: Double, minStdDev: Double) -> Double {
        let mean: Double
        var sd: Double
        if intervals.count >= 3 {
            mean = intervals.reduce(0, +) / Double(intervals.count)
            let v = intervals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(intervals.count - 1)
            sd = v.squareRoot()
        } else {
            mean = declared
            sd = declared / 4
        }
        sd = max(sd, minStdDev)
        let z = (age - mean) / sd
        // P(X > age) = 0.5 * erfc(z / sqrt 2); clamp so phi stays finite.
        let tail = max(0.5 * erfc(z / 2.0.squareRoot()), 1e-300)
        return -log10(tail)
    }

    private func transition(_ r: HeartbeatRecord, _ from: HeartbeatStatus?, _ to: HeartbeatStatus, _ wall: Double, _ mono: Double, phi: Double?) -> HeartbeatTransition {
        HeartbeatTransition(
            writer: r.writer, from: from, to: to, atWallTime: wall, atMonotonicTime: mono,
            ageSeconds: max(0, mono - r.monotonicTime), phi: phi, pid: r.pid, launchId: r.launchId)
    }
}
