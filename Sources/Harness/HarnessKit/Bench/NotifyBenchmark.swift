import AppGroup
import CSystemShims
import Foundation
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// Notify round trip between two processes through `DarwinNotificationCenter`, beside the C
/// ping-pong (temp + rename + raw inotify) on the same filesystem, in the same run. The two are
/// interleaved in rounds so that machine noise hits both alike.
public enum NotifyBenchmark {
    public struct Result: Codable, Sendable {
        public var benchmark = "notify"
        public var filesystem: String
        public var directory: String
        /// Ping on CPU 0 and pong on CPU 1 (both sides alike). Unpinned, the scheduler sometimes
        /// puts both on one core, and then latency is the summed CPU work of both sides.
        public var pinnedCPUs: Bool
        public var rounds: Int
        public var iterationsPerRound: Int
        public var ours: LatencyStats
        public var baselineC: LatencyStats
        public var ratioP50: Double
        public var ratioP99: Double
        /// The C ping-pong making the system calls our protocol asks per post and wake (PROTOCOL.md
        /// §4.2: the namespace lock, the header words, unique temp names, no record read when the
        /// name's state is known; one `read` per wake): what the protocol alone costs.
        public var baselineCProtocol: LatencyStats
        /// baselineCProtocol p50 / baselineC p50: the protocol's share of the ratio.
        public var protocolRatioP50: Double
        /// ours p50 / baselineCProtocol p50: what Swift and our code add on top of those calls.
        public var oursOverProtocolP50: Double
        /// The same round trip with the pong side a virtual-time participant: one idle report per
        /// ping through the scheduler FIFO (PROTOCOL.md §9), read by an unpinned thread of the ping
        /// side (the harness's part).
        public var oursWithIdleReports: LatencyStats
        /// oursWithIdleReports p50 / ours p50 − 1.
        public var idleReportOverheadP50: Double
        /// The same ratios round by round (each round runs all four, interleaved): their median,
        /// range and spread — how far the rounds of this run disagree (`RatioSpread`).
        public var ratioP50Rounds: RatioSpread
        public var ratioP99Rounds: RatioSpread
        public var protocolRatioP50Rounds: RatioSpread
        public var oursOverProtocolP50Rounds: RatioSpread
        /// oursWithIdleReports p50 / ours p50, per round.
        public var idleReportRatioP50Rounds: RatioSpread
        public var targets: [String: String]
    }

    /// Per round trip, the most we wait before declaring the peer dead.
    static let roundTripTimeout: Duration = .seconds(2)

