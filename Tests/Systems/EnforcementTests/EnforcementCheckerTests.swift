import Enforcement
@testable import EnforcementPack
import Foundation
import HarnessKit
import History
import Testing

/// The checker, by hand-made histories: each rule passes the right history and names the broken
/// promise in the wrong one.
@Suite(.timeLimit(.minutes(1))) struct EnforcementCheckerTests {
    static let t0 = RulesTests.nine
    static let focus = Mode(id: "focus", name: "Focus", apps: ["a", "b"], startMinute: 8 * 60, endMinute: 12 * 60, precedence: 1)

    struct History {
        var events: [HistoryEvent] = []
        var mono: Int64 = 1_000

        mutating func line(_ at: Double, _ process: String, _ event: String, _ fields: [String: String] = [:]) {
            mono += 1_000
            events.append(HistoryEvent(mono: mono, t: EnforcementCheckerTests.t0 + at, process: process, pid: 1, event: event, fields: fields))
        }

        mutating func shields(_ at: Double, _ apps: String) { line(at, "harness", "shields", ["apps": apps]) }

        func finished(at: Double) -> [HistoryEvent] {
            events + [HistoryEvent(mono: mono + 1, t: EnforcementCheckerTests.t0 + at, process: "harness", pid: 1, event: "run_finished", fields: [:])]
        }
    }

    /// Apps a and b selected, the focus mode on, a 5-minute grant for a at t=10 (ends t=310).
    static func base() -> History {
        var h = History()
        h.line(0, "harness", "run_started", ["timeZone": "Europe/Berlin"])
        h.line(1, "host", "selection_saved", ["apps": "a,b"])
        h.line(2, "host", "mode_enabled", ["mode": "focus", "modes": Rules.json([focus])])
        h.shields(2, "a,b")
        h.line(10, "host", "grant_created", ["grant": "g1", "app": "a", "grants": Rules.json([Grant(id: "g1", app: "a", startTs: t0 + 10, endsTs: t0 + 310)])])
        h.shields(10, "b")
        return h
    }

    @Test func aGrantReshieldedAtItsEndPassesAndIsMeasured() {
        var h = Self.base()
        h.line(310, "monitor-extension", "shields_set", ["apps": "a,b"])
        h.shields(310, "a,b")
        h.line(400, "harness", "user_action", ["action": "open_app", "app": "a"])
        let report = EnforcementChecker.check(h.finished(at: 600))
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        #expect(report.result("grant-end-reshields")?.checkedCount == 1)
        #expect(report.result("shields-match-formula")?.checkedCount ?? 0 > 0)
        #expect(report.latency("reshield-latency")?.count == 1)
        #expect(report.latency("reshield-latency")?.p50Micros == 0)
    }

    @Test func aReshieldTooLateIsAViolationAboutThatGrant() throws {
        var h = Self.base()
        h.line(5, "host", "monitoring_error", ["activity": "grant.g1", "error": "intervalTooShort"])
        h.shields(500, "a,b")
        let report = EnforcementChecker.check(h.finished(at: 700))
        let v = try #require(report.violations.first { $0.invariant == "grant-end-reshields" })
        #expect(v.subject?.id == "g1")
        #expect(v.explanation.contains("190 s"))
        #expect(report.latency("reshield-latency")?.p50Micros ?? 0 > 100_000_000 / 2)
    }

    @Test func aLostCallbackIsBoundedByTheNextFallbackTrigger() throws {
        var h = Self.base()
        h.line(310, "harness", "callback_dropped", ["activity": "grant.g1", "callback": "intervalDidEnd"])
        h.line(450, "harness", "host_state", ["state": "foreground"])
        var late = h
        h.shields(455, "a,b")
        #expect(EnforcementChecker.check(h.finished(at: 700)).passed)
        late.shields(600, "a,b")
        let v = try #require(EnforcementChecker.check(late.finished(at: 700)).violations.first { $0.invariant == "grant-end-reshields" })
        #expect(v.explanation.contains("the host in the foreground"))
    }

    /// An extension takes one call at a time (EMULATED-IOS.md §10.1): the grant's intervalDidEnd made at
    /// its end waited for the monitor's previous call (held by the nemesis) and ran 70 s later —
    /// due a minute after it ran; a re-shield later than that is still the app's.
    @Test func aCallThatWaitedForTheExtensionsPreviousCallIsDueAMinuteAfterItRan() throws {
        var h = Self.base()
        h.line(300, "harness", "callback_delivered", ["activity": "mode.focus", "callback": "intervalDidStart", "delivery": "7", "childPid": "-", "deferredUntil": String(Self.t0 + 380)])
        h.line(310, "harness", "callback_queued", ["activity": "grant.g1", "callback": "intervalDidEnd", "delivery": "8", "behind": "7"])
        h.line(380, "harness", "callback_started", ["callback": "intervalDidStart", "delivery": "7", "childPid": "41"])
        h.line(380, "harness", "callback_completed", ["callback": "intervalDidStart", "delivery": "7", "childPid": "41", "status": "exit 0"])
        h.line(380, "harness", "callback_delivered", ["activity": "grant.g1", "callback": "intervalDidEnd", "delivery": "8", "childPid": "42"])
        var late = h
        h.line(380, "monitor-extension", "shields_set", ["apps": "a,b"])
        h.shields(380, "a,b")
        h.line(380, "harness", "callback_completed", ["callback": "intervalDidEnd", "delivery": "8", "childPid": "42", "status": "exit 0"])
        let report = EnforcementChecker.check(h.finished(at: 700))
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        #expect(report.result("grant-end-reshields")?.checkedCount == 1)
        late.line(380, "harness", "callback_completed", ["callback": "intervalDidEnd", "delivery": "8", "childPid": "42", "status": "exit 0"])
        late.shields(500, "a,b")
        let v = try #require(EnforcementChecker.check(late.finished(at: 700)).violations.first { $0.invariant == "grant-end-reshields" })
        #expect(v.explanation.contains("waited for its delivery 7"), "\(v.explanation)")
    }

    /// The formula letting go of the app later (the mode's end at 12:00, 3 hours on) excuses no
    /// more than the time after it: an app left unshielded from its grant's end until then is a
    /// violation. Let go of within the minute the app had (the mode turned off at t=330), nothing is
    /// left to judge.
    @Test func aLaterLetGoOfTheAppExcusesOnlyTheTimeAfterIt() throws {
        let h = Self.base()
        let report = EnforcementChecker.check(h.finished(at: 3 * 3600 + 100))
        let v = try #require(report.violations.first { $0.invariant == "grant-end-reshields" }, "\(report.violations.map(\.explanation))")
        #expect(v.subject?.id == "g1")
        #expect(v.explanation.contains("until the formula let go of it at t=\(Self.t0 + 3 * 3600)"), "\(v.explanation)")
        #expect(v.explanation.contains("\(3 * 3600 - 310) s after"), "\(v.explanation)")
        var off = Self.base()
        off.line(330, "host", "mode_enabled", ["mode": "focus", "modes": Rules.json([Mode]())])
        off.shields(330, "")
        let offReport = EnforcementChecker.check(off.finished(at: 3 * 3600 + 100))
        #expect(offReport.violations.first { $0.invariant == "grant-end-reshields" } == nil, "\(offReport.violations.map(\.explanation))")
        #expect(offReport.latency("reshield-latency")?.excluded("formula changed first") == 1)
    }

    @Test func aLostCallbackWithTheAppShieldedInTimeAnywayPasses() {
        var h = Self.base()
        h.line(310, "harness", "callback_dropped", ["activity": "grant.g1", "callback": "intervalWillEndWarning"])
        h.shields(340, "a,b")
        let report = EnforcementChecker.check(h.finished(at: 700))
        #expect(report.passed)
        #expect(report.result("grant-end-reshields")?.checkedCount == 1)
    }

    @Test func aLostCallbackWithNoFallbackYetIsNotJudged() {
        var h = Self.base()
        h.line(310, "harness", "callback_dropped", ["activity": "grant.g1", "callback": "intervalDidEnd"])
        let report = EnforcementChecker.check(h.finished(at: 700))
        #expect(report.result("grant-end-reshields")?.checkedCount == 0)
        #expect(report.latency("reshield-latency")?.excluded("callback lost, not due within the run") == 1)
    }

    /// No unbounded excuse: iOS lost the grant's end callback and the seed's fallbacks all wait for
    /// the user or a mode's boundary. A trigger within 15 device minutes excuses the time until it;
    /// none by then (the host opened 20 minutes later, or never) and the app left unshielded is a
    /// violation that says so.
    @Test func aLossOfIOSsIsExcusedFifteenMinutesAtMost() throws {
        var soon = Self.base()
        soon.line(310, "harness", "callback_dropped", ["activity": "grant.g1", "callback": "intervalDidEnd"])
        soon.line(1_000, "harness", "host_state", ["state": "foreground"])
        soon.shields(1_001, "a,b")
        let soonReport = EnforcementChecker.check(soon.finished(at: 3_000))
        #expect(soonReport.violations.first { $0.invariant == "grant-end-reshields" } == nil, "\(soonReport.violations.map(\.explanation))")
        #expect(soonReport.result("grant-end-reshields")?.checkedCount == 1)
        for foregroundAt in [Double(310 + 1_200), nil] {
            var late = Self.base()
            late.line(310, "harness", "callback_dropped", ["activity": "grant.g1", "callback": "intervalDidEnd"])
            if let foregroundAt {
                late.line(foregroundAt, "harness", "host_state", ["state": "foreground"])
                late.shields(foregroundAt + 1, "a,b")
            }
            let report = EnforcementChecker.check(late.finished(at: 3_000))
            let v = try #require(report.violations.first { $0.invariant == "grant-end-reshields" }, "\(report.violations.map(\.explanation))")
            #expect(v.explanation.contains("no fallback trigger came within 15 device minutes"), "\(v.explanation)")
        }
    }

    /// The bound is on a design with no chance of its own: when the app had another callback
    /// coming within the 15 minutes (hardened's interval end a minute after the warning) and iOS
    /// lost that one too, no process of the app's could act — excused until the next trigger.
    @Test func everyChanceTheAppHadLostByIOSIsExcusedUntilTheNextTrigger() {
        var h = Self.base()
        h.line(310, "harness", "callback_dropped", ["activity": "grant.g1", "callback": "intervalWillEndWarning"])
        h.line(370, "harness", "callback_delivered", ["activity": "grant.g1", "callback": "intervalDidEnd", "delivery": "9", "childPid": "43"])
        h.line(370, "harness", "callback_failed", ["callback": "intervalDidEnd", "delivery": "9", "status": "killed by iOS at launch"])
        let report = EnforcementChecker.check(h.finished(at: 3_000))
        #expect(report.violations.first { $0.invariant == "grant-end-reshields" } == nil, "\(report.violations.map(\.explanation))")
        #expect(report.latency("reshield-latency")?.excluded("callback lost, not due within the run") == 1)
    }

    @Test func aGrantedAppShieldedInsideItsGrantIsAViolation() throws {
        var h = Self.base()
        h.shields(100, "a,b")
        h.shields(310, "a,b")
        let report = EnforcementChecker.check(h.finished(at: 600))
        #expect(report.violations.contains { $0.invariant == "grant-app-usable" && $0.subject?.id == "g1" })
        #expect(report.violations.contains { $0.invariant == "shields-no-flap" }, "moved away from the formula with nothing changed")
    }

    /// Judged from the user's tap, not the host's records: a grant the host took in and recorded
    /// nothing for (killed between its App Group write and its trace) still owes the user the app
    /// — unless the tap died with the host before anything came of it (then it is listed, not blamed).
    @Test func aGrantTheUserMadeIsJudgedEvenWhenTheHostRecordedNone() throws {
        func run(wrote: Bool) -> CheckReport {
            var h = History()
            h.line(0, "harness", "run_started", ["timeZone": "Europe/Berlin"])
            h.line(1, "host", "selection_saved", ["apps": "a,b"])
            h.line(2, "host", "mode_enabled", ["mode": "focus", "modes": Rules.json([Self.focus])])
            h.shields(2, "a,b")
            h.line(10, "harness", "user_action", ["action": "create_grant", "app": "a", "minutes": "5", "step": "s3"])
            h.line(10, "host", "user_input", ["action": "create_grant", "app": "a", "minutes": "5", "seq": "3"])
            if wrote { h.line(10, "host", "defaults_set", ["suite": "group.x", "keys": "unlock_grant_current"]) }
            h.line(10, "host", "failpoint", ["label": "host:x#1", "action": "kill"])
            h.line(10, "harness", "exit", ["target": "host", "childPid": "1", "status": "signal 9"])
            h.line(10, "harness", "user_tap_lost", [
                "target": "host", "action": "create_grant", "app": "a", "minutes": "5", "seq": "3", "how": "taken in, not finished",
                "why": "the user does not tap again (user.retry: never)",
            ])
            return EnforcementChecker.check(h.finished(at: 600))
        }
        let v = try #require(run(wrote: true).violations.first { $0.invariant == "grant-app-usable" })
        #expect(v.subject?.id == "a@t=\(Int(Self.t0 + 10))")
        #expect(v.explanation.contains("the user's 5-minute grant of a") && v.explanation.contains("recorded no grant"), "\(v.explanation)")
        let unseen = run(wrote: false)
        #expect(!unseen.violations.contains { $0.invariant == "grant-app-usable" }, "\(unseen.violations.map(\.explanation))")
        #expect(unseen.result("grant-app-usable")?.checkedCount == 1)
    }

    @Test func shieldsThatDisagreeWithTheSettledFormulaAreAViolation() throws {
        var h = Self.base()
        h.shields(310, "a,b")
        h.shields(320, "a")
        h.line(500, "harness", "user_action", ["action": "open_app", "app": "b"])
        let report = EnforcementChecker.check(h.finished(at: 600))
        let v = try #require(report.violations.first { $0.invariant == "shields-match-formula" })
        #expect(v.subject?.id == "b")
    }

    @Test func theMirrorMustMatchTheAppGroupAndBeHealthy() throws {
        var ok = Self.base()
        ok.shields(310, "a,b")
        var bad = ok
        ok.line(601, "harness", "sqlite_mirror", ["exists": "true", "apps": "a,b", "integrity": "ok", "journalMode": "wal"])
        ok.line(601, "harness", "app_group_selection", ["present": "true", "apps": "a,b"])
        #expect(EnforcementChecker.check(ok.finished(at: 602)).passed)
        bad.line(601, "harness", "sqlite_mirror", ["exists": "true", "apps": "a", "integrity": "ok", "journalMode": "delete"])
        bad.line(601, "harness", "app_group_selection", ["present": "true", "apps": "a,b"])
        let v = try #require(EnforcementChecker.check(bad.finished(at: 602)).violations.first { $0.invariant == "sqlite-mirror-agrees" })
        #expect(v.explanation.contains("journal mode delete") && v.explanation.contains("[a]"))
    }

    @Test func aShieldMustNameItsModeAndTheNextStep() throws {
        var h = Self.base()
        h.shields(310, "a,b")
        let good = "Blocked by Focus. Open Earned Access to unlock. Or start a Focus session to earn credits."
        h.line(400, "shield-configuration-extension", "shield_configuration", ["title": "App is blocked", "subtitle": good, "primaryButton": "Close app", "delivery": "1"])
        #expect(EnforcementChecker.check(h.finished(at: 600)).passed)
        h.line(401, "shield-configuration-extension", "shield_configuration", [
            "title": "App is blocked", "subtitle": "Open Earned Access to unlock. Or start a Focus session to earn credits.", "primaryButton": "Close app",
            "delivery": "2",
        ])
        let v = try #require(EnforcementChecker.check(h.finished(at: 600)).violations.first { $0.invariant == "shield-content" })
        #expect(v.subject?.id == "2" && v.explanation.contains("Focus is not named"))
    }

    @Test func aGrantReplacedByALaterOneForItsAppIsJudgedOnlyUntilThen() {
        var h = Self.base()
        let g2 = Grant(id: "g2", app: "a", startTs: Self.t0 + 100, endsTs: Self.t0 + 200)
        h.line(100, "host", "grant_created", ["grant": "g2", "app": "a", "grants": Rules.json([g2])])
        h.shields(200, "a,b")
        let report = EnforcementChecker.check(h.finished(at: 600))
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        #expect(report.latency("reshield-latency")?.excluded("replaced") == 1)
    }

    @Test func theChecklistsOpensAreJudgedByWhatIOSShowed() throws {
        var h = Self.base()
        h.shields(310, "a,b")
        h.line(20, "harness", "user_action", ["action": "open_app", "app": "a", "step": "5 open blocked app, should open"])
        h.line(20, "harness", "app_in_use", ["app": "a"])
        h.line(400, "harness", "user_action", ["action": "open_app", "app": "a", "step": "7 after expiration the shield shows again"])
        var opened = h
        h.line(400, "harness", "shield_shown", ["app": "a"])
        #expect(EnforcementChecker.check(h.finished(at: 600)).result("checklist-steps")?.checkedCount == 2)
        #expect(EnforcementChecker.check(h.finished(at: 600)).passed)
        opened.line(400, "harness", "app_in_use", ["app": "a"])
        let v = try #require(EnforcementChecker.check(opened.finished(at: 600)).violations.first { $0.invariant == "checklist-steps" })
        #expect(v.subject?.id == "7")
    }

    @Test func aChecklistStepWhoseTapWasLostIsNotJudged() {
        var h = History()
        h.line(0, "harness", "run_started", ["timeZone": "Europe/Berlin"])
        h.line(1, "host", "selection_saved", ["apps": "a,b"])
        h.line(2, "host", "mode_enabled", ["mode": "focus", "modes": Rules.json([Self.focus])])
        h.shields(2, "a,b")
        // The grant's tap died with the host: no grant was written, the app stays shielded.
        h.line(20, "harness", "user_action", ["action": "open_app", "app": "a", "step": "5 open blocked app, should open"])
        h.line(20, "harness", "shield_shown", ["app": "a"])
        let report = EnforcementChecker.check(h.finished(at: 100))
        #expect(report.passed)
        #expect(report.result("checklist-steps")?.checkedCount == 0)
    }

    /// Apps a and b selected, the focus mode on (8-12), and the user turns focus off at t=10 for
    /// 5 minutes (ends t=310): nothing shielded until then.
    static func overridden(on: Bool = false, at: Double = 10, minutes: Double = 5) -> History {
        var h = History()
        h.line(0, "harness", "run_started", ["timeZone": "Europe/Berlin"])
        h.line(1, "host", "selection_saved", ["apps": "a,b"])
        h.line(2, "host", "mode_enabled", ["mode": "focus", "modes": Rules.json([focus])])
        h.shields(2, "a,b")
        let o = Override(id: "o1", mode: "focus", on: on, startTs: t0 + at, endsTs: t0 + at + minutes * 60)
        h.line(at, "host", "override_set", ["override": "o1", "mode": "focus", "state": on ? "on" : "off", "overrides": Rules.json([o])])
        h.shields(at, on ? "a,b" : "")
        return h
    }

    @Test func theFormulaFollowsAnOverrideAndItsEndReshieldedAtOncePasses() {
        var h = Self.overridden()
        h.line(200, "harness", "user_action", ["action": "open_app", "app": "a"])
        h.line(310, "monitor-extension", "reconcile", ["why": "intervalWillEndWarning override.focus"])
        h.shields(310, "a,b")
        h.line(400, "harness", "user_action", ["action": "open_app", "app": "a"])
        let report = EnforcementChecker.check(h.finished(at: 600))
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        #expect(report.result("shields-match-formula")?.checkedCount ?? 0 >= 2, "judged inside the override too")
        #expect(report.result("override-end-applied")?.checkedCount == 1)
        #expect(report.latency("override-end-latency")?.count == 1)
        #expect(report.latency("override-end-latency")?.p50Micros == 0)
    }

    @Test func anOverridesEndLeftUnappliedWhileTheHostIsAwayIsAViolationNotExcused() throws {
        // As-written: nothing scheduled at the end; the shields come back only with the host's foreground.
        var h = Self.overridden()
        h.line(400, "harness", "user_action", ["action": "open_app", "app": "a"])
        h.line(400, "harness", "app_in_use", ["app": "a"])
        h.line(500, "harness", "host_state", ["state": "foreground"])
        h.line(500, "host", "reconcile", ["why": "foreground"])
        h.shields(500, "a,b")
        let report = EnforcementChecker.check(h.finished(at: 700))
        let v = try #require(report.violations.first { $0.invariant == "override-end-applied" })
        #expect(v.subject?.id == "o1")
        #expect(v.explanation.contains("190 s") && v.explanation.contains("a shielded, b shielded") && v.explanation.contains("why=foreground"), "\(v.explanation)")
        #expect(report.violations.count == 1, "one finding, owned by override-end-applied: \(report.violations.map(\.explanation))")
        #expect(report.latency("override-end-latency")?.p50Micros ?? 0 > 60_000_000 / 2)
        // An "on" override outside the mode's window: its end must unshield (here only the shield's Close press does).
        var on = History()
        on.line(0, "harness", "run_started", ["timeZone": "Europe/Berlin"])
        on.line(1, "host", "selection_saved", ["apps": "a,b"])
        let later = Mode(id: "focus", name: "Focus", apps: ["a", "b"], startMinute: 12 * 60, endMinute: 13 * 60, precedence: 1)
        on.line(2, "host", "mode_enabled", ["mode": "focus", "modes": Rules.json([later])])
        on.shields(2, "")
        on.line(10, "host", "override_set", ["override": "o2", "mode": "focus", "state": "on",
            "overrides": Rules.json([Override(id: "o2", mode: "focus", on: true, startTs: Self.t0 + 10, endsTs: Self.t0 + 310)])])
        on.shields(10, "a,b")
        on.shields(800, "")
        let w = try #require(EnforcementChecker.check(on.finished(at: 900)).violations.first { $0.invariant == "override-end-applied" })
        #expect(w.subject?.id == "o2" && w.explanation.contains("a unshielded, b unshielded") && w.explanation.contains("490 s"), "\(w.explanation)")
    }

    @Test func anOverridesEndWhoseCallbackIOSLostIsBoundedByTheNextFallbackTrigger() throws {
        var h = Self.overridden()
        h.line(310, "harness", "callback_dropped", ["activity": "override.focus", "callback": "intervalWillEndWarning"])
        h.line(450, "harness", "host_state", ["state": "foreground"])
        var late = h
        h.shields(455, "a,b")
        let report = EnforcementChecker.check(h.finished(at: 700))
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        #expect(report.result("override-end-applied")?.checkedCount == 1)
        late.shields(600, "a,b")
        let v = try #require(EnforcementChecker.check(late.finished(at: 700)).violations.first { $0.invariant == "override-end-applied" })
        #expect(v.explanation.contains("the host in the foreground"))
        // A lost callback of another activity excuses nothing.
        var other = Self.overridden()
        other.line(310, "harness", "callback_dropped", ["activity": "grant.a", "callback": "intervalWillEndWarning"])
        other.line(450, "harness", "host_state", ["state": "foreground"])
        other.shields(455, "a,b")
        #expect(EnforcementChecker.check(other.finished(at: 700)).violations.contains { $0.invariant == "override-end-applied" })
    }

    @Test func anOverrideReplacedBeforeItsEndOrEndingAfterTheRunIsNotJudged() {
        var h = Self.overridden()
        let o2 = Override(id: "o2", mode: "focus", on: false, startTs: Self.t0 + 100, endsTs: Self.t0 + 100 + 3600)
        h.line(100, "host", "override_set", ["override": "o2", "mode": "focus", "state": "off", "overrides": Rules.json([o2])])
        let report = EnforcementChecker.check(h.finished(at: 600))
        #expect(report.passed, "\(report.violations.map(\.explanation))")
        #expect(report.latency("override-end-latency")?.excluded("replaced") == 1)
        #expect(report.latency("override-end-latency")?.excluded("ends after the run") == 1)
    }

    @Test func aHistoryThatDidNotFinishIsUndecided() {
        #expect(!EnforcementChecker.check(Self.base().events).decided)
    }
}

