import DeviceProtocol
import FaultInjection
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Stamps `{pid, launch id, sequence, wall time, monotonic time}` into the container every
/// `intervalSeconds` of device time, by temp + rename, from a thread of its own.
public final class HeartbeatWriter: @unchecked Sendable {
    public let writer: String
    public let intervalSeconds: Double
    public let launchId: String
    let directory: SafeDirectory
    let clock: DeviceClock
    private let mutex = NSLock()
    private var sequence: UInt64 = 0
    private let loop = PeriodicThread()
    public var onError: (@Sendable (Error) -> Void)?

    public init(container: AppGroupContainer, writer: String, intervalSeconds: Double, clock: DeviceClock) throws {
        try SafeDirectory.validate(component: writer + ".json")
        precondition(intervalSeconds > 0, "heartbeat interval must be positive")
        self.writer = writer
        self.intervalSeconds = intervalSeconds
        self.clock = clock
        self.launchId = UUID().uuidString.lowercased()
        self.directory = try container.subdirectory(HeartbeatRecord.directoryName)
    }

    /// Writes one heartbeat now.
    public func beat() throws {
        try CrashPoints.pass("heartbeat:" + writer)
        mutex.lock()
        let seq = sequence
        sequence += 1
        mutex.unlock()
        let r = HeartbeatRecord(
            writer: writer, pid: StandInEnvironment.processID, launchId: launchId, sequence: seq,
            wallTime: clock.nowUnixSeconds(), monotonicTime: clock.monotonicSeconds(), intervalSeconds: intervalSeconds)
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        try directory.writeAtomically(writer + ".json", bytes: Array(try enc.encode(r)), fsync: false)
    }

    public func start() {
        loop.start(name: "screentime.heartbeat.\(writer)", clock: clock, intervalSeconds: intervalSeconds) { [self] in
            do { try beat() } catch { onError?(error) }
        }
    }

    /// Stops the writer; returns within ~20 ms.
    public func stop() { loop.stop() }
}
