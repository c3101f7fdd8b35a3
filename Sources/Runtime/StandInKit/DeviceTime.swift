import AppGroup
import CDeviceTime
import Foundation

/// Makes `Date()` in app code the device's time (docs/PROTOCOL.md §2) — what a seed's Swift reads
/// on a phone — without editing it: `CDeviceTime` interposes `clock_gettime(CLOCK_REALTIME)` for
/// the threads that run app code, which `AppRunner` (each input handed to the adapter) and
/// `FrameworkExtension` (the one call to the principal object) enter. The stand-in's own
/// machinery (waits, locks, timeouts) keeps the real clocks. Work app code moves to another
/// thread (a dispatch queue) reads the real time: run the seed's code on the calling thread.
/// A timed wait in app code (`DispatchSemaphore.wait(timeout:)`, `NSCondition.wait(until:)`, …)
/// computes its deadline from device time; the interposer hands the kernel the real deadline just
/// as far away, so it waits the wall time it asks for (PROTOCOL.md §2, "Waits in app code").
public enum DeviceTime {
    nonisolated(unsafe) static var clock: DeviceClock?

    /// The device clock app code reads from now on (once per process, at start-up).
    public static func install(_ clock: DeviceClock) {
        Self.clock = clock
        sth_device_time_set_source { DeviceTime.clock?.nowUnixSeconds() ?? -1 }
    }

    /// Runs `body` as app code: `Date()` on this thread is device time inside it.
    public static func asAppCode<T>(_ body: () throws -> T) rethrows -> T {
        sth_device_time_enter()
        defer { sth_device_time_leave() }
        return try body()
    }

    /// Whether this thread runs app code now.
    public static var isAppCode: Bool { sth_device_time_active() != 0 }
}
