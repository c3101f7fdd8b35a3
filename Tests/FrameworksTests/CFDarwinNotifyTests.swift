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
}
