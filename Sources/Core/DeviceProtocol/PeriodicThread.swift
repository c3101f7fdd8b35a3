import Foundation

/// A thread that runs `body` every `intervalSeconds` of device time until stopped. Shared by the
/// heartbeat writer and monitor. A stopped process or a clock jump makes it resume from now
/// instead of firing a burst of missed ticks; `stop()` returns within ~20 ms.
package final class PeriodicThread: @unchecked Sendable {
    private let mutex = NSLock()
    private var stopRequested = false
    private var started = false
    private let finished = DispatchSemaphore(value: 0)
    /// Bound on how long `stop()` waits for the body to return.
    static let stopTimeout: DispatchTimeInterval = .seconds(2)

    package init() {}

    package func start(name: String, clock: DeviceClock, intervalSeconds: Double, body: @escaping @Sendable () -> Void) {
        mutex.lock()
        defer { mutex.unlock() }
        guard !started else { return }
        started = true
        let t = Thread { [self] in
            var next = clock.nowUnixSeconds()
            while !isStopRequested {
                body()
                next += intervalSeconds
                let now = clock.nowUnixSeconds()
                if next < now - intervalSeconds { next = now + intervalSeconds }
                clock.sleep(untilUnixSeconds: next, maxSliceSeconds: 0.02) { self.isStopRequested }
            }
            finished.signal()
        }
        t.name = name
        t.start()
    }

    private var isStopRequested: Bool {
        mutex.lock()
        defer { mutex.unlock() }
        return stopRequested
    }

    package func stop() {
        mutex.lock()
        let running = started && !stopRequested
        stopRequested = true
        mutex.unlock()
        if running { _ = finished.wait(timeout: .now() + Self.stopTimeout) }
    }
}
