import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one clock every stand-in reads (PROTOCOL.md §2).
///
/// Real time when `<root>/clock` is absent. When present, virtual time, identical in every process.
/// In the fixed-rate mode:
///
///     now = epochUnixSeconds + offsetSeconds + (CLOCK_MONOTONIC − anchorMonotonicNanos)/1e9 × rate
///
/// CLOCK_MONOTONIC is system-wide on Linux, so all processes agree without talking. In the stepped
/// mode (`"mode": "stepped"`, PROTOCOL.md §9) time stands still at `epochUnixSeconds +
/// offsetSeconds` until the harness, the clock's only writer, moves it to the next deadline. The
/// harness moves the clock by rewriting the file (temp + rename; nothing is posted: a participant
/// learns of its own deadline from `system.wake.<pid>`); readers re-validate with one `fstatat`, or,
/// in a process the harness started, with one look at the sequence of its `ClockPage`.
public final class DeviceClock: @unchecked Sendable {
    public struct Configuration: Codable, Equatable, Sendable {
        public var version: Int = 1
        /// Virtual unix time at the anchor.
        public var epochUnixSeconds: Double
        /// CLOCK_MONOTONIC (ns) at which virtual time was `epochUnixSeconds`.
        public var anchorMonotonicNanos: UInt64
        /// Virtual seconds per real second (600 = ten virtual minutes per real second).
        public var rate: Double
        /// A jump added on top (the harness "moves the clock").
        public var offsetSeconds: Double
        /// IANA identifier, e.g. "Europe/Berlin".
        public var timeZone: String
        /// nil (fixed rate) or "stepped": time moves only when the harness moves it.
        public var mode: String?

        public static let steppedMode = "stepped"

        public init(epochUnixSeconds: Double, anchorMonotonicNanos: UInt64 = DeviceClock.monotonicNanos(), rate: Double, offsetSeconds: Double = 0, timeZone: String = "UTC", mode: String? = nil) {
            self.epochUnixSeconds = epochUnixSeconds
            self.anchorMonotonicNanos = anchorMonotonicNanos
            self.rate = rate
            self.offsetSeconds = offsetSeconds
            self.timeZone = timeZone
            self.mode = mode
        }

        /// A stepped clock at `epochUnixSeconds`.
        public static func stepped(at epochUnixSeconds: Double, timeZone: String) -> Configuration {
            Configuration(epochUnixSeconds: epochUnixSeconds, anchorMonotonicNanos: 0, rate: 0, timeZone: timeZone, mode: steppedMode)
        }

        public var isStepped: Bool { mode == Self.steppedMode }

        /// Bounds: in the fixed-rate mode a rate of 0 would freeze time and make every timer wait
        /// forever (the stepped mode is the way to stop time).
        public static let rateRange: ClosedRange<Double> = 0.001...100_000
        /// Device time is a unix time in 1970-01-01 ... 9999-12-31T23:59:59Z (what ISO 8601 and
        /// every calendar here can print); `epochUnixSeconds`, `offsetSeconds` and their sum stay in it.
        public static let unixSecondsRange: ClosedRange<Double> = 0...253_402_300_799
        public static let maxTimeZoneBytes = 64
        /// How far in the future of this process's CLOCK_MONOTONIC an anchor may lie: the harness
        /// reads CLOCK_MONOTONIC just before writing, and it is system-wide.
        public static let anchorSlackNanos: UInt64 = 1_000_000_000

