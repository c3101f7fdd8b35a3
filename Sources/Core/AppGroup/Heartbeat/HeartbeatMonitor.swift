import DeviceProtocol
import Foundation

/// Reads every writer's heartbeat file in a container and classifies it (alive / late / dead /
/// restarted), emitting transitions with timestamps.
public final class HeartbeatMonitor: @unchecked Sendable {
    let directory: SafeDirectory
    let clock: DeviceClock
    private var classifier: HeartbeatClassifier
    private let mutex = NSLock()
    private let loop = PeriodicThread()
    /// Files that could not be parsed (a writer mid-upgrade, a planted file): reported, skipped.
    public private(set) var unreadable: [String: String] = [:]

    public init(container: AppGroupContainer, detector: HeartbeatDetector, clock: DeviceClock) throws {
        self.directory = try container.subdirectory(HeartbeatRecord.directoryName)
        self.clock = clock
        self.classifier = HeartbeatClassifier(detector: detector)
    }

    public func status(of writer: String) -> HeartbeatStatus? {
        mutex.lock()
        defer { mutex.unlock() }
        return classifier.status(of: writer)
    }

    /// One pass: read all heartbeat files, then judge every writer at the current device time.
    public func poll() -> [HeartbeatTransition] {
        var records: [HeartbeatRecord] = []
        var bad: [String: String] = [:]
        for name in ((try? directory.entries(limit: 10_000)) ?? []).sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            do {
                guard let bytes = try directory.readFile(name, limitBytes: HeartbeatRecord.maxFileBytes) else { continue }
                records.append(try HeartbeatRecord.decode(bytes, fileName: name))
            } catch {
                bad[name] = "\(error)"
            }
        }
        let wall = clock.nowUnixSeconds()
        let mono = clock.monotonicSeconds()
        mutex.lock()
        defer { mutex.unlock() }
        unreadable = bad
        var out: [HeartbeatTransition] = []
        for r in records { out += classifier.observe(r, wallTime: wall, monotonicTime: mono) }
        out += classifier.evaluate(wallTime: wall, monotonicTime: mono)
        return out
    }

    /// Polls every `pollIntervalSeconds` of device time on its own thread until `stop()`.
    public func start(pollIntervalSeconds: Double, onTransition: @escaping @Sendable (HeartbeatTransition) -> Void) {
        loop.start(name: "screentime.heartbeat-monitor", clock: clock, intervalSeconds: pollIntervalSeconds) { [self] in
            for tr in poll() { onTransition(tr) }
        }
    }

    public func stop() { loop.stop() }
}