    public static func run(
        rootPath: String, iterations: Int, warmup: Int, rounds: Int, pin: Bool,
        pongExecutable: String, pongArguments: (String, Bool) -> [String], baselineExecutable: String,
        progress: (String) -> Void
    ) throws -> Result {
        precondition(iterations > 0 && rounds > 0)
        let base = rootPath + "/bench-notify-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let iterationsEachRound = max(1, iterations / rounds)
        var ours: [Int64] = []
        var idle: [Int64] = []
        var theirs: [Int64] = []
        var protocolC: [Int64] = []
        var fs = "unknown"
        var roundStats: [(ours: LatencyStats, c: LatencyStats, protocolC: LatencyStats, idle: LatencyStats)] = []
        let pin = pin && CPUPinning.allowedCPUs().count >= 2
        // The ping side on CPU 0 for the rounds; the thread gets its own mask back afterwards
        // (`bench all` runs `bench defaults` next on it: it stayed pinned to CPU 0).
        try CPUPinning.pinned(to: pin ? 0 : nil) {
            for r in 0..<rounds {
                progress("notify round \(r + 1)/\(rounds): C baseline")
                theirs += try runBaseline(executable: baselineExecutable, directory: "\(base)/c\(r)", iterations: iterationsEachRound, warmup: warmup, pin: pin)
                progress("notify round \(r + 1)/\(rounds): C with the protocol's system calls")
                protocolC += try runBaseline(
                    executable: baselineExecutable, directory: "\(base)/p\(r)", iterations: iterationsEachRound, warmup: warmup, pin: pin, protocolCalls: true)
                progress("notify round \(r + 1)/\(rounds): DarwinNotificationCenter")
                let (samples, fsType) = try runOurs(directory: "\(base)/ours\(r)", iterations: iterationsEachRound, warmup: warmup, pongExecutable: pongExecutable, pongArguments: { pongArguments($0, pin) })
                ours += samples
                fs = fsType
                progress("notify round \(r + 1)/\(rounds): DarwinNotificationCenter + idle reports")
                let (idleSamples, _) = try runOurs(
                    directory: "\(base)/idle\(r)", iterations: iterationsEachRound, warmup: warmup, pongExecutable: pongExecutable,
                    pongArguments: { pongArguments($0, pin) + ["--idle-reports"] }, idleReports: true)
                idle += idleSamples
                roundStats.append((
                    LatencyStats(samplesNanos: samples), LatencyStats(samplesNanos: Array(theirs.suffix(iterationsEachRound))),
                    LatencyStats(samplesNanos: Array(protocolC.suffix(iterationsEachRound))), LatencyStats(samplesNanos: idleSamples)))
                progress("notify round \(r + 1)/\(rounds): ours p50 \(LatencyStats.micros(LatencyStats(samplesNanos: samples).p50Nanos)) µs, C p50 \(LatencyStats.micros(LatencyStats(samplesNanos: Array(theirs.suffix(iterationsEachRound))).p50Nanos)) µs")
            }
        }
        let o = LatencyStats(samplesNanos: ours)
        let b = LatencyStats(samplesNanos: theirs)
        let i = LatencyStats(samplesNanos: idle)
        let p = LatencyStats(samplesNanos: protocolC)
        func byRound(_ f: (LatencyStats, LatencyStats, LatencyStats, LatencyStats) -> Double) -> RatioSpread {
            RatioSpread(roundStats.map { f($0.ours, $0.c, $0.protocolC, $0.idle) })
        }
        func ratio(_ a: Int64, _ b: Int64) -> Double { Double(a) / Double(max(b, 1)) }
        return Result(
            filesystem: fs, directory: rootPath, pinnedCPUs: pin, rounds: rounds, iterationsPerRound: iterationsEachRound, ours: o, baselineC: b,
            ratioP50: Double(o.p50Nanos) / Double(b.p50Nanos), ratioP99: Double(o.p99Nanos) / Double(b.p99Nanos),
            baselineCProtocol: p, protocolRatioP50: Double(p.p50Nanos) / Double(b.p50Nanos), oursOverProtocolP50: Double(o.p50Nanos) / Double(p.p50Nanos),
            oursWithIdleReports: i, idleReportOverheadP50: Double(i.p50Nanos) / Double(o.p50Nanos) - 1,
            ratioP50Rounds: byRound { o, c, _, _ in ratio(o.p50Nanos, c.p50Nanos) }, ratioP99Rounds: byRound { o, c, _, _ in ratio(o.p99Nanos, c.p99Nanos) },
            protocolRatioP50Rounds: byRound { _, c, p, _ in ratio(p.p50Nanos, c.p50Nanos) },
            oursOverProtocolP50Rounds: byRound { o, _, p, _ in ratio(o.p50Nanos, p.p50Nanos) },
            idleReportRatioP50Rounds: byRound { o, _, _, i in ratio(i.p50Nanos, o.p50Nanos) },
            targets: ["ratioP50": "<= 1.15", "ratioP99": "<= 1.3", "oursP99Micros(tmpfs)": "<= 1000", "idleReportOverheadP50": "<= 0.05"])
    }

