import Foundation
import SystemKit
import Testing
import Until

/// The as-written host's JS side (A3-A5).
@Suite(.timeLimit(.minutes(1))) struct ReminderScreenTests {
    @Test func itAsksForNotificationsAndPollsFromLaunch() {
        var js = ReminderScreen()
        #expect(js.handle(.launched) == [
            .requestAuthorization(.notifications(options: ["alert", "sound"])),
            .startTimer(ReminderScreen.pollTimer, .every(seconds: 5)),
        ])
    }

    @Test func everyEmissionFiresItsOwnReminder() {
        var js = ReminderScreen()
        let now = Date(timeIntervalSince1970: 100)
        let a = js.handle(.appOpenedEmitted(appToken: "screen_time_app", eventTimestampMillis: 99_000, via: "poll", now: now))
        let b = js.handle(.appOpenedEmitted(appToken: "screen_time_app", eventTimestampMillis: 99_000, via: "notification", now: now))
        let ids = (a + b).compactMap { if case .addNotification(let r) = $0 { r.identifier } else { nil } }
        #expect(ids == ["reminder-100000-1", "reminder-100000-2"], "the JS side does not deduplicate: the seed relies on the native side")
        #expect(a.last == .trace("reminder", ["identifier": "reminder-100000-1", "eventTimestamp": "99000", "via": "poll", "appToken": "screen_time_app"]))
    }

    @Test func theScreenTimePermissionIsAskedOnTheTrigger() {
        var js = ReminderScreen()
        #expect(js.handle(.appTriggerTapped) == [.requestAuthorization(.screenTime(member: "individual"))])
        #expect(js.handle(.monitoringSettled(rejectedCode: nil, message: nil)) == [.trace("monitoring_started", [:])])
        #expect(js.handle(.monitoringSettled(rejectedCode: "NO_APPS", message: "No apps selected"))
            == [.trace("monitoring_rejected", ["code": "NO_APPS", "message": "No apps selected"])])
    }
}
