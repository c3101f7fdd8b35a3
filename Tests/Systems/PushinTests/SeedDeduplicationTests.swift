import AppGroup
import Foundation
import Pushin
@testable import Seed002
import Testing

/// The as-written host's `shouldScheduleNotification` is the seed's, line for line: the same
/// answers as the seed's own compiled Swift (`Seed002NotificationManager`, Sources/Systems/SeedCode) on the
/// same store. The seed reads `Date()`; the cases keep 2 s from every boundary.
@Suite(.timeLimit(.minutes(1))) struct SeedDeduplicationTests {
    @Test(arguments: [nil, "n-1", "n-2"], [-1.0, 0, 30, 58, 62, 1000, 1e9])
    func theHostAnswersAsTheSeedsOwnCode(lastId: String?, secondsAgo: Double) throws {
        // The seed's store is an app's `UserDefaults` (AppGroupFoundation's), in a sandbox of its own.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sth-pushin-dedup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sandbox = try AppGroupContainer(sandboxOf: "host", deviceRoot: DeviceRoot(path: root))
        let defaults = AppGroupFoundation.UserDefaults(store: try SharedDefaults(container: sandbox, suiteName: "standard"), suiteName: nil)
        let now = Date().timeIntervalSince1970
        var store: [String: PropertyListValue] = [:]
        if let lastId {
            defaults.set(lastId, forKey: PushinKeys.lastScheduledNotificationId)
            store[PushinKeys.lastScheduledNotificationId] = .string(lastId)
        }
        if secondsAgo >= 0 {
            defaults.set(now - secondsAgo, forKey: PushinKeys.lastNotificationTime)
            store[PushinKeys.lastNotificationTime] = .real(now - secondsAgo)
        }
        let seed = Seed002NotificationManager(store: defaults).shouldScheduleNotification("n-1")
        #expect(HostApp.shouldScheduleNotification("n-1", store: store, now: now) == seed)
    }
}
