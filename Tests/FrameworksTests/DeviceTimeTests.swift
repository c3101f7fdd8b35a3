import AppGroup
import Foundation
import ScreenTimeModel
import ScreenTimeOS
import StandInKit
import Testing
@_spi(ScreenTimeHarness) import UserNotifications

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

/// A timed wait inside app code waits the real time it asks for (PROTOCOL.md §2, "Waits in app
/// code"): `DispatchSemaphore.wait(timeout:)`, `NSCondition.wait(until:)` and `NSLock.lock(before:)`
/// hand the kernel an absolute CLOCK_REALTIME deadline computed from `Date()` — device time there.
/// Each wait asks for 0.3 s and nothing ever ends it early but a rescue thread after
/// `rescueSeconds` (so a device clock ahead of the machine's cannot hang the test); the real
/// time it took is measured with CLOCK_MONOTONIC.
@Suite(.serialized, .timeLimit(.minutes(1))) struct DeviceTimeWaitTests {
    static let askedSeconds = 0.3
    static let rescueSeconds = 3.0

    enum DeviceClockKind: String, CaseIterable, CustomTestStringConvertible {
        /// Months behind the machine's clock, running at real rate (a scenario's `clock.start`).
        case behind
        /// A year ahead of the machine's clock.
        case ahead
        /// Stepped virtual time standing still months behind (PROTOCOL.md §9).
        case steppedBehind
        var testDescription: String { rawValue }

        func install(on t: TestDevice) throws {
            let real = Date().timeIntervalSince1970
            switch self {
            case .behind: break  // TestDevice's own clock: 2026-03-02 08:00 UTC at rate 1
            case .ahead:
                _ = try DeviceClock.write(DeviceClock.Configuration(epochUnixSeconds: real + 365 * 86400, rate: 1), to: t.device.root)
            case .steppedBehind:
                _ = try DeviceClock.write(.stepped(at: 1_772_438_400, timeZone: "UTC"), to: t.device.root)
            }
            DeviceTime.install(DeviceClock(deviceRoot: t.device.root))
            let device = DeviceTime.asAppCode { Date().timeIntervalSince1970 }
            precondition(abs(device - real) > 3600, "the test needs the device clock far from the machine's")
        }
    }

    /// Real seconds `body` took, by CLOCK_MONOTONIC.
    static func realSeconds(_ body: () -> Void) -> Double {
        let start = DeviceClock.monotonicNanos()
        body()
        return Double(DeviceClock.monotonicNanos() - start) / 1e9
    }

    /// Runs `rescue` on another thread after `rescueSeconds` unless `cancel` is signalled first.
    static func rescuer(_ rescue: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let cancel = DispatchSemaphore(value: 0)
        Thread {
            // A real-time wait outside app code: this thread never enters it.
            if cancel.wait(timeout: .now() + rescueSeconds) == .timedOut { rescue() }
        }.start()
        return cancel
    }

    static func expectAsked(_ seconds: Double, _ what: String, _ kind: DeviceClockKind) {
        #expect(seconds >= askedSeconds - 0.02 && seconds < askedSeconds + 1.0,
                "\(what) with the device clock \(kind.rawValue): asked \(askedSeconds) s, took \(seconds) s of real time")
    }

    @Test(arguments: DeviceClockKind.allCases) func semaphoreWaitTakesTheRealTimeAsked(_ kind: DeviceClockKind) throws {
        let t = try TestDevice()
        try kind.install(on: t)
        let sem = DispatchSemaphore(value: 0)
        let cancel = Self.rescuer { sem.signal() }
        var result: DispatchTimeoutResult = .success
        let took = DeviceTime.asAppCode { Self.realSeconds { result = sem.wait(timeout: .now() + Self.askedSeconds) } }
        cancel.signal()
        #expect(result == .timedOut)
        Self.expectAsked(took, "DispatchSemaphore.wait(timeout:)", kind)
        // The wall-clock form (a DispatchWallTime deadline, read from device time in app code).
        let cancel2 = Self.rescuer { sem.signal() }
        let tookWall = DeviceTime.asAppCode { Self.realSeconds { result = sem.wait(wallTimeout: .now() + Self.askedSeconds) } }
        cancel2.signal()
        #expect(result == .timedOut)
        Self.expectAsked(tookWall, "DispatchSemaphore.wait(wallTimeout:)", kind)
    }

    @Test(arguments: DeviceClockKind.allCases) func conditionWaitTakesTheRealTimeAsked(_ kind: DeviceClockKind) throws {
        let t = try TestDevice()
        try kind.install(on: t)
        final class Flag: @unchecked Sendable {
            let cond = NSCondition()
            var rescued = false
        }
        let f = Flag()
        let cancel = Self.rescuer {
            f.cond.lock()
            f.rescued = true
            f.cond.broadcast()
            f.cond.unlock()
        }
        var signalled = true
        let took = DeviceTime.asAppCode {
            Self.realSeconds {
                let deadline = Date().addingTimeInterval(Self.askedSeconds)
                f.cond.lock()
                // Spurious wakeups aside, the wait returns false only at the deadline.
                while !f.rescued {
                    signalled = f.cond.wait(until: deadline)
                    if !signalled { break }
                }
                f.cond.unlock()
            }
        }
        cancel.signal()
        #expect(!signalled, "NSCondition.wait(until:) timed out")
        Self.expectAsked(took, "NSCondition.wait(until:)", kind)
    }

    @Test(arguments: DeviceClockKind.allCases) func lockBeforeTakesTheRealTimeAsked(_ kind: DeviceClockKind) throws {
        let t = try TestDevice()
        try kind.install(on: t)
        let lock = NSLock()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            lock.lock()
            held.signal()
            _ = release.wait(timeout: .now() + Self.rescueSeconds)
            lock.unlock()
        }.start()
        held.wait()
        var got = true
        let took = DeviceTime.asAppCode { Self.realSeconds { got = lock.lock(before: Date().addingTimeInterval(Self.askedSeconds)) } }
        release.signal()
        if got { lock.unlock() }
        #expect(!got, "NSLock.lock(before:) gave up")
        Self.expectAsked(took, "NSLock.lock(before:)", kind)
    }

    /// A condition variable on CLOCK_MONOTONIC (pthread_condattr_setclock) takes a monotonic
    /// deadline: it is not device time, and is left as it is.
    @Test func aMonotonicConditionVariableIsLeftAlone() throws {
        let t = try TestDevice()
        try DeviceClockKind.behind.install(on: t)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        defer {
            pthread_cond_destroy(cond)
            pthread_mutex_destroy(mutex)
            cond.deallocate()
            mutex.deallocate()
        }
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
        pthread_mutex_init(mutex, nil)
        // Were the deadline translated, the kernel would wait for a monotonic time decades away.
        final class Rescue: @unchecked Sendable {
            let cond: UnsafeMutablePointer<pthread_cond_t>
            let mutex: UnsafeMutablePointer<pthread_mutex_t>
            var rescued = false
            init(_ c: UnsafeMutablePointer<pthread_cond_t>, _ m: UnsafeMutablePointer<pthread_mutex_t>) {
                cond = c
                mutex = m
            }
        }
        let r = Rescue(cond, mutex)
        let cancel = Self.rescuer {
            pthread_mutex_lock(r.mutex)
            r.rescued = true
            pthread_cond_broadcast(r.cond)
            pthread_mutex_unlock(r.mutex)
        }
        var rc: Int32 = 0
        let took = DeviceTime.asAppCode {
            Self.realSeconds {
                var deadline = timespec()
                clock_gettime(CLOCK_MONOTONIC, &deadline)
                deadline.tv_nsec += Int(Self.askedSeconds * 1e9)
                if deadline.tv_nsec >= 1_000_000_000 {
                    deadline.tv_sec += 1
                    deadline.tv_nsec -= 1_000_000_000
                }
                pthread_mutex_lock(mutex)
                repeat { rc = pthread_cond_timedwait(cond, mutex, &deadline) } while rc == 0 && !r.rescued  // spurious wakeups
                pthread_mutex_unlock(mutex)
            }
        }
        cancel.signal()
        #expect(rc == ETIMEDOUT)
        Self.expectAsked(took, "pthread_cond_timedwait on CLOCK_MONOTONIC", .behind)
    }

    /// The frameworks' own bounded waits run in app code too: a notification delegate that
    /// answers from another thread a moment later is waited for (it timed out at once before).
    @Test func aDelegateAnsweringLaterIsWaitedForInAppCode() throws {
        let t = try TestDevice()
        try DeviceClockKind.behind.install(on: t)
        final class LateDelegate: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
            func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse, withCompletionHandler completionHandler: @escaping () -> Void) {
                nonisolated(unsafe) let done = completionHandler
                Thread {
                    usleep(100_000)
                    done()
                }.start()
            }
        }
        let center = UNUserNotificationCenter(device: t.device)
        let content = UNMutableNotificationContent()
        content.title = "t"
        let added = DispatchSemaphore(value: 0)
        center.add(UNNotificationRequest(identifier: "n1", content: content, trigger: nil), withCompletionHandler: { _ in added.signal() })
        #expect(added.wait(timeout: .now() + 5) == .success)
        for r in NotificationAuthority.pending(on: t.device).records { try NotificationAuthority.deliver(r, at: t.device.now(), on: t.device) }
        let fields = try #require(try NotificationAuthority.tap("n1", actionIdentifier: UNNotificationDefaultActionIdentifier, on: t.device))
        let delegate = LateDelegate()
        center.delegate = delegate
        let outcome = DeviceTime.asAppCode { center.receive(inboxAction: NotificationResponseMessage.action, fields: fields) }
        #expect(outcome == .delivered(identifier: "n1", actionIdentifier: UNNotificationDefaultActionIdentifier))
    }

    @Test func aSignalStillEndsAWaitInAppCodeAtOnce() throws {
        let t = try TestDevice()
        try DeviceClockKind.behind.install(on: t)
        let sem = DispatchSemaphore(value: 0)
        Thread {
            usleep(100_000)
            sem.signal()
        }.start()
        var result: DispatchTimeoutResult = .timedOut
        let took = DeviceTime.asAppCode { Self.realSeconds { result = sem.wait(timeout: .now() + 5) } }
        #expect(result == .success)
        #expect(took >= 0.09 && took < 2, "took \(took) s")
    }
}
