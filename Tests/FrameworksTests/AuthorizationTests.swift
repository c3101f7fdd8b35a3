import AppGroup
@_spi(ScreenTimeHarness) import FamilyControls
import Foundation
import ScreenTimeModel
import ScreenTimeOS
import OSFiles
import Testing
@_spi(ScreenTimeHarness) import UserNotifications

/// The scripted user, on its own thread: waits for the app's prompt and answers it.
func fakeOS(_ seconds: Double = 3, answer: @escaping @Sendable () throws -> Bool) -> Thread {
    let t = Thread {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? answer()) == true { return }
            usleep(2000)
        }
    }
    t.start()
    return t
}

@Suite(.timeLimit(.minutes(1))) struct AuthorizationTests {
    @Test func familyControlsRequestIsAnsweredByTheOS() async throws {
        let t = try TestDevice()
        let center = AuthorizationCenter(device: t.device)
        #expect(center.authorizationStatus == .notDetermined)
        let os = t.device
        _ = fakeOS {
            guard let r = try FamilyControlsAuthority.openRequest(on: os) else { return false }
            #expect(r.member == "individual")
            try FamilyControlsAuthority.setStatus("approved", answering: r.id, on: os)
            return true
        }
        try await bounded(30) { try await center.requestAuthorization(for: .individual) }
        #expect(center.authorizationStatus == .approved)
        // Approved: no new prompt, no wait.
        try await bounded(30) { try await center.requestAuthorization(for: .individual) }
        #expect(try FamilyControlsAuthority.openRequest(on: os) == nil)
    }

    @Test func aDeniedPromptThrowsAndNoAnswerIsBounded() async throws {
        let t = try TestDevice()
        let center = AuthorizationCenter(device: t.device)
        center.answerWallCapSeconds = 0.3
        await #expect(throws: OSFileError.self) { try await bounded(30) { try await center.requestAuthorization(for: .individual) } }
        let os = t.device
        center.answerWallCapSeconds = 5
        // The unanswered request stays on disk; the OS answers the app's next one.
        let stale = try FamilyControlsAuthority.openRequest(on: os)?.id
        _ = fakeOS {
            guard let r = try FamilyControlsAuthority.openRequest(on: os), r.id != stale else { return false }
            try FamilyControlsAuthority.setStatus("denied", answering: r.id, on: os)
            return true
        }
        await #expect(throws: FamilyControlsError.authorizationCanceled) { try await bounded(30) { try await center.requestAuthorization(for: .individual) } }
        #expect(center.authorizationStatus == .denied)
    }

    /// The status on disk answers a request only when it names that request: an earlier denial
    /// is not the answer to the app's next prompt.
    @Test func anAnswerToAnEarlierRequestDoesNotAnswerTheNextOne() async throws {
        let t = try TestDevice()
        let os = t.device
        try FamilyControlsAuthority.setStatus("denied", answering: "an-earlier-request", on: os)
        let center = AuthorizationCenter(device: t.device)
        #expect(center.authorizationStatus == .denied)
        center.answerWallCapSeconds = 20
        _ = fakeOS(10) {
            guard let r = try FamilyControlsAuthority.openRequest(on: os) else { return false }
            try FamilyControlsAuthority.setStatus("approved", answering: r.id, on: os)
            return true
        }
        try await bounded(30) { try await center.requestAuthorization(for: .individual) }
        #expect(center.authorizationStatus == .approved)
    }

    /// No answer ends at whichever bound comes first: here device time (a fast clock), long
    /// before the wall cap.
    @Test func anUnansweredPromptEndsAtItsDeviceTimeBound() throws {
        let t = try TestDevice()
        try DeviceClock.write(DeviceClock.Configuration(epochUnixSeconds: 1_772_438_400, rate: 3600), to: t.device.root)
        let center = AuthorizationCenter(device: t.device)
        center.answerDeviceSeconds = 1800  // half a device hour: 0.5 s of wall time at 3600x
        center.answerWallCapSeconds = 30
        let started = ContinuousClock.now
        do {
            try bounded(30) { try center.requestAuthorizationBlocking(for: .individual) }
            Issue.record("an unanswered prompt returned")
        } catch OSFileError.noAnswer(_, let device, let wall) {
            #expect(device >= 1800 && wall < 10, "device \(device) s, wall \(wall) s")
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func notificationAuthorizationIsAskedOnceThenRemembered() async throws {
        let t = try TestDevice()
        let center = UNUserNotificationCenter(device: t.device)
        let os = t.device
        _ = fakeOS {
            guard let r = try NotificationAuthority.openAuthorizationRequest(on: os) else { return false }
            #expect(r.options == ["badge", "sound", "alert"])
            try NotificationAuthority.setAuthorization("authorized", options: ["alert", "sound"], answering: r.id, on: os)
            return true
        }
        #expect(try await bounded(30) { try await center.requestAuthorization(options: [.alert, .sound, .badge]) })
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled && settings.badgeSetting == .disabled)
        // Decided: answered from the status, without a prompt (the wall cap would fail it otherwise).
        center.answerWallCapSeconds = 0.1
        #expect(try await bounded(30) { try await center.requestAuthorization(options: [.alert]) })
    }
}
