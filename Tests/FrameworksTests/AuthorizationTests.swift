@_spi(ScreenTimeHarness) import FamilyControls
import Foundation
import ScreenTimeModel
import ScreenTimeOS
import SystemFiles
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
        try await center.requestAuthorization(for: .individual)
        #expect(center.authorizationStatus == .approved)
        // Approved: no new prompt, no wait.
        try await center.requestAuthorization(for: .individual)
        #expect(try FamilyControlsAuthority.openRequest(on: os) == nil)
    }

    @Test func aDeniedPromptThrowsAndNoAnswerIsBounded() async throws {
        let t = try TestDevice()
        let center = AuthorizationCenter(device: t.device)
        center.answerWallCapSeconds = 0.3
        await #expect(throws: SystemFileError.self) { try await center.requestAuthorization(for: .individual) }
        let os = t.device
        center.answerWallCapSeconds = 5
        // The unanswered request stays on disk; the OS answers the app's next one.
        let stale = try FamilyControlsAuthority.openRequest(on: os)?.id
        _ = fakeOS {
            guard let r = try FamilyControlsAuthority.openRequest(on: os), r.id != stale else { return false }
            try FamilyControlsAuthority.setStatus("denied", answering: r.id, on: os)
            return true
        }
        await #expect(throws: FamilyControlsError.authorizationCanceled) { try await center.requestAuthorization(for: .individual) }
        #expect(center.authorizationStatus == .denied)
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
        #expect(try await center.requestAuthorization(options: [.alert, .sound, .badge]))
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled && settings.badgeSetting == .disabled)
        // Decided: answered from the status, without a prompt (the wall cap would fail it otherwise).
        center.answerWallCapSeconds = 0.1
        #expect(try await center.requestAuthorization(options: [.alert]))
    }
}
