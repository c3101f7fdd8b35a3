import AppGroup
import Foundation
import Pushin
import StandInKit
import SystemKit
import UserNotifications

/// The host app as a process: `AppRunner` runs the loop; this translates inputs into `HostApp`
/// events, and asks iOS (through `UNUserNotificationCenter`, as the app's code would) what the
/// machine needs to know at launch.
final class HostAppAdapter: AppAdapter {
    var machine: HostApp

    init(variant: PushinVariant) { machine = HostApp(variant: variant) }

    var observedNotifications: [String] { [] }

    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        let t = now.timeIntervalSince1970
        switch input {
        case .launched:
            return machine.handle(.launched(now: t, store: store(), pending: Self.pendingRequests(), notificationStatus: Self.notificationStatus()))
        case .user(let m) where m.action == PushinKeys.onboardAction:
            let apps = (m["apps"] ?? "").split(separator: ",").map(String.init)
            guard !apps.isEmpty, let unlocks = m["emergencyUnlocks"].flatMap(Int.init), unlocks >= 0 else {
                return [.trace("inbox_malformed", ["seq": String(m.seq), "why": "onboard needs apps and emergencyUnlocks >= 0"])]
            }
            return machine.handle(.onboard(apps: apps, emergencyUnlocks: unlocks))
        case .authorization(let a) where a.kind == "notifications":
            return machine.handle(.authorization(granted: a.granted, status: a.status))
        case .becameActive:
            return machine.handle(.becameActive(now: t, store: store()))
        case .enteredBackground:
            return machine.handle(.enteredBackground)
        case .timer(PushinKeys.pollTimer):
            return machine.handle(.poll(now: t, store: store()))
        case .openURL(let url):
            return machine.handle(.openURL(url))
        case .notificationResponse(let r):
            var link: String?
            if case .string(let s)? = r.userInfo["deepLink"] { link = s }
            return machine.handle(.notificationResponse(identifier: r.identifier, action: r.actionIdentifier, deepLink: link))
        default:
            // The seed reacts to nothing else (Darwin notifications, time changes, HTTP).
            return []
        }
    }

    /// How long the launch waits for iOS's answers (they come from files: at once, in practice).
    static let answerWaitSeconds = 2.0

    /// `getPendingNotificationRequests`, waited for (bounded): identifier and `userInfo["expiresAt"]`.
    static func pendingRequests() -> [HostApp.PendingRequest] {
        let box = Box<[HostApp.PendingRequest]>([])
        let done = DispatchSemaphore(value: 0)
        UNUserNotificationCenter.current().getPendingNotificationRequests { requests in
            box.value = requests.map { r in
                let e = r.content.userInfo["expiresAt"]
                return HostApp.PendingRequest(identifier: r.identifier, expiresAt: (e as? Double) ?? (e as? Int).map(Double.init))
            }
            done.signal()
        }
        waitBounded(done)
        return box.value
    }

    /// `getNotificationSettings().authorizationStatus` by name, waited for (bounded).
    static func notificationStatus() -> String {
        let box = Box("notDetermined")
        let done = DispatchSemaphore(value: 0)
        UNUserNotificationCenter.current().getNotificationSettings { s in
            switch s.authorizationStatus {
            case .notDetermined: box.value = "notDetermined"
            case .denied: box.value = "denied"
            case .authorized: box.value = "authorized"
            case .provisional: box.value = "provisional"
            case .ephemeral: box.value = "ephemeral"
            }
            done.signal()
        }
        waitBounded(done)
        return box.value
    }

    /// Waits for `done` at most `answerWaitSeconds`, in 1 ms sleeps. Not `wait(timeout:)`: app code
    /// runs with `CLOCK_REALTIME` on device time (StandInKit's `DeviceTime`), and a semaphore's
    /// timed wait takes an absolute realtime deadline — one computed from device time is long past
    /// for the kernel, and the wait would return at once, before iOS answered.
    static func waitBounded(_ done: DispatchSemaphore) {
        for _ in 0..<Int(answerWaitSeconds * 1000) {
            if done.wait(timeout: .now()) == .success { return }
            usleep(1000)
        }
    }

    final class Box<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var v: T
        init(_ v: T) { self.v = v }
        var value: T {
            get { lock.withLock { v } }
            set { lock.withLock { v = newValue } }
        }
    }
}
