import SeedPlatform
import UserNotifications

// The classes seed 002's method snippets belong to, and the helpers they call, which the seed
// names but does not show.

/// "NotificationManager" (ios/Runner/NotificationManager.swift): the seed shows its interface
/// (compiled as a protocol) and some of its methods (compiled in extensions of this class).
final class Seed002NotificationManager {
    let store: UserDefaults

    init(store: UserDefaults) { self.store = store }

    func scheduleWorkoutNotification(withId id: String) {}
    func showInAppWorkoutPrompt() {}
}

/// The Runner's AppDelegate (a FlutterAppDelegate on iOS).
class Seed002AppDelegate: UIResponder {
    func navigateToWorkoutSelection() {}
}
