import HarnessKit
import History
@testable import PushinPack
import Testing

/// The checker by hand-made histories: each rule passes what the seed promises and names what it
/// does not, and the excuses hold only where the history shows nothing could be done.
@Suite(.timeLimit(.minutes(1))) struct PushinCheckerTests {
    struct H {
        var events: [HistoryEvent] = []
        var mono: Int64 = 1_000
        var pid: Int32 = 100

        mutating func line(_ process: String, _ event: String, at t: Double, pid: Int32? = nil, _ fields: [String: String] = [:]) {
            mono += 1_000
            events.append(HistoryEvent(mono: mono, t: t, process: process, pid: pid ?? 1, event: event, fields: fields))
        }

        mutating func notificationsAllowed(_ status: String = "authorized", at t: Double = 1) {
            line("harness", "authorization", at: t, ["kind": "notifications", "status": status])
        }

        /// A workout press whose extension wrote signal `id` (as-written: one `set` per key).
        mutating func workoutPress(_ id: String, at t: Double, response: String = "none", expires: Double? = nil) {
            pid += 1
            line("shield-action-extension", "callback_begin", at: t, pid: pid, ["action": "primaryButtonPressed", "delivery": id])
            line("shield-action-extension", "defaults_set", at: t, pid: pid, ["keys": "pending_notification_id", "v.pending_notification_id": id])
            line("shield-action-extension", "defaults_set", at: t, pid: pid,
                 ["keys": "notification_expires_at", "v.notification_expires_at": String(expires ?? t + 300)])
            line("shield-action-extension", "responded", at: t, pid: pid, ["response": response])
        }

        mutating func emergencyPress(at t: Double, writes: [Int], response: String = "close") {
            pid += 1
            line("shield-action-extension", "callback_begin", at: t, pid: pid, ["action": "secondaryButtonPressed", "delivery": "e\(pid)"])
            for w in writes { line("shield-action-extension", "defaults_set", at: t, pid: pid, ["v.emergency_unlocks_remaining": String(w)]) }
            line("shield-action-extension", "responded", at: t, pid: pid, ["response": response])
        }

        mutating func delivered(_ id: String, at t: Double) { line("harness", "notification_delivered", at: t, ["identifier": id]) }
        mutating func host(_ state: String, at t: Double) { line("harness", "host_state", at: t, ["state": state]) }

        func finished(at t: Double = 10_000) -> [HistoryEvent] {
            events + [HistoryEvent(mono: mono + 1, t: t, process: "harness", pid: 1, event: "run_finished", fields: [:])]
        }
    }

    @Test func aPressAnsweredByItsNotificationPassesAndIsMeasured() {
        var h = H()
        h.notificationsAllowed()
        h.host("suspended", at: 5)
        h.workoutPress("a", at: 100)
        h.delivered("a", at: 100.5)
        let report = PushinChecker.check(h.finished())
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        #expect(report.result("workout-press-prompted")?.checkedCount == 1)
        #expect(report.latency("press-to-prompt-host-suspended")?.count == 1)
        #expect(report.latency("press-to-prompt-host-background")?.count == 0)
    }

    @Test func aPressNeverPromptedWhileTheHostSleptIsLost() throws {
        var h = H()
        h.notificationsAllowed()
        h.host("suspended", at: 5)
        h.workoutPress("a", at: 100)
        let report = PushinChecker.check(h.finished())
        let v = try #require(report.violations(of: "workout-press-prompted").first)
        #expect(v.subject == .init(kind: "signal", id: "a"))
        #expect(v.explanation.contains("suspended"))
    }

    @Test func aLaterSignalsPromptAnswersAnEarlierOneButNotAfterItsExpiry() {
        var h = H()
        h.notificationsAllowed()
        h.workoutPress("a", at: 100)
        h.workoutPress("b", at: 150)
        h.delivered("b", at: 200)
        #expect(PushinChecker.check(h.finished()).passed)
        var late = H()
        late.notificationsAllowed()
        late.workoutPress("a", at: 100)
        late.workoutPress("b", at: 390)
        late.delivered("b", at: 420)  // after a's expiry at 400
        #expect(PushinChecker.check(late.finished()).violations(of: "workout-press-prompted").map(\.subject?.id) == ["a"])
    }

    /// Press b replaces a's waiting notification, and b's App Group write is torn (its signal never
    /// lands): b's notification, which the user is shown, still answers a. One a press added
    /// before a does not.
    @Test func aLaterPressesNotificationAnswersAnEarlierSignalWhenItsOwnWriteWasLost() {
        func run(addedAt: Double) -> CheckReport {
            var h = H()
            h.notificationsAllowed()
            if addedAt < 100 {
                h.pid += 1
                h.line("shield-action-extension", "callback_begin", at: addedAt, pid: h.pid, ["action": "primaryButtonPressed", "delivery": "x"])
                h.line("shield-action-extension", "notification_added", at: addedAt, pid: h.pid, ["identifier": "b"])
            }
            h.workoutPress("a", at: 100)
            if addedAt >= 100 {
                h.pid += 1
                h.line("shield-action-extension", "callback_begin", at: addedAt, pid: h.pid, ["action": "primaryButtonPressed", "delivery": "b"])
                h.line("shield-action-extension", "notification_added", at: addedAt, pid: h.pid, ["identifier": "b"])
                h.line("shield-action-extension", "defaults_fault", at: addedAt, pid: h.pid, ["kind": "torn_write", "landed": "last_scheduled_notification_id"])
                h.line("shield-action-extension", "responded", at: addedAt, pid: h.pid, ["response": "none"])
            }
            h.delivered("b", at: 200)
            return PushinChecker.check(h.finished())
        }
        let later = run(addedAt: 150)
        #expect(later.violations(of: "workout-press-prompted").isEmpty, "\(later.violations.map(\.explanation))")
        #expect(later.result("workout-press-prompted")?.checkedCount == 1)
        #expect(run(addedAt: 50).violations(of: "workout-press-prompted").map(\.subject?.id) == ["a"])
    }

    @Test func anEarlierSignalsPromptDoesNotAnswerALaterOne() {
        var h = H()
        h.notificationsAllowed()
        h.workoutPress("a", at: 100)
        h.workoutPress("b", at: 120)
        h.delivered("a", at: 130)
        #expect(PushinChecker.check(h.finished()).violations(of: "workout-press-prompted").map(\.subject?.id) == ["b"])
    }

    @Test func withNotificationsDeniedOnlyAForegroundHostOwesThePrompt() {
        var h = H()
        h.notificationsAllowed("denied")
        h.host("suspended", at: 5)
        h.workoutPress("a", at: 100)
        #expect(PushinChecker.check(h.finished()).passed, "never opened before expiry: not judged")
        h.host("foreground", at: 200)
        #expect(PushinChecker.check(h.finished()).violations(of: "workout-press-prompted").count == 1)
        h.line("host-app", "in_app_prompt", at: 200, ["id": "a"])
        #expect(PushinChecker.check(h.finished()).passed)
    }

    @Test func aSignalExpiringAfterTheRunIsNotJudged() {
        var h = H()
        h.notificationsAllowed()
        h.workoutPress("a", at: 100)
        #expect(PushinChecker.check(h.finished(at: 300)).result("workout-press-prompted")?.checkedCount == 0)
    }

    @Test func twoPromptsForOneSignalAndAPromptWithoutOneAreViolations() {
        var h = H()
        h.notificationsAllowed()
        h.workoutPress("a", at: 100)
        h.delivered("a", at: 100)
        h.delivered("a", at: 200)
        h.delivered("ghost", at: 400)
        let ids = PushinChecker.check(h.finished()).violations(of: "one-prompt-per-signal").compactMap(\.subject?.id)
        #expect(ids == ["a", "ghost"])
    }

    /// An in-app prompt is the app's screen: a host killed at the instant it showed one took it
    /// along, and the relaunched host's prompt is the one the user sees (explore of
    /// pushin-denied.yaml killed hardened between the prompt and its record). Two from live hosts
    /// are two prompts.
    @Test func anInAppPromptThatDiedWithTheHostIsNotASecondPrompt() {
        var h = H()
        h.notificationsAllowed("denied")
        h.workoutPress("a", at: 100)
        h.line("host-app", "in_app_prompt", at: 110, pid: 50, ["id": "a", "status": "denied"])
        h.line("harness", "exit", at: 110, ["target": "host-app", "childPid": "50", "status": "signal 9"])
        h.line("host-app", "in_app_prompt", at: 110.05, pid: 51, ["id": "a", "status": "denied"])
        #expect(PushinChecker.check(h.finished()).violations(of: "one-prompt-per-signal").isEmpty)
        h.line("host-app", "in_app_prompt", at: 200, pid: 51, ["id": "a", "status": "denied"])
        #expect(PushinChecker.check(h.finished()).violations(of: "one-prompt-per-signal").compactMap(\.subject?.id) == ["a"])
    }

    /// H9: a workout call that added its notification and died before its signal landed prompted
    /// that press — its notification belongs to it; the same notification from an emergency call
    /// belongs to no workout signal.
    @Test func aNotificationAWorkoutCallAddedBeforeItDiedIsThatPressesPrompt() {
        var h = H()
        h.notificationsAllowed()
        h.line("shield-action-extension", "callback_begin", at: 100, pid: 60, ["action": "primaryButtonPressed", "delivery": "1"])
        h.line("shield-action-extension", "notification_added", at: 100, pid: 60, ["identifier": "w"])
        h.delivered("w", at: 100)
        h.line("shield-action-extension", "callback_begin", at: 200, pid: 61, ["action": "secondaryButtonPressed", "delivery": "2"])
        h.line("shield-action-extension", "notification_added", at: 200, pid: 61, ["identifier": "e"])
        h.delivered("e", at: 200)
        #expect(PushinChecker.check(h.finished()).violations(of: "one-prompt-per-signal").compactMap(\.subject?.id) == ["e"])
    }

    @Test func notificationsCloserThanAMinuteBreakTheThrottle() {
        var h = H()
        h.notificationsAllowed()
        h.workoutPress("a", at: 100)
        h.workoutPress("b", at: 130)
        h.delivered("a", at: 100)
        h.delivered("b", at: 159.5)
        #expect(PushinChecker.check(h.finished()).violations(of: "one-notification-per-minute").map(\.subject?.id) == ["b"])
        var ok = H()
        ok.notificationsAllowed()
        ok.workoutPress("a", at: 100)
        ok.workoutPress("b", at: 130)
        ok.delivered("a", at: 100)
        ok.delivered("b", at: 160)
        #expect(PushinChecker.check(ok.finished()).passed)
    }

    @Test func aPromptAfterItsSignalExpiredIsAViolation() {
        var h = H()
        h.notificationsAllowed()
        h.workoutPress("a", at: 100)
        h.delivered("a", at: 401)
        let report = PushinChecker.check(h.finished())
        #expect(report.violations(of: "no-prompt-after-expiry").map(\.subject?.id) == ["a"])
        #expect(report.violations(of: "workout-press-prompted").map(\.subject?.id) == ["a"])
    }

    @Test func workoutAndEmergencyPressesAnswerAsTheSeedSays() {
        var h = H()
        h.notificationsAllowed()
        h.workoutPress("a", at: 100, response: "close")
        h.delivered("a", at: 100)
        h.line("host-app", "defaults_set", at: 50, ["v.emergency_unlocks_remaining": "1"])
        h.emergencyPress(at: 200, writes: [0], response: "none")
        let v = PushinChecker.check(h.finished()).violations(of: "shield-press-answered")
        #expect(v.count == 2)
    }

    @Test func emergencyUnlocksAreCountedOneAtATimeAndNeverBelowZero() {
        var h = H()
        h.line("host-app", "defaults_set", at: 50, ["v.emergency_unlocks_remaining": "1"])
        h.emergencyPress(at: 100, writes: [0])
        h.emergencyPress(at: 200, writes: [])
        #expect(PushinChecker.check(h.finished()).passed)
        #expect(PushinChecker.check(h.finished()).result("emergency-unlocks-counted")?.checkedCount == 2)
        var bad = H()
        bad.line("host-app", "defaults_set", at: 50, ["v.emergency_unlocks_remaining": "1"])
        bad.emergencyPress(at: 100, writes: [0])
        bad.emergencyPress(at: 200, writes: [-1])
        let v = PushinChecker.check(bad.finished()).violations(of: "emergency-unlocks-counted")
        #expect(v.count == 2, "the negative value, and a spend with none left")
        var none = H()
        none.line("host-app", "defaults_set", at: 50, ["v.emergency_unlocks_remaining": "2"])
        none.emergencyPress(at: 100, writes: [])
        #expect(PushinChecker.check(none.finished()).violations(of: "emergency-unlocks-counted").count == 1, "an unlock not counted")
    }

    @Test func aTapOpensTheWorkoutWhenTheHostRunsAndLaterDoesNot() {
        var h = H()
        h.line("harness", "notification_tapped", at: 100, ["identifier": "a", "action": "com.apple.UNNotificationDefaultActionIdentifier"])
        #expect(PushinChecker.check(h.finished()).passed, "the host never ran after it: not judged")
        h.line("host-app", "launched", at: 101)
        #expect(PushinChecker.check(h.finished()).violations(of: "tap-opens-workout").count == 1)
        h.line("host-app", "workout_screen_shown", at: 101, ["id": "a", "source": "notification"])
        #expect(PushinChecker.check(h.finished()).passed)
        h.line("harness", "notification_tapped", at: 200, ["identifier": "b", "action": "LATER"])
        h.line("host-app", "workout_screen_shown", at: 201, ["id": "b", "source": "notification"])
        #expect(PushinChecker.check(h.finished()).violations(of: "tap-opens-workout").map(\.subject?.id) == ["b"])
    }

    @Test func aHistoryThatDidNotFinishIsUndecided() {
        var h = H()
        h.workoutPress("a", at: 100)
        #expect(!PushinChecker.check(h.events).decided)
    }
}

