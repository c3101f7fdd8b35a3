import DeviceActivity
import Foundation
import StandInKit
import SystemKit
import Until

/// The hardened monitor's principal class: a `DeviceActivityMonitor` subclass that hands each
/// callback to the pure `HardenedMonitor`. (As-written runs the seed's own `UntilDeviceActivityMonitor`.)
final class HardenedMonitorExtension: DeviceActivityMonitor {
    let env: ExtensionEnvironment<UntilVariant>

    init(_ env: ExtensionEnvironment<UntilVariant>) {
        self.env = env
        super.init()
    }

    override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)
        env.perform(HardenedMonitor().handle(.intervalDidStart(activity: activity.rawValue)))
    }

    override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        env.perform(HardenedMonitor().handle(.intervalDidEnd(activity: activity.rawValue)))
    }

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)
        env.perform(HardenedMonitor().handle(.eventDidReachThreshold(
            event: event.rawValue, activity: activity.rawValue, now: env.now, store: env.store())))
    }
}
