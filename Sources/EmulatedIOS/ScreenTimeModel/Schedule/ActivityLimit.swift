/// Apple: "The maximum number of activities that can be monitored at one time by an app and its
/// extensions is twenty." Re-registering a monitored name replaces it and is always allowed.
public enum ActivityLimit {
    public static let maximumActivities = 20

    /// Throws `excessiveActivities` when `adding` would be the 21st distinct activity.
    public static func check(monitored: Set<String>, adding name: String) throws(ScheduleError) {
        if monitored.contains(name) { return }
        if monitored.count >= maximumActivities { throw .excessiveActivities(count: monitored.count) }
    }
}