        /// Every field bounded (PROTOCOL.md §2); a clock file that breaks one is malformed.
        /// `knownTimeZone`: an identifier already found valid (a reader re-validates the clock at
        /// every step of virtual time, and building a `TimeZone` is the costly part).
        public func validate(monotonicNow: UInt64 = DeviceClock.monotonicNanos(), knownTimeZone: String? = nil) throws {
            func bad(_ reason: String) -> AppGroupError { .malformedFile(path: "clock", reason: reason) }
            guard version == 1 else { throw bad("unknown version \(version)") }
            guard mode == nil || isStepped else { throw bad("unknown mode \(mode ?? "")") }
            guard epochUnixSeconds.isFinite, Self.unixSecondsRange.contains(epochUnixSeconds) else {
                throw bad("epochUnixSeconds \(epochUnixSeconds) is outside \(Self.unixSecondsRange)")
            }
            guard offsetSeconds.isFinite, abs(offsetSeconds) <= Self.unixSecondsRange.upperBound,
                Self.unixSecondsRange.contains(epochUnixSeconds + offsetSeconds)
            else {
                throw bad("offsetSeconds \(offsetSeconds) puts device time outside \(Self.unixSecondsRange)")
            }
            if isStepped {
                guard rate.isFinite, rate >= 0, rate <= Self.rateRange.upperBound else { throw bad("rate \(rate) is outside 0...\(Self.rateRange.upperBound)") }
            } else {
                guard Self.rateRange.contains(rate) else { throw bad("rate \(rate) is outside \(Self.rateRange)") }
                guard anchorMonotonicNanos <= monotonicNow &+ Self.anchorSlackNanos, anchorMonotonicNanos <= UInt64(Int64.max) else {
                    throw bad("anchorMonotonicNanos \(anchorMonotonicNanos) is in the future of CLOCK_MONOTONIC (\(monotonicNow))")
                }
                let elapsed = Double(monotonicNow > anchorMonotonicNanos ? monotonicNow - anchorMonotonicNanos : 0) / 1e9
                guard Self.unixSecondsRange.contains(epochUnixSeconds + offsetSeconds + elapsed * rate) else {
                    throw bad("device time now would be outside \(Self.unixSecondsRange)")
                }
            }
            guard timeZone.utf8.count <= Self.maxTimeZoneBytes, timeZone == knownTimeZone || TimeZone(identifier: timeZone) != nil else {
                throw bad("unknown time zone \(String(reflecting: String(timeZone.prefix(Self.maxTimeZoneBytes))))")
            }
        }
    }

    public static let fileName = "clock"
    static let maxFileBytes = 4096

    public let deviceRoot: DeviceRoot?
    private let mutex = NSLock()
    private var cached: Configuration?
    private var cachedStamp: (UInt64, Int64, Int64)?
    private var lastError: String?
    /// The last time zone identifier that validated, and its `TimeZone`.
    private var knownTimeZone: (identifier: String, zone: TimeZone)?

    /// A clock reading `<root>/clock`; `nil` root = always real time.
    public init(deviceRoot: DeviceRoot?) { self.deviceRoot = deviceRoot }

    /// The page the harness gave this process, when it belongs to this clock's root (looked up
    /// once; the mutex is held).
    private var page: (page: ClockPage, root: (dev: UInt64, ino: UInt64))??
    private var pageCache: (sequence: UInt64, configuration: Configuration?)?

    private func inheritedPage() -> (page: ClockPage, root: (dev: UInt64, ino: UInt64))? {
        if let page { return page }
        var found: (page: ClockPage, root: (dev: UInt64, ino: UInt64))?
        if let p = ClockPage.inherited ?? ClockPage.givenToThisThread(), let root = deviceRoot, let identity = ClockPage.identity(of: root) {
            found = (p, identity)
        }
        page = .some(found)
        return found
    }

