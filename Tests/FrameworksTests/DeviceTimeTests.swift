import AppGroup
import Foundation
import StandInKit
import Testing

/// `Date()` in app code is the device's time (PROTOCOL.md §2), everywhere else the host's.
@Suite(.serialized, .timeLimit(.minutes(1))) struct DeviceTimeTests {
    @Test func dateIsDeviceTimeOnlyInsideAppCodeAndOnlyOnItsThread() throws {
        let t = try TestDevice()  // device time: 2026-03-02 08:00 UTC, at real rate
        DeviceTime.install(DeviceClock(deviceRoot: t.device.root))
        let device = DeviceClock(deviceRoot: t.device.root).nowUnixSeconds()
        let host = Date().timeIntervalSince1970
        #expect(abs(host - device) > 3600, "the test needs the two clocks apart")
        #expect(!DeviceTime.isAppCode)
        let inside = DeviceTime.asAppCode { Date().timeIntervalSince1970 }
        #expect(abs(inside - device) < 5)
        // Nested, and the thread's flag only: another thread keeps the host's time.
        let (nested, other) = DeviceTime.asAppCode {
            let nested = DeviceTime.asAppCode { Date().timeIntervalSince1970 }
            final class Box: @unchecked Sendable { var value = 0.0 }
            let other = Box()
            let done = DispatchSemaphore(value: 0)
            Thread { other.value = Date().timeIntervalSince1970; done.signal() }.start()
            done.wait()
            return (nested, other.value)
        }
        #expect(abs(nested - device) < 5)
        #expect(abs(other - host) < 60)
        #expect(abs(Date().timeIntervalSince1970 - host) < 60, "after app code, the host's time again")
        // time(3) and gettimeofday(2) agree with clock_gettime inside app code.
        let seconds = DeviceTime.asAppCode { Double(time(nil)) }
        #expect(abs(seconds - device) < 5)
    }

    @Test func withoutADeviceClockAppCodeReadsTheHostsTime() throws {
        let t = try TestDevice()
        try FileManager.default.removeItem(atPath: t.path + "/clock")
        DeviceTime.install(DeviceClock(deviceRoot: t.device.root))
        let inside = DeviceTime.asAppCode { Date().timeIntervalSince1970 }
        #expect(abs(inside - Date().timeIntervalSince1970) < 60)
    }
}
