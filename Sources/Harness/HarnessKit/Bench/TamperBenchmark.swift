import AppGroup
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How soon the run's tamper check finds a file planted in the device root, watched (events) and
/// scanned (the 20 ms look at the whole root, `STH_TAMPER_DETECTION=scan`), in one run of the
/// benchmark: the check called as the run's main loop calls it (once per turn; a turn every
/// millisecond here, the fixed-rate loop's tick), while a writer thread does what participants do
/// (notify posts, suite writes, `system/` records), and a file planted in one area after another.
public enum TamperBenchmark {
    public struct Latency: Codable, Sendable {
        public var mode: String
        public var samples: Int
        public var p50Micros: Double
        public var p99Micros: Double
        public var maxMicros: Double
        /// Every sample found, naming the planted file.
        public var allFound: Bool
    }

    /// Where files are planted, in turn: one per area of the root.
    static let plants = [
        "notify/planted", "containers/group.bench/Library/Preferences/group.bench.plist", "containers/group.bench/Heartbeats/host.json",
        "sandboxes/host/Library/Preferences/standard.plist", "system/deviceactivity/planted.json",
    ]

    /// `samples` plants per mode, modes alternating (watched, scanned, watched, ...).
    public static func latency(rootPath: String, samples: Int, progress: (String) -> Void) throws -> [Latency] {
        let fm = FileManager.default
        try? fm.removeItem(atPath: rootPath)
        let root = try DeviceRoot(path: rootPath)
        defer { try? fm.removeItem(atPath: rootPath) }
        for dir in ["notify", "containers/group.bench/Library/Preferences", "containers/group.bench/Heartbeats", "sandboxes/host/Library/Preferences", "system/deviceactivity"] {
            try fm.createDirectory(atPath: rootPath + "/" + dir, withIntermediateDirectories: true)
        }
        let group = "group.bench"
        let container = try AppGroupContainer(deviceRoot: root, groupIdentifier: group, entitlements: Entitlements(appGroups: [group]))
        let suite = try SharedDefaults(container: container, suiteName: group)
        try suite.setValues(["n": 0])
        let center = try DarwinNotificationCenter(deviceRoot: root)
        // The participants' side: a post, a suite write and a system/ record every 2 ms.
        let stop = Atomic(false)
        let writer = Thread {
            var i = 0
            while !stop.value {
                try? center.post("bench.n\(i % 8)")
                try? suite.setValues(["n": i])
                try? root.directory.directory("system/deviceactivity", create: false).writeAtomically("a\(i % 4).json", bytes: Array("{\"i\":\(i)}".utf8), fsync: false)
                i += 1
                usleep(2000)
            }
        }
        writer.start()
        defer {
            stop.value = true
            while !writer.isFinished { usleep(1000) }
        }
        var nanos: [String: [Int64]] = ["watched": [], "scanned": []]
        var allFound: [String: Bool] = ["watched": true, "scanned": true]
        var rng = SystemRandomNumberGenerator()
        for n in 0..<(2 * samples) {
            let mode = n % 2 == 0 ? "watched" : "scanned"
            // The run's first check (a full look) and a few turns, as a run begins — on a root
            // with nothing foreign left from the last plant (the writer may still record the suite
            // it found planted over: then the start is tried again).
            var tamper: DeviceRootTamper!
            for _ in 0..<20 {
                try? fm.removeItem(atPath: rootPath + "/" + DeviceRoot.quarantineFileName)
                tamper = DeviceRootTamper(root: root, tornWritesPlanned: false, environment: mode == "scanned" ? [DeviceRootTamper.detectionVariable: "scan"] : [:])
                var clean = true
                for _ in 0..<5 {
                    if tamper.check(nowNanos: now()) != nil { clean = false }
                    usleep(1000)
                }
                if clean { break }
                usleep(10_000)
            }
            // Planted at a uniformly random moment of the scan's 20 ms period, the check going on
            // every turn meanwhile, as in a run.
            let until = now() + Int64.random(in: 0..<40_000_000, using: &rng)
            while now() < until {
                _ = tamper.check(nowNanos: now())
                usleep(1000)
            }
            let plant = plants[(n / 2) % plants.count]
            let path = rootPath + "/" + plant
            let beside = PathText.directory(of: path) + "/.bench-plant"
            try Data("\u{1}planted, not what any participant writes".utf8).write(to: URL(fileURLWithPath: beside))
            let t0 = now()
            guard rename(beside, path) == 0 else { throw AppGroupError.io(operation: "rename", path: path, errno: errno) }
            var found: (file: String, what: String)?
            while found == nil && now() - t0 < 2_000_000_000 {
                found = tamper.check(nowNanos: now())
                if found == nil { usleep(1000) }
            }
            let t1 = now()
            if found?.file != plant { allFound[mode] = false }
            nanos[mode]!.append(t1 - t0)
            try? fm.removeItem(atPath: path)
            // A suite that was planted over: the writer's next write puts one of its own back and
            // records what it found; the next sample's run starts with no quarantine.
            if plant.hasSuffix("group.bench.plist") { try suite.setValues(["n": -1]) }
            if n % 20 == 19 { progress("tamper latency: \(n + 1) of \(2 * samples) plants") }
        }
        return ["watched", "scanned"].map { mode in
            let sorted = nanos[mode]!.sorted()
            func q(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000 }
            return Latency(mode: mode, samples: sorted.count, p50Micros: q(0.5), p99Micros: q(0.99), maxMicros: Double(sorted.last ?? 0) / 1000, allFound: allFound[mode]!)
        }
    }

    static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }

    /// CPU time of this process (every thread), seconds.
    public static func cpuSeconds() -> Double { CPUTime.ownSeconds }

    final class Atomic: @unchecked Sendable {
        private let lock = NSLock()
        private var v: Bool
        init(_ v: Bool) { self.v = v }
        var value: Bool {
            get { lock.lock(); defer { lock.unlock() }; return v }
            set { lock.lock(); v = newValue; lock.unlock() }
        }
    }
}
