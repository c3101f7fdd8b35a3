// API probe: Apple's UserNotifications as a Screen Time app and its extensions call it
// (docs/FRAMEWORKS-API.md). Only members that compile against this package's UserNotifications are
// here; the rest are in not-provided.txt.
import UserNotifications

/// `UNUserNotificationCenter.current()`
func probe_UNUserNotificationCenter_current() {
    let center: UNUserNotificationCenter = UNUserNotificationCenter.current()
    _ = center
}

/// `UNUserNotificationCenter.requestAuthorization(options:completionHandler:)`
func probe_UNUserNotificationCenter_requestAuthorization_completionHandler() {
    UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound, .badge]) { granted, error in
        if let error { print(error.localizedDescription) }
        _ = granted
    }
}

/// `UNUserNotificationCenter.requestAuthorization(options:)` (async)
func probe_UNUserNotificationCenter_requestAuthorization_async() async throws {
    let granted: Bool = try await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .badge, .sound])
    _ = granted
}

/// `UNUserNotificationCenter.getNotificationSettings(completionHandler:)`
func probe_UNUserNotificationCenter_getNotificationSettings() {
    UNUserNotificationCenter.current().getNotificationSettings { settings in
        _ = settings.authorizationStatus == .authorized
    }
}

/// `UNUserNotificationCenter.notificationSettings()` (async)
func probe_UNUserNotificationCenter_notificationSettings() async {
    let settings = await UNUserNotificationCenter.current().notificationSettings()
    _ = settings
}

/// `UNNotificationSettings.authorizationStatus`
func probe_UNNotificationSettings_authorizationStatus(_ settings: UNNotificationSettings) {
    switch settings.authorizationStatus {
    case .notDetermined, .denied, .authorized, .provisional, .ephemeral: break
    @unknown default: break
    }
}

/// `UNNotificationSettings.alertSetting`, `.badgeSetting`, `.soundSetting`
func probe_UNNotificationSettings_alertBadgeSound(_ settings: UNNotificationSettings) {
    let enabled = settings.alertSetting == .enabled && settings.badgeSetting != .disabled && settings.soundSetting != .notSupported
    _ = enabled
}

/// `UNNotificationSettings.notificationCenterSetting`, `.lockScreenSetting`
func probe_UNNotificationSettings_centerLockScreen(_ settings: UNNotificationSettings) {
    _ = (settings.notificationCenterSetting, settings.lockScreenSetting)
}

/// `UNUserNotificationCenter.add(_:withCompletionHandler:)`
func probe_UNUserNotificationCenter_addCompletionHandler(_ request: UNNotificationRequest) {
    UNUserNotificationCenter.current().add(request) { error in
        if let error { print(error) }
    }
}

/// `UNUserNotificationCenter.add(_:withCompletionHandler:)` (no handler)
func probe_UNUserNotificationCenter_addNoHandler(_ request: UNNotificationRequest) {
    UNUserNotificationCenter.current().add(request)
}

/// `UNUserNotificationCenter.add(_:)` (async)
func probe_UNUserNotificationCenter_addAsync(_ request: UNNotificationRequest) async throws {
    try await UNUserNotificationCenter.current().add(request)
}

/// `UNUserNotificationCenter.getPendingNotificationRequests(completionHandler:)`
func probe_UNUserNotificationCenter_getPendingNotificationRequests() {
    UNUserNotificationCenter.current().getPendingNotificationRequests { requests in
        _ = requests.map(\.identifier)
    }
}

/// `UNUserNotificationCenter.pendingNotificationRequests()` (async)
func probe_UNUserNotificationCenter_pendingNotificationRequests() async {
    let requests: [UNNotificationRequest] = await UNUserNotificationCenter.current().pendingNotificationRequests()
    _ = requests
}

/// `UNUserNotificationCenter.removePendingNotificationRequests(withIdentifiers:)`
func probe_UNUserNotificationCenter_removePendingNotificationRequests() {
    UNUserNotificationCenter.current().removePendingNotificationRequests(withIdentifiers: ["reminder"])
}

