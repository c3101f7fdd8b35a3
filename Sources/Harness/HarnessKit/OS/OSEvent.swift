import ScreenTimeModel
import SystemKit

/// What happens to the emulated iOS: time passes, the apps change what they asked for (the
/// `system/` files the frameworks write), the user acts, processes end, the device reboots.
public enum OSEvent: Sendable, Equatable {
    /// Device time reached `now` (unix seconds). Always the first event at an instant.
    case clock(now: Double)
    /// What `system/deviceactivity/` holds now.
    case registrations([ActivityRegistrationRecord])
    /// What every `ManagedSettingsStore` shields together now.
    case shields(ShieldUnion)
    /// What every `ManagedSettingsStore` sets beyond the shield (the union): the applications the
    /// user cannot open (`application.blockedApplications`, as bundle ids), whether apps may be
    /// removed or installed, the web content filters.
    case managedSettings(ManagedSettingsUnion)
    case user(UserEvent)
    /// An extension call ended: `response` is what it answered iOS (shield action), nil if none.
    case callEnded(delivery: Int, completed: Bool, response: ShieldActionResponse?)
    /// The host app's process ended (crash, nemesis, force quit).
    case hostExited
    /// The host app's process was started (by the OS, or relaunched by the harness).
    case hostLaunched
    /// Every device process is killed; ManagedSettings, containers and registrations persist.
    case reboot
    /// The device's time zone changed (IANA).
    case timeZone(String)
    /// The system's workload has iOS make this call directly (a pack whose user action the OS does
    /// not model yet); field faults apply as to any call.
    case harnessCall(ExtensionCall, label: [String: String])
    /// The run begins: the OS writes what it models from the start (FamilyControls status).
    case boot
    /// An app's `startMonitoring` was refused (the framework filed why): the OS records it, so a
    /// monitoring error is never lost even when the app swallows it.
    case monitoringRefused(activity: String, error: String, detail: String)
    /// An app asks for authorization (`requestId` is its request file's id).
    case authorizationRequested(AuthorizationKind, requestId: String)
    /// The user revokes the app's FamilyControls authorization (Settings → Screen Time).
    case revokeAuthorization
    /// What `system/notifications/pending/` holds now.
    case notificationRequests([NotificationRequestRecord])
    /// The app removed delivered notifications (`removeDeliveredNotifications`), already applied.
    case notificationsRemoved([String])
    /// After a reboot the device stays locked until its first unlock (`os.lockedAfterReboot`).
    case deviceLocked
    /// The user (or the scenario's time) unlocked the device for the first time since the reboot.
    case firstUnlock
}

/// What an authorization prompt is for.
public enum AuthorizationKind: String, Sendable, Equatable {
    case familyControls
    case notifications
}

/// What the scripted user does on the device.
public enum UserEvent: Sendable, Equatable {
    /// Opens an app and keeps it frontmost for `seconds` (if it is shielded, sees the shield).
    /// `label` goes on the history lines of the calls it causes (e.g. the session the user meant).
    case useApp(bundleIdentifier: String, seconds: Double, label: [String: String])
    /// Presses a button of the shield on screen.
    case pressShieldButton(ShieldAction, label: [String: String])
    /// Opens the host app (launches it, or brings it to the foreground).
    case openHost
    /// Goes to the home screen: the host goes to the background.
    case leaveHost
    /// Swipes the host away: it is terminated and not relaunched until opened.
    case forceQuitHost
    /// Opens a URL (a link elsewhere, a deep link): the host opens it if it registered the scheme.
    case openURL(String)
    /// Deletes an app from the home screen (refused while a store sets `application.denyAppRemoval`).
    case deleteApp(bundleIdentifier: String)
    /// Installs an app from the App Store (refused while a store sets `application.denyAppInstallation`).
    case installApp(bundleIdentifier: String)
    /// Opens a website in Safari (`adult`: the OS's adult-content classifier would say so). Blocked
    /// when a store's `webContent.blockedByFilter` blocks the domain or a store shields it.
    case visitWebsite(domain: String, adult: Bool)
    /// Taps a delivered notification (`action` = `com.apple.UNNotificationDefaultActionIdentifier`)
    /// or one of its actions. `foreground`: the action brings the app to the foreground (the
    /// notification itself and actions with the `.foreground` option do); else iOS runs the app in
    /// the background to handle it.
    case tapNotification(identifier: String, action: String, foreground: Bool)
}

/// What the emulated iOS asks the harness to do.
public enum OSEffect: Sendable, Equatable {
    /// A history line of the harness.
    case record(HarnessLine, [String: String])
    /// Start the system's extension for this call; `delivery` is the OS's id of the call.
    case call(ExtensionCall, delivery: Int, label: [String: String])
    /// Kill the extension process of this delivery before it returns (a field fault).
    case killCall(delivery: Int)
    /// Host lifecycle: start the process, SIGSTOP it (suspended), SIGCONT it, or SIGKILL it.
    case launchHost
    case suspendHost
    case resumeHost
    case terminateHost
    /// Write the authorization status (`familycontrols.json` / notifications' `authorization.json`),
    /// answering `request` if given.
    case setAuthorization(AuthorizationKind, status: String, answering: String?)
    /// Authorization was revoked: every ManagedSettings store and every registration is removed.
    case clearManagedSettings
    case clearRegistrations
    /// Show a pending notification (append it to `delivered.json`; a non-repeating one leaves `pending/`).
    case deliverNotification(NotificationRequestRecord)
    /// Drop a pending notification that fired unseen (not authorized).
    case discardNotification(identifier: String)
    /// Hand the user's response to the host (removed from Notification Center, sent to its inbox).
    case notificationResponse(identifier: String, action: String)
    /// One of iOS's own messages to the host (`OSMessages`: lifecycle, a URL, a time change),
    /// written to its inbox (EMULATED-IOS.md §7.7).
    case tellHost(action: String, fields: [String: String])
}
