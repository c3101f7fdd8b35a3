import PropertyList
import SystemKit

extension HostApp {
    /// Hardened: the shield extension schedules the notification itself (`ShieldActionMachine`),
    /// so the host's check only covers what the extension could not do, and never acts on an
    /// expired signal (F2):
    ///
    /// * notifications not allowed: the in-app prompt ("Permission Denied"), once per signal, and
    ///   only while the app is in the foreground (a prompt in a backgrounded app is never seen);
    /// * allowed, but the extension did not schedule this signal (`last_scheduled_notification_id`
    ///   is another): schedule it as the extension would, within the throttle.
    mutating func checkHardened(now: Double, store: Snapshot) -> [Effect] {
        guard let id = store.string(PushinKeys.pendingNotificationId) else { return [] }
        let expiresAt = store[PushinKeys.notificationExpiresAt]?.doubleValue ?? 0
        guard now <= expiresAt else { return [] }
        if !Self.granted(notificationStatus) {
            guard active, store.string(PushinKeys.lastInAppPromptId) != id else { return [] }
            return [
                .trace("in_app_prompt", ["id": id, "status": notificationStatus]),
                .setDefaults([.set(PushinKeys.lastInAppPromptId, .string(id))], atomic: true),
            ]
        }
        // A notification still waiting for its slot covers this signal too (the extension made it).
        guard store.string(PushinKeys.lastScheduledNotificationId) != id, store.double(PushinKeys.lastNotificationTime) <= now,
            let fireAt = ShieldActionMachine.fireTime(now: now, store: store, expiresAt: expiresAt)
        else { return [] }
        return [
            .addNotification(workoutRequest(id: id, expiresAt: expiresAt, fireInSeconds: fireAt > now ? fireAt - now : nil)),
            .setDefaults(
                [.set(PushinKeys.lastScheduledNotificationId, .string(id)), .set(PushinKeys.lastNotificationTime, .real(fireAt))], atomic: true),
            .trace("workout_scheduled", ["id": id, "by": "host", "fireAt": String(fireAt)]),
        ]
    }

    /// `authorized`, `provisional` and `ephemeral` show notifications (the OS's rule, EMULATED-IOS.md §10.4).
    public static func granted(_ status: String) -> Bool { ["authorized", "provisional", "ephemeral"].contains(status) }
}
