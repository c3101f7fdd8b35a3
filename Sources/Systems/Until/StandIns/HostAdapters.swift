import AppGroup
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import Seed003
import StandInKit
import SystemKit
import Until

/// The as-written host: seed 003's own native module (`ScreenTimeModule`, run through Seed003's
/// `UntilNativeModule`) and the JS side the seed describes (`ReminderScreen`, pure). The module's
/// Swift reads and removes the App Group slot itself, as written; this shell only calls it when the
/// seed says it is called — on the JS poll and on the Darwin notification (A2) — and hands what it
/// emitted to the JS side.
final class AsWrittenHostAdapter: AppAdapter {
    let native = UntilNativeModule()
    var js = ReminderScreen()

    /// A2: the native module observes the extension's post while the app runs (Step 4: "for
    /// immediate wake-up"; Architecture: "Polling or Darwin").
    var observedNotifications: [String] { [UntilKeys.appOpenedNotification] }

    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        switch input {
        case .launched:
            return js.handle(.launched)
        case .user(let m) where m.action == UntilActions.appTrigger:
            return js.handle(.appTriggerTapped)
        case .user(let m) where m.action == UntilActions.selectApps:
            // FamilyActivityPicker hands the module opaque tokens ("Token Storage", memory only).
            native.selectedAppTokens = Set(m.list.map { ApplicationToken(bundleIdentifier: $0) })
            return [.trace("apps_selected", ["count": String(m.list.count)])]
        case .user(let m) where m.action == UntilActions.saveReminder:
            let settled = native.startMonitoring()
            return js.handle(.monitoringSettled(rejectedCode: settled.rejected?.code, message: settled.rejected?.message))
        case .timer(ReminderScreen.pollTimer):
            return check(via: "poll", now: now)
        case .notification(UntilKeys.appOpenedNotification):
            return check(via: "notification", now: now)
        case .authorization(let answer):
            return js.handle(.authorization(answer))
        default:
            // The seed reacts to nothing else (lifecycle, deep links, notification responses).
            return []
        }
    }

    /// One `checkForAppOpenedEvents` call (seed lines 234-260) and the JS side's reaction to what it
    /// emitted. `app_opened_read` records what the call resolved (the history's view of the slot).
    func check(via: String, now: Date) -> [Effect] {
        let settled = native.checkForAppOpenedEvents()
        var effects: [Effect] = []
        var timestamp: Int64?
        if case .some(.some(let value)) = settled.resolved, let data = value as? [String: Any] {
            timestamp = (data["timestamp"] as? Double).map { Int64($0.rounded()) }
            effects.append(.trace("app_opened_read", ["timestamp": timestamp.map { String($0) } ?? "-", "via": via]))
        }
        for sent in settled.emitted where sent.name == UntilKeys.onAppOpened {
            let token = (sent.body as? [String: Any])?["appToken"] as? String ?? ""
            effects += js.handle(.appOpenedEmitted(appToken: token, eventTimestampMillis: timestamp, via: via, now: now))
        }
        return effects
    }
}

/// The hardened host as a process: inputs become `HardenedHost` events.
final class HardenedHostAdapter: AppAdapter {
    var machine = HardenedHost()
    let privateStore: () -> [String: PropertyListValue]

    init(privateStore: @escaping () -> [String: PropertyListValue]) { self.privateStore = privateStore }

    var observedNotifications: [String] { [UntilKeys.appOpenedNotification] }

    func handle(_ input: AppInput, now: Date, store: () -> [String: PropertyListValue]) -> [Effect] {
        switch input {
        case .launched:
            return machine.handle(.launched(store: store(), privateStore: privateStore()))
        case .becameActive:
            return machine.handle(.becameActive(store: store()))
        case .notification(UntilKeys.appOpenedNotification):
            return machine.handle(.notified(store: store()))
        case .timer(HardenedHost.pollTimer):
            return machine.handle(.pollTick(store: store()))
        case .user(let m) where m.action == UntilActions.appTrigger:
            return machine.handle(.appTriggerTapped)
        case .user(let m) where m.action == UntilActions.selectApps:
            return machine.handle(.appsSelected(m.list))
        case .user(let m) where m.action == UntilActions.saveReminder:
            return machine.handle(.saveReminderTapped)
        case .effectFailed(let failure):
            return machine.handle(.effectFailed(failure))
        case .authorization(let answer):
            return machine.handle(.authorization(answer))
        default:
            return []
        }
    }
}
