// The app's own code, as it would be on iOS: only Apple's module names, no harness API.
import ManagedSettings
import OSLog

/// What the host app and its extension agree on: the App Group, its keys, the Darwin
/// notification the extension posts.
public enum RallyNames {
    public static let appGroup = "group.com.example.__name__"
    public static let ball = "ball"
    public static let returned = "returned"
    public static let won = "won"
    public static let returnedAt = "returnedAt"
    public static let returnedNotification = "__name__.returned"
}

/// The host app's logic (what its views call). Serving a ball stores it in the App Group and
/// shields every app; the shield's button returns it (the extension); a returned ball is won:
/// the shield comes off.
public final class Player {
    let defaults = UserDefaults(suiteName: RallyNames.appGroup)
    let store = ManagedSettingsStore()
    let log = Logger(subsystem: "com.example.__name__", category: "player")

    public init() {}

    /// The user taps "Serve" for ball `ball`.
    public func serve(ball: Int) {
        defaults?.set(ball, forKey: RallyNames.ball)
        // While a ball is in play the app cannot be deleted, and every other app is shielded.
        store.application.denyAppRemoval = true
        store.shield.applicationCategories = .all()
        log.info("served ball \(ball, privacy: .public)")
    }

    /// A ball that came back is won: the shield comes off, and the ball is cleared.
    public func collectReturn() {
        guard let defaults, let ball = defaults.object(forKey: RallyNames.ball) as? Int,
            defaults.object(forKey: RallyNames.returned) as? Int == ball
        else { return }
        store.shield.applicationCategories = nil
        store.application.denyAppRemoval = nil
        defaults.set(ball, forKey: RallyNames.won)
        defaults.removeObject(forKey: RallyNames.ball)
        log.info("won ball \(ball, privacy: .public)")
    }
}
