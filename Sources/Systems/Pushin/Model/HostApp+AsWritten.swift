import PropertyList
import SystemKit

extension HostApp {
    /// "Signal Flow 2. Notification Manager monitors and responds", literally:
    ///
    /// ```swift
    /// if let notificationId = store.string(forKey: "pending_notification_id"),
    ///    shouldScheduleNotification(notificationId) {
    ///     scheduleWorkoutNotification(withId: notificationId)
    /// }
    /// ```
    mutating func checkAsWritten(now: Double, store: Snapshot) -> [Effect] {
        guard let id = store.string(PushinKeys.pendingNotificationId), Self.shouldScheduleNotification(id, store: store, now: now) else {
            return []
        }
        return scheduleAsWritten(id: id, now: now, store: store)
    }

    /// "Signal Flow 3. Deduplication Logic", literally:
    ///
    /// ```swift
    /// let lastId = store.string(forKey: "last_scheduled_notification_id")
    /// let lastTime = store.double(forKey: "last_notification_time")
    /// if newId == lastId { return false }
    /// if now - lastTime < 60 { return false }
    /// return true
    /// ```
    public static func shouldScheduleNotification(_ newId: String, store: Snapshot, now: Double) -> Bool {
        let lastId = store.string(PushinKeys.lastScheduledNotificationId)
        let lastTime = store.double(PushinKeys.lastNotificationTime)
        if newId == lastId { return false }
        if now - lastTime < PushinKeys.throttleSeconds { return false }
        return true
    }

    /// `scheduleWorkoutNotification(withId:)`, not shown (A4): "Schedule notification synchronously
    /// when signal detected", immediately ("immediate rather than delayed"), with the seed's
    /// content; then the two keys `shouldScheduleNotification` reads, one `set` each. "Permission
    /// Denied": `if authorizationStatus != .authorized { showInAppWorkoutPrompt() }` instead.
    mutating func scheduleAsWritten(id: String, now: Double, store: Snapshot) -> [Effect] {
        let expiresAt = store[PushinKeys.notificationExpiresAt]?.doubleValue ?? now + PushinKeys.expirySeconds
        let record: [Effect] = [
            .setDefaults(
                [.set(PushinKeys.lastScheduledNotificationId, .string(id)), .set(PushinKeys.lastNotificationTime, .real(now))],
                atomic: false)
        ]
        if notificationStatus != "authorized" {
            return [.trace("in_app_prompt", ["id": id, "status": notificationStatus])] + record
        }
        return [.addNotification(workoutRequest(id: id, expiresAt: expiresAt)), .trace("workout_scheduled", ["id": id, "by": "host"])] + record
    }
}
