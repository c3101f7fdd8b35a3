/// The reserved inbox actions of iOS's own messages to an app (EMULATED-IOS.md §7.7): the harness
/// writes them (`HarnessKit.DeviceOS`), the app's run loop reads them (`StandInKit.OSMessage`).
/// An app's own actions never use these names.
public enum OSMessageActions {
    /// `{"state": "active" | "background"}`.
    public static let appState = "app_state"
    /// `{"url": "pushin://workout"}`.
    public static let openURL = "open_url"
    /// `{}`.
    public static let significantTimeChange = "significant_time_change"
    /// EMULATED-IOS.md §7.5.
    public static let notificationResponse = NotificationResponseMessage.action
}
