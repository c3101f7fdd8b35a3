// The shield-action extension's principal class, exactly as on iOS.
import ManagedSettings
import __Name__Shared

final class ReturnerExtension: ShieldActionDelegate {
    let defaults = UserDefaults(suiteName: RallyNames.appGroup)

    override func handle(action: ShieldAction, for application: ApplicationToken, completionHandler: @escaping (ShieldActionResponse) -> Void) {
        if let ball = defaults?.object(forKey: RallyNames.ball) as? Int {
            defaults?.set(ball, forKey: RallyNames.returned)
            defaults?.set(Date().timeIntervalSince1970, forKey: RallyNames.returnedAt)
            CFNotificationCenterPostNotification(
                CFNotificationCenterGetDarwinNotifyCenter(), CFNotificationName(RallyNames.returnedNotification as CFString), nil, nil, true)
        }
        completionHandler(.close)
    }
}
