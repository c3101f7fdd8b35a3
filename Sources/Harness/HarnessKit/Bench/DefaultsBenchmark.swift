import AppGroup
import Foundation

/// SharedDefaults set/get latency beside `Data.write(options: .atomic)` of the same plist (and a
/// Foundation read+decode for gets), in the same run on the same filesystem.
public enum DefaultsBenchmark {
    public struct Result: Codable, Sendable {
        public var benchmark = "defaults"
        public var filesystem: String
        public var directory: String
        public var iterations: Int
        public var suiteBytes: Int
        /// `set(_:forKey:)`: lock, validate cache, encode, temp + fsync + rename, bump generation.
        public var set: LatencyStats
        /// `integer(forKey:)` when nothing changed: generation + stat check, no parse.
        public var getCached: LatencyStats
        /// `integer(forKey:)` right after another instance wrote: check + read + parse.
        public var getAfterExternalWrite: LatencyStats
        /// Baseline: `Data.write(to:options: .atomic)` of the same encoded plist.
        public var baselineAtomicWrite: LatencyStats
        /// Baseline: `Data(contentsOf:)` + `PropertyListSerialization` decode of the same file.
        public var baselineFoundationRead: LatencyStats
        public var ratioSetP50: Double
        /// set / `Data.write(.atomic)` p50 round by round (the two interleaved in `rounds` rounds).
        public var ratioSetP50Rounds: RatioSpread
        public var targets: [String: String]
    }

    static func seedLikeSuite() -> [String: Any] {
        [
            "focuspledge_active_session_id": "session-7f3a9c", "focuspledge_session_start_time": 1_771_300_000.0,
            "focuspledge_session_end_time": 1_771_303_600.0, "focuspledge_session_failed": false,
            "focuspledge_failure_reason": "app_opened", "focuspledge_failure_timestamp": 1_771_301_234.5,
            "focuspledge_blocked_apps_tokens": Data(repeating: 0xA5, count: 256), "counter": 0,
        ]
    }

    static func timed(_ n: Int, _ body: (Int) throws -> Void) rethrows -> [Int64] {
        var out: [Int64] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let t0 = DispatchTime.now().uptimeNanoseconds
            try body(i)
            out.append(Int64(DispatchTime.now().uptimeNanoseconds - t0))
        }
        return out
    }

    /// Rounds of set and `Data.write(.atomic)` in turn: noise hits both alike, and the rounds'
    /// spread says how much the ratio can be trusted.
    public static let rounds = 10

    public static func run(rootPath: String, iterations: Int, progress: (String) -> Void) throws -> Result {
        let dir = rootPath + "/bench-defaults-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let root = try DeviceRoot(path: dir)
        let group = "group.bench"
        let c = try AppGroupContainer(deviceRoot: root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        let d = try SharedDefaults(container: c, suiteName: group)
        let other = try SharedDefaults(container: c, suiteName: group)
        try d.setValues(seedLikeSuite())
        let warm = min(200, iterations)
        // set and the baseline's atomic write of the same bytes, interleaved in rounds.
        let path = c.url.appendingPathComponent("Library/Preferences/\(group).plist")
        let baseURL = c.url.appendingPathComponent("baseline.plist")
        _ = try timed(warm) { try d.store($0, forKey: "counter") }
        let bytes = try Data(contentsOf: path)
        _ = try timed(warm) { _ in try bytes.write(to: baseURL, options: .atomic) }
        var set: [Int64] = [], baseWrite: [Int64] = [], setRatios: [Double] = []
        let each = max(1, iterations / Self.rounds)
        for r in 0..<Self.rounds {
            progress("defaults round \(r + 1)/\(Self.rounds): set x\(each), Data.write(.atomic) x\(each)")
            let s = try timed(each) { try d.store(r * each + $0, forKey: "counter") }
            let b = try timed(each) { _ in try bytes.write(to: baseURL, options: .atomic) }
            set += s
            baseWrite += b
            setRatios.append(Double(LatencyStats(samplesNanos: s).p50Nanos) / Double(max(1, LatencyStats(samplesNanos: b).p50Nanos)))
        }
        progress("defaults: get x\(iterations)")
        var sink = 0
        let getCached = timed(iterations) { _ in sink &+= d.integer(forKey: "counter") }
        progress("defaults: get after external write x\(iterations)")
        var getAfter: [Int64] = []
        for i in 0..<iterations {
            try other.store(i, forKey: "counter")
            let t0 = DispatchTime.now().uptimeNanoseconds
            sink &+= d.integer(forKey: "counter")
            getAfter.append(Int64(DispatchTime.now().uptimeNanoseconds - t0))
        }
        // The read baseline on the same bytes, same filesystem.
        progress("defaults: baseline Data(contentsOf:) + decode x\(iterations)")
        let baseRead = try timed(iterations) { _ in
            let data = try Data(contentsOf: baseURL)
            _ = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        }
        if sink == Int.min { print("") }  // keep the reads from being optimised away
        let s = LatencyStats(samplesNanos: set)
        let b = LatencyStats(samplesNanos: baseWrite)
        return Result(
            filesystem: root.filesystemType, directory: rootPath, iterations: set.count, suiteBytes: bytes.count,
            set: s, getCached: LatencyStats(samplesNanos: getCached), getAfterExternalWrite: LatencyStats(samplesNanos: getAfter),
            baselineAtomicWrite: b, baselineFoundationRead: LatencyStats(samplesNanos: baseRead),
            ratioSetP50: Double(s.p50Nanos) / Double(b.p50Nanos), ratioSetP50Rounds: RatioSpread(setRatios), targets: ["setP50Micros(tmpfs)": "<= 50"])
    }
}
