import PropertyList
import SystemKit

/// Pushin's shield-action extension as a pure machine, one call per process. The as-written
/// variant's workout path is not here: it runs the seed's own Swift (`seed002ShieldExtensionSignal`
/// in the stand-in). Here: the emergency unlock (both variants; the seed shows no code for it) and
/// the hardened workout path.
public struct ShieldActionMachine: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    public let variant: PushinVariant

    public init(variant: PushinVariant) { self.variant = variant }

    /// An emergency unlock: "Maintain `completionHandler(.close)` for emergency unlocks"; it spends
    /// one of `emergencyUnlocksRemaining` (A2), never below zero — with none left it only closes.
    public func emergencyUnlock(store: Snapshot) -> [Effect] {
        let remaining = store.integer(PushinKeys.emergencyUnlocksRemaining)
        guard remaining > 0 else { return [.trace("emergency_unlock_refused", ["remaining": "0"]), .respond(.close)] }
        return [
            .setDefaults([.set(PushinKeys.emergencyUnlocksRemaining, .integer(Int64(remaining - 1)))], atomic: true),
            .trace("emergency_unlock", ["remaining": String(remaining - 1)]),
            .respond(.close),
        ]
    }

    /// Hardened workout action: the signal's four keys in ONE write (H1, H3), and the notification
    /// added by the extension itself — iOS suspends the host while the user is in a blocked app,
    /// so a host that polls "when app is active" cannot notify in time (F1). The throttle holds:
    /// the notification fires at `last_notification_time + 60` at the earliest (a time-interval
    /// trigger), and one still waiting for its slot is replaced by this one (one prompt for a
    /// burst of presses, at the slot the first one had). Not allowed to notify: the signal alone,
    /// for the host's in-app prompt. Then `.none`.
    public func workout(id: String, now: Double, store: Snapshot, notificationsGranted: Bool, badge: Int) -> [Effect] {
        let expiresAt = now + PushinKeys.expirySeconds
        var signal: [DefaultsWrite] = [
            .set(PushinKeys.shouldShowWorkout, .bool(true)), .set(PushinKeys.shieldActionTimestamp, .real(now)),
            .set(PushinKeys.pendingNotificationId, .string(id)), .set(PushinKeys.notificationExpiresAt, .real(expiresAt)),
        ]
        guard notificationsGranted, let slot = Self.fireTime(now: now, store: store, expiresAt: expiresAt) else {
            return [.setDefaults(signal, atomic: true), .trace("workout_signal", ["id": id, "notify": "host"]), .respond(.none)]
        }
        var fireAt = slot
        var out: [Effect] = []
        let lastTime = store.double(PushinKeys.lastNotificationTime)
        var replaced: String?
        if lastTime > now, let waiting = store.string(PushinKeys.lastScheduledNotificationId) {
            // The last one has not fired yet: this press takes its slot instead of queueing behind it.
            fireAt = lastTime
            replaced = waiting
        }
        // The notification first, then the signal and the schedule record in one write (H9). The
        // record says "the extension scheduled this one" and makes the host skip it, so it must
        // never come before the notification it records: explore killed the call between the two
        // (record written first) and the press was never prompted. Now a call killed before the
        // notification leaves nothing (iOS lost the press, listed as lost work); one killed after it
        // leaves the notification — the user is prompted once — and no signal for the host to
        // prompt again.
        out.append(.addNotification(WorkoutNotification.request(
            id: id, expiresAt: expiresAt, badge: badge, fireInSeconds: fireAt > now ? fireAt - now : nil)))
        if let replaced { out.append(.removeNotifications(.pending([replaced]))) }
        signal += [.set(PushinKeys.lastScheduledNotificationId, .string(id)), .set(PushinKeys.lastNotificationTime, .real(fireAt))]
        out.append(.setDefaults(signal, atomic: true))
        var f = ["id": id, "notify": "extension", "fireAt": String(fireAt)]
        if let replaced { f["replaced"] = replaced }
        out.append(.trace("workout_signal", f))
        out.append(.respond(.none))
        return out
    }

    /// The earliest time a new workout notification may fire under the throttle ("max 1
    /// notification per minute"), or nil when that is after `expiresAt` ("none for an expired
    /// signal"). A notification still waiting for its slot (`last_notification_time` in the future)
    /// keeps that slot: the caller replaces it.
    public static func fireTime(now: Double, store: Snapshot, expiresAt: Double) -> Double? {
        let lastTime = store.double(PushinKeys.lastNotificationTime)
        let fireAt = lastTime > now ? lastTime : max(now, lastTime + PushinKeys.throttleSeconds)
        return fireAt <= expiresAt ? fireAt : nil
    }
}