/// `UNUserNotificationCenter.removeAllPendingNotificationRequests()`
func probe_UNUserNotificationCenter_removeAllPendingNotificationRequests() {
    UNUserNotificationCenter.current().removeAllPendingNotificationRequests()
}

/// `UNUserNotificationCenter.getDeliveredNotifications(completionHandler:)`
func probe_UNUserNotificationCenter_getDeliveredNotifications() {
    UNUserNotificationCenter.current().getDeliveredNotifications { notifications in
        _ = notifications.first?.date
    }
}

/// `UNUserNotificationCenter.deliveredNotifications()` (async)
func probe_UNUserNotificationCenter_deliveredNotifications() async {
    let delivered: [UNNotification] = await UNUserNotificationCenter.current().deliveredNotifications()
    _ = delivered
}

/// `UNUserNotificationCenter.removeDeliveredNotifications(withIdentifiers:)`
func probe_UNUserNotificationCenter_removeDeliveredNotifications() {
    UNUserNotificationCenter.current().removeDeliveredNotifications(withIdentifiers: ["reminder"])
}

/// `UNUserNotificationCenter.removeAllDeliveredNotifications()`
func probe_UNUserNotificationCenter_removeAllDeliveredNotifications() {
    UNUserNotificationCenter.current().removeAllDeliveredNotifications()
}

/// `UNUserNotificationCenter.setNotificationCategories(_:)`
func probe_UNUserNotificationCenter_setNotificationCategories() {
    let snooze = UNNotificationAction(identifier: "snooze", title: "Snooze", options: [])
    let category = UNNotificationCategory(identifier: "limit", actions: [snooze], intentIdentifiers: [], options: [.customDismissAction])
    UNUserNotificationCenter.current().setNotificationCategories([category])
}

/// `UNUserNotificationCenter.getNotificationCategories(completionHandler:)`
func probe_UNUserNotificationCenter_getNotificationCategories() {
    UNUserNotificationCenter.current().getNotificationCategories { categories in
        _ = categories.count
    }
}

/// `UNUserNotificationCenter.notificationCategories()` (async)
func probe_UNUserNotificationCenter_notificationCategories() async {
    let categories: Set<UNNotificationCategory> = await UNUserNotificationCenter.current().notificationCategories()
    _ = categories
}

/// `UNUserNotificationCenter.setBadgeCount(_:withCompletionHandler:)`
func probe_UNUserNotificationCenter_setBadgeCount() {
    UNUserNotificationCenter.current().setBadgeCount(0) { error in
        _ = error
    }
}

/// `UNUserNotificationCenter.setBadgeCount(_:)` (async)
func probe_UNUserNotificationCenter_setBadgeCountAsync() async throws {
    try await UNUserNotificationCenter.current().setBadgeCount(3)
}

/// `UNUserNotificationCenter.delegate`
func probe_UNUserNotificationCenter_delegate() {
    final class Handler: NSObject, UNUserNotificationCenterDelegate {}
    let handler = Handler()
    UNUserNotificationCenter.current().delegate = handler
    _ = UNUserNotificationCenter.current().delegate
}

/// `UNUserNotificationCenterDelegate.userNotificationCenter(_:didReceive:withCompletionHandler:)`
func probe_UNUserNotificationCenterDelegate_didReceive() {
    final class Handler: NSObject, UNUserNotificationCenterDelegate {
        func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse, withCompletionHandler completionHandler: @escaping () -> Void
        ) {
            if response.actionIdentifier == UNNotificationDefaultActionIdentifier { _ = response.notification.request.content.userInfo }
            completionHandler()
        }
    }
    _ = Handler()
}

/// `UNUserNotificationCenterDelegate.userNotificationCenter(_:willPresent:withCompletionHandler:)`
func probe_UNUserNotificationCenterDelegate_willPresent() {
    final class Handler: NSObject, UNUserNotificationCenterDelegate {
        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            completionHandler([.banner, .list, .sound, .badge])
        }
    }
    _ = Handler()
}

