import PropertyList
import Foundation
import SystemKit

/// Pushin's host app (Flutter + AppDelegate + NotificationManager, "Component Architecture" 2–4)
/// as one pure state machine: events in, effects out. The Flutter side is part of it: the
/// navigation bridge's `navigateToWorkout` is the trace line `workout_screen_shown`.
///
/// Both variants share onboarding, the deep link and the notification's content; they differ in
/// when and what the manager schedules (`check`): as-written polls the App Group "every 2 seconds
/// when app is active" and on launch/foreground, with the seed's `shouldScheduleNotification`
/// exactly; hardened leaves scheduling to the shield extension (`ShieldActionMachine`) and only
/// covers what the extension could not do, never for an expired signal (README, findings).
public struct HostApp: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    /// A pending notification request as `getPendingNotificationRequests` hands it over.
    public struct PendingRequest: Sendable, Equatable {
        public var identifier: String
        /// `userInfo["expiresAt"]`, when it holds a number.
        public var expiresAt: Double?

        public init(identifier: String, expiresAt: Double?) {
            self.identifier = identifier
            self.expiresAt = expiresAt
        }
    }

    public enum Event: Sendable, Equatable {
        /// The process started. `pending`: the app's pending notification requests;
        /// `notificationStatus`: `getNotificationSettings`' status (`authorized`, `denied`, …).
        case launched(now: Double, store: Snapshot, pending: [PendingRequest], notificationStatus: String)
        /// The user finished onboarding: the apps to block and the emergency unlocks they get (A3).
        case onboard(apps: [String], emergencyUnlocks: Int)
        /// The answer to the onboarding's permission request.
        case authorization(granted: Bool, status: String)
        case becameActive(now: Double, store: Snapshot)
        case enteredBackground
        /// The 2-second poll fired.
        case poll(now: Double, store: Snapshot)
        /// `application(_:open:options:)`.
        case openURL(String)
        /// The user tapped the notification or one of its actions (`UNUserNotificationCenterDelegate`).
        case notificationResponse(identifier: String, action: String, deepLink: String?)
    }

    public let variant: PushinVariant
    /// `getNotificationSettings`' status as last seen (launch, or the prompt's answer).
    public private(set) var notificationStatus = "notDetermined"
    public private(set) var active = false
    /// `UIApplication.shared.applicationIconBadgeNumber` as this process knows it (A6).
    public private(set) var badge = 0

    public init(variant: PushinVariant) { self.variant = variant }

    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .launched(let now, let store, let pending, let status):
            notificationStatus = status
            active = false
            // "Initialize notification manager on app launch": its category.
            var out: [Effect] = [.setNotificationCategories([WorkoutNotification.category])]
            // "Cleanup: Remove expired pending notifications on app launch".
            let expired = pending.filter { ($0.expiresAt ?? .infinity) < now }.map(\.identifier)
            if !expired.isEmpty { out.append(.removeNotifications(.pending(expired))) }
            // "Immediate check on app launch/foreground".
            out += check(now: now, store: store)
            // Hardened: an onboarding cut short (the app died before iOS answered the prompt)
            // asks again, else the user could never be notified.
            if variant == .hardened, status == "notDetermined", store[PushinKeys.emergencyUnlocksRemaining] != nil {
                out.append(.requestAuthorization(.notifications(options: ["alert", "sound", "badge"])))
            }
            return out
        case .onboard(let apps, let unlocks):
            // "Request notification permissions during onboarding"; the blocked apps and the
            // emergency unlocks are the app's existing behaviour, not shown (A3).
            return [
                .trace("onboarded", ["apps": apps.joined(separator: ","), "emergencyUnlocks": String(unlocks)]),
                .applyShields(apps),
                .setDefaults([.set(PushinKeys.emergencyUnlocksRemaining, .integer(Int64(unlocks)))], atomic: true),
                .requestAuthorization(.notifications(options: ["alert", "sound", "badge"])),
            ]
        case .authorization(_, let status):
            notificationStatus = status
            return []
        case .becameActive(let now, let store):
            active = true
            // "every 2 seconds when app is active"; "Immediate check on app launch/foreground".
            return [.startTimer(PushinKeys.pollTimer, .every(seconds: PushinKeys.pollSeconds))] + check(now: now, store: store)
        case .enteredBackground:
            active = false
            // "Clean up observers when app backgrounds".
            return [.cancelTimer(PushinKeys.pollTimer)]
        case .poll(let now, let store):
            return active ? check(now: now, store: store) : []
        case .openURL(let url):
            return openURL(url, source: "deepLink")
        case .notificationResponse(let id, let action, let deepLink):
            // The seed shows `handleNotificationResponse(_:)`'s signature only (A5): the
            // notification itself and START_WORKOUT open its `deepLink`; LATER and dismiss do not.
            guard action == NotificationResponse.defaultAction || action == PushinKeys.startWorkoutAction else {
                return [.trace("workout_later", ["id": id, "action": action])]
            }
            return openURL(deepLink ?? PushinKeys.workoutURL, source: "notification", id: id)
        }
    }

    /// "Deep Link Processing": `pushin://workout` → `navigateToWorkoutSelection()` → the Flutter
    /// bridge's `navigateToWorkout` (A7: the Dart side takes it, on a cold start too).
    func openURL(_ url: String, source: String, id: String? = nil) -> [Effect] {
        guard let u = URL(string: url), u.scheme == PushinKeys.urlScheme, u.host == "workout" else {
            return [.trace("url_ignored", ["url": url])]
        }
        var f = ["source": source]
        if let id { f["id"] = id }
        return [.trace("workout_screen_shown", f)]
    }

    /// The check, per variant.
    mutating func check(now: Double, store: Snapshot) -> [Effect] {
        switch variant {
        case .asWritten: return checkAsWritten(now: now, store: store)
        case .hardened: return checkHardened(now: now, store: store)
        }
    }

    /// The notification the seed builds, badge included: `applicationIconBadgeNumber + 1`.
    mutating func workoutRequest(id: String, expiresAt: Double, fireInSeconds: Double? = nil) -> NotificationRequest {
        badge += 1
        return WorkoutNotification.request(id: id, expiresAt: expiresAt, badge: badge, fireInSeconds: fireInSeconds)
    }
}
