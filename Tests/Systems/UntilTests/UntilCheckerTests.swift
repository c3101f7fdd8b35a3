import HarnessKit
import History
import Testing
@testable import UntilPack

/// The checker, by hand-made histories: each rule fails where it should, and is silent where the
/// history shows the app could not have done better.
@Suite(.timeLimit(.minutes(1))) struct UntilCheckerTests {
    struct History {
        var events: [HistoryEvent] = []
        var mono: Int64 = 1_000_000
        var delivery = 0

        mutating func line(_ t: Double, _ process: String, _ event: String, _ fields: [String: String] = [:], pid: Int32 = 1) {
            mono += 1_000_000
            events.append(HistoryEvent(mono: mono, t: t, process: process, pid: pid, event: event, fields: fields))
        }

        /// The host launched at `t` (pid 7) and on screen.
        mutating func hostUp(_ t: Double) {
            line(t, "harness", "spawn", ["target": "host-app", "childPid": "7"])
            line(t, "harness", "host_state", ["state": "foreground"])
        }

        /// iOS calls eventDidReachThreshold `calls` times at `t`; `completed`: the calls returned.
        mutating func report(_ t: Double, calls: Int = 1, completed: Bool = true) {
            for _ in 0..<calls {
                delivery += 1
                let id = String(delivery)
                line(t, "harness", "callback_delivered", ["callback": "eventDidReachThreshold", "activity": "untilMonitoring", "event": "appOpened", "delivery": id, "childPid": "9"])
                line(t, "harness", completed ? "callback_completed" : "callback_failed", ["callback": "eventDidReachThreshold", "delivery": id])
            }
        }

        /// The host fires reminder `id` for the report at `reportT`, and iOS shows it.
        mutating func reminder(_ t: Double, _ id: String, reportT: Double?, shown: Bool = true) {
            line(t, "host-app", "reminder", ["identifier": id, "eventTimestamp": reportT.map { String(Int64($0 * 1000)) } ?? "-", "via": "poll"], pid: 7)
            if shown { line(t, "harness", "notification_delivered", ["identifier": id]) }
        }

        func finished(_ t: Double) -> [HistoryEvent] {
            events + [HistoryEvent(mono: mono + 1, t: t, process: "harness", pid: 1, event: "run_finished", fields: [:])]
        }
    }

    @Test func aReportRemindedOfAtOncePassesEveryRuleAndIsMeasured() {
        var h = History()
        h.hostUp(0)
        h.report(100)
        h.reminder(100, "r1", reportT: 100)
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.passed)
        for rule in ["every-report-reminds", "no-double-reminder", "no-reminder-without-report", "reminder-within-bound"] {
            #expect(report.result(rule)?.checkedCount == 1, "\(rule)")
        }
        #expect(report.latency("report-to-reminder")?.count == 1)
    }

    @Test func aReportNeverRemindedOfThoughTheHostWasOnScreenIsLost() throws {
        var h = History()
        h.report(100)
        h.report(200)
        h.reminder(300, "r2", reportT: 200)
        h.hostUp(300)
        let report = UntilChecker.check(h.finished(1_000))
        let v = try #require(report.violations(of: "every-report-reminds").first)
        #expect(v.subject?.id == "untilMonitoring/appOpened@100000")
        #expect(v.explanation.contains("the next report came at 200000"))
        #expect(report.violations.count == 1)
    }

    @Test func aReportTheHostNeverHadAChanceToSeeIsNotJudged() {
        var h = History()
        h.hostUp(0)
        h.line(50, "harness", "host_state", ["state": "background"])
        h.line(60, "harness", "signal", ["target": "host-app", "childPid": "7", "signal": "STOP"])  // iOS suspends it
        h.report(100)
        h.line(980, "harness", "exit", ["target": "host-app", "childPid": "7", "status": "signal 9"])
        h.hostUp(990)  // on screen only 10 s before the end: less than the grace
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.passed)
        #expect(report.result("every-report-reminds")?.checkedCount == 0)
    }

    @Test func aStoppedHostOnScreenHasNoChance() {
        var h = History()
        h.hostUp(0)
        h.line(90, "harness", "signal", ["target": "host-app", "childPid": "7", "signal": "STOP"])
        h.report(100)
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.result("every-report-reminds")?.checkedCount == 0)
        #expect(report.passed)
    }

    @Test func oneReportCalledTwiceAndRemindedOfOnceIsOneReport() {
        var h = History()
        h.hostUp(0)
        h.report(100, calls: 2)
        h.reminder(100, "r1", reportT: 100)
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.passed)
        #expect(report.result("no-double-reminder")?.checkedCount == 1)
    }

    @Test func twoRemindersOfOneReportAreADouble() throws {
        var h = History()
        h.hostUp(0)
        h.report(100, calls: 2)
        h.reminder(100, "r1", reportT: 100)
        h.reminder(101, "r2", reportT: 100)
        let report = UntilChecker.check(h.finished(1_000))
        let v = try #require(report.violations(of: "no-double-reminder").first)
        #expect(v.explanation.contains("2 reminders: r1, r2"))
    }

    @Test func theSameIdentifierAgainReplacesAndIsNoDouble() {
        var h = History()
        h.hostUp(0)
        h.report(100)
        h.reminder(100, "r1", reportT: 100)
        h.reminder(101, "r1", reportT: 100)
        #expect(UntilChecker.check(h.finished(1_000)).passed)
    }

    @Test func aReminderForNoReportIsAPhantom() throws {
        var h = History()
        h.hostUp(0)
        h.reminder(100, "r1", reportT: 50)
        h.reminder(101, "r2", reportT: nil)
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.violations(of: "no-reminder-without-report").map { $0.subject?.id } == ["r1", "r2"])
    }

    @Test func aReminderNamingATimeLongAfterTheLastReportIsAPhantom() throws {
        var h = History()
        h.hostUp(0)
        h.report(100)
        h.reminder(100, "r1", reportT: 100)
        h.reminder(200, "r2", reportT: 150)  // 50 s after the only report: not its timestamp
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.violations(of: "no-reminder-without-report").map { $0.subject?.id } == ["r2"])
        #expect(report.violations(of: "no-double-reminder").isEmpty)
    }

    @Test func aReminderNeverShownDoesNotCount() throws {
        var h = History()
        h.hostUp(0)
        h.report(100)
        h.reminder(100, "r1", reportT: 100, shown: false)
        let report = UntilChecker.check(h.finished(1_000))
        #expect(!report.violations(of: "every-report-reminds").isEmpty)
        #expect(report.result("no-reminder-without-report")?.checkedCount == 0)
    }

    @Test func aRunningHostThatRemindsLateBreaksTheBound() throws {
        var h = History()
        h.hostUp(0)
        h.report(100)
        h.reminder(110, "r1", reportT: 100)
        let report = UntilChecker.check(h.finished(1_000))
        let v = try #require(report.violations(of: "reminder-within-bound").first)
        #expect(v.explanation.contains("10.0 s later"))
        #expect(report.violations(of: "every-report-reminds").isEmpty)
    }

    @Test func staleReadsExcuseTheBoundAndDelayTheChance() {
        var h = History()
        h.hostUp(0)
        h.report(100)
        h.line(101, "host-app", "defaults_fault", ["kind": "stale_read", "staleSeconds": "120"], pid: 7)
        h.reminder(221, "r1", reportT: 100)
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.passed)
        #expect(report.result("reminder-within-bound")?.checkedCount == 0)
        #expect(report.latency("report-to-reminder")?.excluded["stale reads"] == 1)
    }

    @Test func openingsIOSNeverReportedAreListedNotBlamed() throws {
        var h = History()
        h.hostUp(0)
        h.line(50, "harness", "callback_dropped", ["callback": "eventDidReachThreshold", "fault": "drop"])
        h.report(100, completed: false)
        let report = UntilChecker.check(h.finished(1_000))
        #expect(report.passed)
        #expect(report.lostByOS?.count == 2)
        #expect(report.result("every-report-reminds")?.checkedCount == 0)
    }

    @Test func aSaveWithAppsMustRegisterMonitoring() throws {
        var h = History()
        h.hostUp(0)
        h.line(10, "harness", "user_action", ["action": "select_apps", "apps": "com.a"])
        h.line(20, "harness", "user_action", ["action": "save_reminder"])
        h.line(20, "host-app", "monitoring_rejected", ["code": "MONITORING_ERROR"], pid: 7)
        let report = UntilChecker.check(h.finished(1_000))
        let v = try #require(report.violations(of: "monitoring-started").first)
        #expect(v.relevantEvents.map(\.event) == ["user_action", "user_action", "monitoring_rejected"])
        var ok = History()
        ok.line(10, "harness", "user_action", ["action": "select_apps", "apps": "com.a"])
        ok.line(20, "harness", "user_action", ["action": "save_reminder"])
        ok.line(20, "harness", "monitoring_registered", ["activity": "untilMonitoring"])
        #expect(UntilChecker.check(ok.finished(1_000)).result("monitoring-started") == .init(name: "monitoring-started", passed: true, checkedCount: 1))
    }

    /// The host died in a tap of the reminder screen and the user did not tap again: no process
    /// could register what never reached it — the save before anything came of it, or the pick
    /// before it reached the App Group. Once the save wrote, the relaunched host is to finish it.
    @Test func aSaveWhoseScreenDiedWithTheHostUnseenIsExcused() {
        func run(lost action: String, at t: Double, wrote: Bool) -> CheckReport {
            var h = History()
            h.hostUp(0)
            for (userT, user, tap) in [(5.0, "create_reminder", "app_trigger"), (10, "select_apps", "select_apps"), (20, "save_reminder", "save_reminder")] {
                h.line(userT, "harness", "user_action", user == "select_apps" ? ["action": user, "apps": "com.a"] : ["action": user])
                guard tap == action else { continue }
                h.line(t, "host-app", "user_input", ["action": action, "seq": "3"], pid: 7)
                if wrote { h.line(t, "host-app", "defaults_set", ["suite": "group.com.ibnuj.until", "keys": "apps", "v.apps": "com.a"], pid: 7) }
                h.line(t, "host-app", "failpoint", ["label": "host-app:x#1", "action": "kill"], pid: 7)
                h.line(t, "harness", "exit", ["target": "host-app", "childPid": "7", "status": "signal 9"])
                h.line(t, "harness", "user_tap_lost", ["target": "host-app", "action": action, "seq": "3", "how": "taken in, not finished", "why": "the user does not tap again (user.retry: never)"])
            }
            return UntilChecker.check(h.finished(1_000))
        }
        #expect(run(lost: "save_reminder", at: 21, wrote: false).result("monitoring-started") == .init(name: "monitoring-started", passed: true, checkedCount: 1))
        #expect(run(lost: "select_apps", at: 11, wrote: false).result("monitoring-started")?.passed == true)
        #expect(run(lost: "app_trigger", at: 6, wrote: false).result("monitoring-started")?.passed == true)
        #expect(run(lost: "save_reminder", at: 21, wrote: true).violations(of: "monitoring-started").count == 1)
        #expect(run(lost: "select_apps", at: 11, wrote: true).violations(of: "monitoring-started").count == 1)
    }

    @Test func aHistoryThatDidNotFinishIsUndecided() {
        var h = History()
        h.report(100)
        #expect(!UntilChecker.check(h.events).decided)
    }
}