/// `UNUserNotificationCenterDelegate.userNotificationCenter(_:openSettingsFor:)`
func probe_UNUserNotificationCenterDelegate_openSettingsFor() {
    final class Handler: NSObject, UNUserNotificationCenterDelegate {
        func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {}
    }
    _ = Handler()
}

/// `UNUserNotificationCenterDelegate.userNotificationCenter(_:didReceive:)` (async)
func probe_UNUserNotificationCenterDelegate_didReceiveAsync() {
    final class Handler: NSObject, UNUserNotificationCenterDelegate {
        func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
            _ = response.actionIdentifier
        }
    }
    _ = Handler()
}

/// `UNUserNotificationCenterDelegate.userNotificationCenter(_:willPresent:)` (async)
func probe_UNUserNotificationCenterDelegate_willPresentAsync() {
    final class Handler: NSObject, UNUserNotificationCenterDelegate {
        func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async -> UNNotificationPresentationOptions {
            [.banner]
        }
    }
    _ = Handler()
}

/// `UNMutableNotificationContent.init()`, `.title`, `.subtitle`, `.body`
func probe_UNMutableNotificationContent_text() {
    let content = UNMutableNotificationContent()
    content.title = "Time's up"
    content.subtitle = "Daily limit"
    content.body = "You reached your limit for today."
    _ = content
}

/// `UNMutableNotificationContent.sound` / `UNNotificationSound.default`
func probe_UNMutableNotificationContent_sound() {
    let content = UNMutableNotificationContent()
    content.sound = .default
    content.sound = UNNotificationSound.defaultCritical
}

/// `UNNotificationSound.init(named:)`
func probe_UNNotificationSound_initNamed() {
    let sound = UNNotificationSound(named: UNNotificationSoundName("chime.caf"))
    _ = sound
}

/// `UNMutableNotificationContent.badge`
func probe_UNMutableNotificationContent_badge() {
    let content = UNMutableNotificationContent()
    content.badge = NSNumber(value: 1)
    content.badge = 2
}

/// `UNMutableNotificationContent.categoryIdentifier`, `.threadIdentifier`
func probe_UNMutableNotificationContent_identifiers() {
    let content = UNMutableNotificationContent()
    content.categoryIdentifier = "limit"
    content.threadIdentifier = "daily"
}

/// `UNMutableNotificationContent.userInfo`
func probe_UNMutableNotificationContent_userInfo() {
    let content = UNMutableNotificationContent()
    content.userInfo = ["activity": "daily", "minutes": 15]
    _ = content.userInfo["activity"] as? String
}

/// `UNMutableNotificationContent.interruptionLevel`
func probe_UNMutableNotificationContent_interruptionLevel() {
    let content = UNMutableNotificationContent()
    content.interruptionLevel = .timeSensitive
    let levels: [UNNotificationInterruptionLevel] = [.passive, .active, .timeSensitive, .critical]
    _ = levels
}

/// `UNMutableNotificationContent.targetContentIdentifier`
func probe_UNMutableNotificationContent_targetContentIdentifier() {
    let content = UNMutableNotificationContent()
    content.targetContentIdentifier = "settings"
}

/// `UNNotificationContent.mutableCopy()`
func probe_UNNotificationContent_mutableCopy(_ content: UNNotificationContent) {
    let copy = content.mutableCopy() as? UNMutableNotificationContent
    copy?.title = "Updated"
}

/// `UNNotificationRequest.init(identifier:content:trigger:)`
func probe_UNNotificationRequest_init() {
    let content = UNMutableNotificationContent()
    content.title = "Break over"
    let request = UNNotificationRequest(identifier: UUID().uuidString, content: content, trigger: nil)
    _ = request
}

/// `UNNotificationRequest.identifier`, `.content`, `.trigger`
func probe_UNNotificationRequest_properties(_ request: UNNotificationRequest) {
    let id: String = request.identifier
    let content: UNNotificationContent = request.content
    let trigger: UNNotificationTrigger? = request.trigger
    _ = (id, content.title, trigger?.repeats)
}

/// `UNTimeIntervalNotificationTrigger.init(timeInterval:repeats:)`
func probe_UNTimeIntervalNotificationTrigger_init() {
    let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 15 * 60, repeats: false)
    _ = trigger.timeInterval
}