    public static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The configuration in force, or nil for real time. A malformed clock file is reported once
    /// on stderr and treated as absent (real time): a clock must always answer.
    public func configuration() -> Configuration? {
        guard let root = deviceRoot else { return nil }
        mutex.lock()
        defer { mutex.unlock() }
        if let (page, rootIdentity) = inheritedPage() {
            // The harness's page: nothing to do while its sequence stands (ClockPage). "No clock"
            // and anything that does not validate are left to the file.
            let sequence = page.sequence
            if let c = pageCache, c.sequence == sequence { return c.configuration }
            if let (sequence, found) = page.read(rootIdentity: rootIdentity), let cfg = found,
                (try? cfg.validate(knownTimeZone: knownTimeZone?.identifier)) != nil
            {
                if knownTimeZone?.identifier != cfg.timeZone, let zone = TimeZone(identifier: cfg.timeZone) {
                    knownTimeZone = (cfg.timeZone, zone)
                }
                pageCache = (sequence, cfg)
                return cfg
            }
        }
        guard let st = try? root.directory.statEntry(Self.fileName) else {
            cached = nil
            cachedStamp = nil
            return nil
        }
        let stamp = (UInt64(st.st_ino), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec), Int64(st.st_size))
        if let c = cachedStamp, c == stamp { return cached }
        do {
            guard let bytes = try root.directory.readFile(Self.fileName, limitBytes: Self.maxFileBytes) else { return nil }
            let cfg = try Configuration.decode(bytes)
            try cfg.validate(knownTimeZone: knownTimeZone?.identifier)
            if knownTimeZone?.identifier != cfg.timeZone, let zone = TimeZone(identifier: cfg.timeZone) {
                knownTimeZone = (cfg.timeZone, zone)
            }
            cached = cfg
            cachedStamp = stamp
            lastError = nil
            return cfg
        } catch {
            let msg = "\(error)"
            if msg != lastError {
                FileHandle.standardError.write(Data("screentime: ignoring malformed \(root.path)/clock (using real time): \(msg)\n".utf8))
                lastError = msg
            }
            return nil
        }
    }

    /// Virtual (or real) unix time, in seconds.
    public func nowUnixSeconds() -> Double {
        guard let c = configuration() else { return Date().timeIntervalSince1970 }
        if c.isStepped { return c.epochUnixSeconds + c.offsetSeconds }
        let elapsed = Double(Int64(bitPattern: Self.monotonicNanos() &- c.anchorMonotonicNanos)) / 1e9
        return c.epochUnixSeconds + c.offsetSeconds + elapsed * c.rate
    }

    public func now() -> Date { Date(timeIntervalSince1970: nowUnixSeconds()) }

    /// Virtual monotonic seconds: real CLOCK_MONOTONIC scaled by the rate (unaffected by offset jumps).
    public func monotonicSeconds() -> Double {
        let mono = Double(Self.monotonicNanos()) / 1e9
        guard let c = configuration() else { return mono }
        // Stepped: the harness only ever moves epochUnixSeconds forward.
        if c.isStepped { return c.epochUnixSeconds }
        return Double(c.anchorMonotonicNanos) / 1e9 + (mono - Double(c.anchorMonotonicNanos) / 1e9) * c.rate
    }

    public var rate: Double { configuration()?.rate ?? 1 }

    /// True while the harness steps time (PROTOCOL.md §9): timers fire only when it moves the clock.
    public var isStepped: Bool { configuration()?.isStepped ?? false }

    public var timeZone: TimeZone {
        guard let c = configuration() else { return TimeZone(identifier: "UTC")! }
        mutex.lock()
        defer { mutex.unlock() }
        if let k = knownTimeZone, k.identifier == c.timeZone { return k.zone }
        return TimeZone(identifier: c.timeZone) ?? TimeZone(identifier: "UTC")!
    }

    /// Real seconds that `virtualSeconds` of device time take at the current rate; infinite when
    /// time is stepped (it passes only when the harness moves it).
    public func realSeconds(forVirtual virtualSeconds: Double) -> Double {
        guard let c = configuration() else { return virtualSeconds }
        return c.isStepped ? .infinity : virtualSeconds / c.rate
    }

    /// Sleeps until device time reaches `deadline`, re-reading the clock at least every
    /// `maxSliceSeconds` of real time so a harness jump or rate change takes effect.
    /// Returns early (false) when `cancelled()` turns true.
    @discardableResult
    public func sleep(untilUnixSeconds deadline: Double, maxSliceSeconds: Double = 0.05, cancelled: () -> Bool = { false }) -> Bool {
        while true {
            if cancelled() { return false }
            let remaining = deadline - nowUnixSeconds()
            if remaining <= 0 { return true }
            let real = min(realSeconds(forVirtual: remaining), maxSliceSeconds)
            usleep(UInt32(max(real * 1e6, 50)))
        }
    }

    /// Writes `<root>/clock` atomically (temp + rename; the harness's job) and returns the bytes
    /// it holds now. `knownTimeZone`: an identifier the caller already found valid (see `validate`).
    @discardableResult
    public static func write(_ cfg: Configuration, to root: DeviceRoot, knownTimeZone: String? = nil) throws -> [UInt8] {
        try cfg.validate(knownTimeZone: knownTimeZone)
        let bytes = try cfg.encoded()
        try root.directory.writeAtomically(fileName, bytes: bytes, fsync: false)
        return bytes
    }

    public static func remove(from root: DeviceRoot) { root.directory.remove(fileName) }
}