/// Lost work is listed beside the verdict (`lostByOS`), never passed over in silence.
@Suite(.timeLimit(.minutes(1))) struct PushinLostWorkTests {
    typealias H = PushinCheckerTests.H

    @Test func aPressNoCallCompletedAndAnOnboardingTapTheHostNeverTookAreListed() throws {
        var h = H()
        h.line("harness", "user_action", at: 10, ["action": "onboard", "press": "0"])
        h.line("host-app", "user_input", at: 10, ["action": "onboard", "seq": "1"])
        h.notificationsAllowed(at: 11)
        h.line("harness", "user_action", at: 100, ["action": "press_workout", "press": "1"])
        h.line("harness", "callback_delivered", at: 100, ["callback": "shieldAction", "delivery": "1", "press": "1", "childPid": "101"])
        h.workoutPress("a", at: 100)
        h.line("harness", "callback_completed", at: 100, ["callback": "shieldAction", "delivery": "1"])
        h.delivered("a", at: 100)
        #expect(PushinChecker.check(h.finished()).lostByOS == nil)
        // iOS drops the next press: no signal, nothing for the rules to judge — but it is said.
        h.line("harness", "user_action", at: 500, ["action": "press_workout", "press": "2"])
        h.line("harness", "callback_dropped", at: 500, ["callback": "shieldAction", "press": "2"])
        h.line("harness", "user_action", at: 900, ["action": "onboard", "press": "0"])
        let report = PushinChecker.check(h.finished())
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        let lost = try #require(report.lostByOS)
        #expect(lost.map(\.subject?.id) == ["2@t=500", "onboard@t=900"])
        #expect(lost[0].explanation.contains("callback_dropped"))
    }
}