/// `UNTimeIntervalNotificationTrigger.nextTriggerDate()`
func probe_UNTimeIntervalNotificationTrigger_nextTriggerDate(_ trigger: UNTimeIntervalNotificationTrigger) {
    let next: Date? = trigger.nextTriggerDate()
    _ = next
}

/// `UNCalendarNotificationTrigger.init(dateMatching:repeats:)`
func probe_UNCalendarNotificationTrigger_init() {
    let trigger = UNCalendarNotificationTrigger(dateMatching: DateComponents(hour: 21, minute: 0), repeats: true)
    _ = trigger.dateComponents
}

/// `UNCalendarNotificationTrigger.nextTriggerDate()`
func probe_UNCalendarNotificationTrigger_nextTriggerDate(_ trigger: UNCalendarNotificationTrigger) {
    let next: Date? = trigger.nextTriggerDate()
    _ = next
}

/// `UNNotificationTrigger.repeats`
func probe_UNNotificationTrigger_repeats(_ trigger: UNNotificationTrigger) {
    let repeats: Bool = trigger.repeats
    _ = repeats
}

/// `UNNotificationCategory.init(identifier:actions:intentIdentifiers:options:)`
func probe_UNNotificationCategory_init() {
    let category = UNNotificationCategory(identifier: "limit", actions: [], intentIdentifiers: [], options: [])
    _ = (category.identifier, category.actions, category.options)
}

/// `UNNotificationCategoryOptions` (its members)
func probe_UNNotificationCategoryOptions() {
    let options: UNNotificationCategoryOptions = [.customDismissAction, .allowInCarPlay, .hiddenPreviewsShowTitle, .hiddenPreviewsShowSubtitle]
    _ = options
}

/// `UNNotificationAction.init(identifier:title:options:)`
func probe_UNNotificationAction_init() {
    let action = UNNotificationAction(identifier: "open", title: "Open", options: [.foreground])
    _ = (action.identifier, action.title, action.options)
}

/// `UNNotificationActionOptions` (its members)
func probe_UNNotificationActionOptions() {
    let options: UNNotificationActionOptions = [.foreground, .destructive, .authenticationRequired]
    _ = options
}

/// `UNTextInputNotificationAction.init(identifier:title:options:textInputButtonTitle:textInputPlaceholder:)`
func probe_UNTextInputNotificationAction_init() {
    let action = UNTextInputNotificationAction(
        identifier: "reason", title: "Why?", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "Reason")
    _ = action
}

/// `UNNotificationResponse.actionIdentifier`, `.notification`
func probe_UNNotificationResponse(_ response: UNNotificationResponse) {
    switch response.actionIdentifier {
    case UNNotificationDefaultActionIdentifier: break
    case UNNotificationDismissActionIdentifier: break
    default: _ = response.notification.request.identifier
    }
}

/// `UNTextInputNotificationResponse.userText`
func probe_UNTextInputNotificationResponse_userText(_ response: UNNotificationResponse) {
    if let text = response as? UNTextInputNotificationResponse { _ = text.userText }
}

/// `UNNotification.date`, `.request`
func probe_UNNotification(_ notification: UNNotification) {
    let date: Date = notification.date
    let request: UNNotificationRequest = notification.request
    _ = (date, request)
}

/// `UNNotificationPresentationOptions` (its members)
func probe_UNNotificationPresentationOptions() {
    let options: UNNotificationPresentationOptions = [.banner, .list, .sound, .badge]
    _ = options
}

/// `UNAuthorizationOptions` (its members)
func probe_UNAuthorizationOptions() {
    let options: UNAuthorizationOptions = [.alert, .badge, .sound, .provisional, .criticalAlert, .providesAppNotificationSettings, .carPlay]
    _ = options
}

/// `UNError` (caught, by code)
func probe_UNError_code(_ request: UNNotificationRequest) async {
    do {
        try await UNUserNotificationCenter.current().add(request)
    } catch let error as UNError {
        if error.code == .notificationsNotAllowed { return }
    } catch {
        _ = error
    }
}
