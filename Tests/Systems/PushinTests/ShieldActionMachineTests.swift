import AppGroup
import Pushin
import SystemKit
import Testing

/// The shield-action machine: the emergency unlock (both variants) and the hardened workout path.
@Suite(.timeLimit(.minutes(1))) struct ShieldActionMachineTests {
    @Test func anEmergencyUnlockSpendsOneAndNeverGoesBelowZero() {
        let m = ShieldActionMachine(variant: .asWritten)
        #expect(m.emergencyUnlock(store: [PushinKeys.emergencyUnlocksRemaining: .integer(2)]) == [
            .setDefaults([.set(PushinKeys.emergencyUnlocksRemaining, .integer(1))], atomic: true),
            .trace("emergency_unlock", ["remaining": "1"]), .respond(.close),
        ])
        #expect(m.emergencyUnlock(store: [PushinKeys.emergencyUnlocksRemaining: .integer(0)]) == [
            .trace("emergency_unlock_refused", ["remaining": "0"]), .respond(.close),
        ])
        #expect(m.emergencyUnlock(store: [:]).last == .respond(.close))
    }

    static func adds(_ effects: [Effect]) -> [NotificationRequest] {
        effects.compactMap { if case .addNotification(let r) = $0 { r } else { nil } }
    }

    /// H9: the notification first, then the signal and its schedule record in one write — the
    /// record makes the host skip the signal, so it never precedes the notification it records.
    @Test func hardenedNotifiesThenWritesTheSignalInOneWriteAndAnswersNone() throws {
        let out = ShieldActionMachine(variant: .hardened).workout(id: "w", now: 1000, store: [:], notificationsGranted: true, badge: 1)
        guard case .addNotification = out.first else {
            Issue.record("first effect: \(String(describing: out.first))")
            return
        }
        guard case .setDefaults(let writes, atomic: true) = out[1] else {
            Issue.record("second effect: \(String(describing: out[1]))")
            return
        }
        #expect(writes.map(\.key) == [
            PushinKeys.shouldShowWorkout, PushinKeys.shieldActionTimestamp, PushinKeys.pendingNotificationId, PushinKeys.notificationExpiresAt,
            PushinKeys.lastScheduledNotificationId, PushinKeys.lastNotificationTime,
        ])
        #expect(writes.first { $0.key == PushinKeys.notificationExpiresAt }?.value == .real(1300))
        let request = try #require(Self.adds(out).first)
        #expect(request.identifier == "w" && request.trigger == nil && request.content.categoryIdentifier == "WORKOUT_REMINDER")
        #expect(out.last == .respond(.none))
    }

    @Test func hardenedHoldsTheThrottleAndTakesTheSlotOfOneStillWaiting() throws {
        let m = ShieldActionMachine(variant: .hardened)
        // Shown 20 s ago: this one fires 40 s from now.
        let throttled = m.workout(id: "b", now: 1020, store: [PushinKeys.lastNotificationTime: .real(1000), PushinKeys.lastScheduledNotificationId: "a"],
            notificationsGranted: true, badge: 1)
        #expect(Self.adds(throttled).first?.trigger?.timeInterval == 40)
        #expect(!throttled.contains { if case .removeNotifications = $0 { true } else { false } })
        // "b" still waits for 1060: "c" takes that slot and "b" is withdrawn.
        let replacing = m.workout(id: "c", now: 1030, store: [PushinKeys.lastNotificationTime: .real(1060), PushinKeys.lastScheduledNotificationId: "b"],
            notificationsGranted: true, badge: 1)
        #expect(Self.adds(replacing).first?.trigger?.timeInterval == 30)
        #expect(replacing.contains(.removeNotifications(.pending(["b"]))))
        #expect(replacing.contains(.trace("workout_signal", ["id": "c", "notify": "extension", "fireAt": "1060.0", "replaced": "b"])))
    }

    @Test func hardenedLeavesTheInAppPromptToTheHostWhenNotificationsAreNotAllowed() {
        let out = ShieldActionMachine(variant: .hardened).workout(id: "w", now: 10, store: [:], notificationsGranted: false, badge: 1)
        #expect(Self.adds(out).isEmpty)
        #expect(out.contains(.trace("workout_signal", ["id": "w", "notify": "host"])))
        #expect(out.last == .respond(.none))
    }

    @Test func theThrottleSlotIsNeverPastTheExpiry() {
        #expect(ShieldActionMachine.fireTime(now: 100, store: [PushinKeys.lastNotificationTime: .real(90)], expiresAt: 400) == 150)
        #expect(ShieldActionMachine.fireTime(now: 100, store: [:], expiresAt: 400) == 100)
        #expect(ShieldActionMachine.fireTime(now: 100, store: [PushinKeys.lastNotificationTime: .real(90)], expiresAt: 140) == nil)
    }
}