/// Lost work is listed beside the verdict (`lostByOS`), never passed over in silence.
@Suite(.timeLimit(.minutes(1))) struct EnforcementLostWorkTests {
    @Test func aGrantTapTheHostNeverTookAndAClosePressNoCallCompletedAreListed() throws {
        var h = EnforcementCheckerTests.base()
        h.line(9, "harness", "user_action", ["action": "create_grant", "app": "a", "minutes": "5", "step": "4"])
        h.line(9.5, "host", "user_input", ["action": "create_grant", "app": "a", "minutes": "5", "seq": "3"])
        #expect(EnforcementChecker.check(h.finished(at: 200)).lostByOS == nil)
        // The next grant tap reaches no host (killed); the Close press's call is killed.
        h.line(100, "harness", "user_action", ["action": "create_grant", "app": "b", "minutes": "5", "step": "4"])
        h.line(150, "harness", "user_action", ["action": "press_close", "app": "b"])
        h.line(150, "harness", "callback_delivered", ["callback": "shieldAction", "delivery": "7", "childPid": "5"])
        h.line(150, "harness", "callback_failed", ["callback": "shieldAction", "delivery": "7", "status": "killed"])
        // A press with no shield on screen is no press: not listed.
        h.line(170, "harness", "user_action", ["action": "press_close", "app": "a"])
        h.line(170, "harness", "shield_button_unavailable", ["action": "primaryButtonPressed", "app": "a"])
        let lost = try #require(EnforcementChecker.check(h.finished(at: 200)).lostByOS)
        #expect(lost.map(\.subject?.id) == ["create_grant b@t=\(Int(EnforcementCheckerTests.t0 + 100))", "close@t=\(Int(EnforcementCheckerTests.t0 + 150))"])
        #expect(lost[0].invariant == EnforcementInvariant.grantAppUsable.rawValue)
    }

    @Test func anOverrideTapTheHostNeverTookIsListed() throws {
        var h = EnforcementCheckerTests.base()
        h.line(20, "harness", "user_action", ["action": "set_override", "mode": "focus", "state": "off", "minutes": "10", "step": "episode 1"])
        h.line(20.5, "host", "user_input", ["action": "set_override", "mode": "focus", "state": "off", "minutes": "10", "seq": "4"])
        #expect(EnforcementChecker.check(h.finished(at: 200)).lostByOS == nil)
        // The next override tap reaches no host (killed): the shields keep the schedule's answer, which
        // the rules judge as right — so the lost tap is said here.
        h.line(100, "harness", "user_action", ["action": "set_override", "mode": "focus", "state": "off", "minutes": "10", "step": "episode 2"])
        let report = EnforcementChecker.check(h.finished(at: 200))
        let lost = try #require(report.lostByOS)
        #expect(lost.map(\.subject?.id) == ["set_override focus@t=\(Int(EnforcementCheckerTests.t0 + 100))"])
        #expect(lost[0].explanation.contains("never reached the host"))
    }
}