    static func runBaseline(executable: String, directory: String, iterations: Int, warmup: Int, pin: Bool, protocolCalls: Bool = false) throws -> [Int64] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let child = try ChildProcess.spawn(
            executable, [directory, String(iterations), String(warmup)] + (pin ? ["pin"] : []) + (protocolCalls ? ["protocol"] : []))
        var out: [Int64] = []
        let budget = Duration.seconds(5) + roundTripTimeout * Double(min(iterations + warmup, 1000))
        let deadline = ContinuousClock.now.advanced(by: budget)
        while out.count < iterations, ContinuousClock.now < deadline, let line = child.readLine(timeout: deadline - ContinuousClock.now) {
            if let v = Int64(line) { out.append(v) }
        }
        let status = child.wait(timeout: .seconds(5)) ?? child.killAndReap()
        guard out.count == iterations, status == .exited(0) else {
            throw BenchError("C baseline\(protocolCalls ? " (protocol)" : "") produced \(out.count)/\(iterations) samples (\(status.map { "\($0)" } ?? "still running"))")
        }
        return out
    }

    final class PingState: @unchecked Sendable {
        let mutex = NSLock()
        var samples: [Int64] = []
        var sent: UInt64 = 0
        var remaining: Int
        let warmup: Int
        let done = DispatchSemaphore(value: 0)
        init(total: Int, warmup: Int) {
            remaining = total
            self.warmup = warmup
            samples.reserveCapacity(total)
        }
    }

    static func runOurs(
        directory: String, iterations: Int, warmup: Int, pongExecutable: String, pongArguments: (String) -> [String],
        idleReports: Bool = false
    ) throws -> ([Int64], String) {
        let root = try DeviceRoot(path: directory)
        let center = try DarwinNotificationCenter(deviceRoot: root)
        defer { center.shutdown() }
        // As the harness does under virtual time: hold the scheduler FIFO and read every report.
        let inbox = idleReports ? try SchedulerInbox(deviceRoot: root) : nil
        let reader = ReaderFlag()
        defer { reader.stop() }
        if let inbox {
            Thread {
                // The reader plays the harness, a process of its own that no one pins: it runs on
                // whichever CPU is free, not on the ping's (where it would take the ping's CPU at
                // every report and measure that contention instead of the report's cost).
                _ = sth_unpin()
                while !reader.stopped { reader.count(inbox.read(timeoutMillis: 50).count) }
            }.start()
        }
        let pong = try ChildProcess.spawn(pongExecutable, pongArguments(directory))
        defer { pong.killAndReap() }
        guard pong.readLine(timeout: .seconds(10)) == "ready" else { throw BenchError("pong process did not start") }
        let total = iterations + warmup
        let st = PingState(total: total, warmup: warmup)
        // The loop runs in the callback: pong arrives → record → post the next ping. This is the
        // round trip an app sees; a thread hop per message would measure the hop instead.
        try center.addObserver("bench.pong") { _ in
            let t = DispatchTime.now().uptimeNanoseconds
            st.mutex.lock()
            let idx = total - st.remaining
            if idx >= st.warmup { st.samples.append(Int64(t - st.sent)) }
            st.remaining -= 1
            let more = st.remaining > 0
            if more { st.sent = DispatchTime.now().uptimeNanoseconds }
            st.mutex.unlock()
            if more { try? center.post("bench.ping") } else { st.done.signal() }
        }
        st.mutex.lock()
        st.sent = DispatchTime.now().uptimeNanoseconds
        st.mutex.unlock()
        try center.post("bench.ping")
        let budgetMs = 10_000 + total * 20
        guard st.done.wait(timeout: .now() + .milliseconds(budgetMs)) == .success else {
            st.mutex.lock()
            let left = st.remaining
            st.mutex.unlock()
            throw BenchError("notify ping-pong stalled with \(left) of \(total) round trips left")
        }
        return (st.samples, root.filesystemType)
    }

    final class ReaderFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var stopRequested = false
        private(set) var reports = 0
        var stopped: Bool { lock.lock(); defer { lock.unlock() }; return stopRequested }
        func stop() { lock.lock(); stopRequested = true; lock.unlock() }
        func count(_ n: Int) { lock.lock(); reports += n; lock.unlock() }
    }

    /// The other side: observe `bench.ping`, post `bench.pong`. Runs until killed. With
    /// `idleReports`, it reports idle after each ping like a virtual-time participant.
    public static func pong(rootPath: String, pinToCPU: Int?, idleReports: Bool = false) throws -> Never {
        if let cpu = pinToCPU { _ = sth_pin_to_cpu(Int32(cpu)) }
        let root = try DeviceRoot(path: rootPath)
        let center = try DarwinNotificationCenter(deviceRoot: root)
        let channel = idleReports ? SchedulerChannel.open(deviceRoot: root) : nil
        if idleReports && channel == nil { throw BenchError("no scheduler FIFO under \(rootPath)") }
        try center.addObserver("bench.ping") { _ in
            try? center.post("bench.pong")
            channel?.reportIdle(nextUnixSeconds: nil, http: [:], consumed: ["bench.ping": center.lastDelivered("bench.ping") ?? 0])
        }
        let line = "ready\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress!, $0.count - 1) }
        while true { sleep(1000) }
    }
}

public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
