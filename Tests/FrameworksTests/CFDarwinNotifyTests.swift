import AppGroup
@_spi(ScreenTimeHarness) import CFDarwinNotify
import Foundation
import Testing

@Suite(.timeLimit(.minutes(3))) struct CFDarwinNotifyTests {
    @Test func aPostThroughCoreFoundationReachesDarwinObservers() throws {
        let t = try TestDevice()
        let cf = CFNotificationCenter(darwinCenter: t.device.center)
        let seen = NSLock()
        nonisolated(unsafe) var count = 0
        let observer = try DarwinNotificationCenter(deviceRoot: t.device.root)
        _ = try observer.addObserver("com.ibnuj.until.appOpened") { _ in
            seen.lock()
            count += 1
            seen.unlock()
        }
        // Seed 003's call, spelled as it is there.
        CFNotificationCenterPostNotification(cf, CFNotificationName("com.ibnuj.until.appOpened" as CFString), nil, nil, true)
        #expect(eventually { seen.lock(); defer { seen.unlock() }; return count == 1 })
    }

    /// Removing an observer for one name leaves its observation of the others (seed 003's
    /// extension observes two names and stops one).
    @Test func removingAnObserverForOneNameKeepsItsOtherNames() throws {
        let t = try TestDevice()
        let cf = CFNotificationCenter(darwinCenter: t.device.center)
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var names: [String] = []
            func add(_ n: String) { lock.lock(); names.append(n); lock.unlock() }
            var all: [String] { lock.lock(); defer { lock.unlock() }; return names }
        }
        let seen = Seen()
        let observer = UnsafeRawPointer(Unmanaged.passUnretained(seen).toOpaque())
        let callback: CFNotificationCallback = { _, observer, name, _, _ in
            guard let observer, let name else { return }
            Unmanaged<Seen>.fromOpaque(observer).takeUnretainedValue().add(String(describing: name.rawValue))
        }
        CFNotificationCenterAddObserver(cf, observer, callback, "com.test.one" as CFString, nil, .deliverImmediately)
        CFNotificationCenterAddObserver(cf, observer, callback, "com.test.two" as CFString, nil, .deliverImmediately)
        CFNotificationCenterRemoveObserver(cf, observer, CFNotificationName("com.test.one" as CFString), nil)
        let poster = CFNotificationCenter(darwinCenter: try DarwinNotificationCenter(deviceRoot: t.device.root))
        CFNotificationCenterPostNotification(poster, CFNotificationName("com.test.one" as CFString), nil, nil, true)
        CFNotificationCenterPostNotification(poster, CFNotificationName("com.test.two" as CFString), nil, nil, true)
        #expect(eventually { seen.all.contains { $0.contains("com.test.two") } }, "\(seen.all)")
        usleep(100_000)
        #expect(!seen.all.contains { $0.contains("com.test.one") }, "a removed name still called back: \(seen.all)")
        CFNotificationCenterRemoveEveryObserver(cf, observer)
    }
}
