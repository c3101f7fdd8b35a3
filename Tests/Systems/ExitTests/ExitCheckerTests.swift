import Exit
@testable import ExitPack
import Foundation
import HarnessKit
import History
import Testing

/// The checker by hand-made histories: each rule holds on the history it should accept and names
/// the subject of the one it should not.
@Suite(.timeLimit(.minutes(1))) struct ExitCheckerTests {
    /// A history written line by line at device times `t`; `mono` follows the order of the lines.
    struct History {
        var events: [HistoryEvent] = []
        var mono: Int64 = 1_000
        static let group = ExitKeys.appGroup

        mutating func line(_ t: Double, _ process: String, _ event: String, _ fields: [String: String] = [:], pid: Int32 = 1) {
            mono += 1_000
            events.append(HistoryEvent(mono: mono, t: t, process: process, pid: pid, event: event, fields: fields))
        }

        mutating func harness(_ t: Double, _ event: String, _ fields: [String: String] = [:]) { line(t, "harness", event, fields, pid: 9) }

        mutating func write(_ t: Double, _ process: String, _ values: [String: String], pid: Int32 = 1) {
            var f = ["suite": Self.group, "keys": values.keys.sorted().joined(separator: ",")]
            for (k, v) in values { f["v." + k] = v }
            line(t, process, "defaults_set", f, pid: pid)
        }

        /// The host's daily reset as it traces and writes it: one write (hardened) or one per key
        /// (as-written); `landing: false` — killed between the trace and the write.
        mutating func reset(_ t: Double, day: String, keyByKey: Bool = false, landing: Bool = true, pid: Int32 = 1) {
            line(t, ExitRoles.host, "daily_reset", ["day": day], pid: pid)
            guard landing else { return }
            let values = [ExitKeys.dailyResetFlag: "true", ExitKeys.screenTimeToday: "0", ExitKeys.lastInterventionCount: "0"]
            if keyByKey {
                for k in [ExitKeys.dailyResetFlag, ExitKeys.screenTimeToday, ExitKeys.lastInterventionCount] { write(t, ExitRoles.host, [k: values[k]!], pid: pid) }
            } else {
                write(t, ExitRoles.host, values, pid: pid)
            }
        }

        /// A started run in Berlin, the host spawned as pid 1 and in the foreground.
        static func started(at t: Double = 1_000, zone: String = "Europe/Berlin") -> History {
            var h = History()
            h.harness(t, "run_started", ["timeZone": zone])
            h.harness(t, "spawn", ["target": ExitRoles.host, "childPid": "1"])
            h.line(t, ExitRoles.host, "launched")
            return h
        }

        func finished(at t: Double) -> [HistoryEvent] {
            events + [HistoryEvent(mono: mono + 1_000, t: t, process: "harness", pid: 9, event: "run_finished", fields: [:])]
        }
    }

    static func violations(_ events: [HistoryEvent], _ invariant: ExitInvariant) -> [InvariantViolation] {
        ExitChecker.check(events).violations.filter { $0.invariant == invariant.rawValue }
    }

    // MARK: key-registry

    @Test func writesInsideTheRegistryHoldAndEveryOtherKeyOrWriterIsNamedOnce() throws {
        var h = History.started()
        h.write(1_001, ExitRoles.shieldAction, [ExitKeys.interventionRequested: "true", ExitKeys.blockedApp: "x"], pid: 2)
        h.write(1_002, ExitRoles.host, [ExitKeys.unlockTimestamp: "1002.0", ExitKeys.lastInterventionCount: "1"])
        #expect(Self.violations(h.finished(at: 2_000), .keyRegistry).isEmpty)
        h.write(1_003, ExitRoles.host, [ExitKeys.interventionRequested: "false"])
        h.write(1_004, ExitRoles.host, [ExitKeys.interventionRequested: "false"])
        h.write(1_005, ExitRoles.monitor, ["last_activity_start": "1005.0"], pid: 3)
        let v = Self.violations(h.finished(at: 2_000), .keyRegistry)
        #expect(v.map(\.subject?.id) == ["intervention_requested by host", "last_activity_start by monitor-extension"])
        #expect(try #require(v.first).explanation.contains("2 time(s)"))
        #expect(v.last?.explanation.contains("not in the registry") == true)
    }

    // MARK: tap-served

    @Test func aTapIsServedWithin2SecondsOfTheForegroundAndAForceQuitThatLosesItIsAViolation() throws {
        var h = History.started()
        h.harness(1_000, "host_state", ["state": "foreground"])
        h.harness(1_010, "host_state", ["state": "suspended"])
        h.write(1_100, ExitRoles.shieldAction, [ExitKeys.interventionRequested: "true"], pid: 2)
        h.harness(1_130, "host_state", ["state": "foreground"])
        h.line(1_131, ExitRoles.host, "intervention_shown", ["app": ""])
        var served = h
        served.line(1_170, ExitRoles.host, "intervention_finished", ["outcome": "completed", "at": "1170"])
        served.harness(1_200, "host_state", ["state": "background"])
        let ok = ExitChecker.check(served.finished(at: 2_000))
        #expect(ok.result("tap-served")?.passed == true)
        #expect(ok.result("tap-served")?.checkedCount == 1)
        #expect(ok.latency("tap-to-intervention")?.count == 1)
        // Force quit mid-exercise: a new process in the foreground that never shows it again.
        h.harness(1_140, "host_state", ["state": "notRunning", "why": "force quit"])
        h.harness(1_141, "exit", ["target": ExitRoles.host, "childPid": "1"])
        h.harness(1_150, "spawn", ["target": ExitRoles.host, "childPid": "5"])
        h.harness(1_150, "host_state", ["state": "foreground"])
        h.line(1_150, ExitRoles.host, "launched", pid: 5)
        h.harness(1_200, "host_state", ["state": "background"])
        let v = try #require(Self.violations(h.finished(at: 2_000), .tapServed).first)
        #expect(v.subject?.id == "1@t=1100")
        #expect(v.explanation.contains("the force quit lost it"))
    }

    @Test func aTapWhileTheHostNeverComesBackIsNotJudged() {
        var h = History.started()
        h.harness(1_010, "host_state", ["state": "suspended"])
        h.write(1_100, ExitRoles.shieldAction, [ExitKeys.interventionRequested: "true"], pid: 2)
        let r = ExitChecker.check(h.finished(at: 2_000))
        #expect(r.result("tap-served")?.checkedCount == 0)
        #expect(r.result("tap-served")?.passed == true)
    }

    // MARK: unlock-in-window

    @Test func accessGrantedTextMustMatchTheWindowToTheSecond() throws {
        var h = History.started()
        h.write(1_100, ExitRoles.host, [ExitKeys.unlockTimestamp: "1100.0"])
        h.line(1_110, ExitRoles.shieldConfiguration, "shield_configuration", ["title": "Access Granted", "subtitle": "50s remaining"], pid: 3)
        #expect(Self.violations(h.finished(at: 2_000), .unlockInWindow).isEmpty)
        h.line(1_120, ExitRoles.shieldConfiguration, "shield_configuration", ["title": "Access Granted", "subtitle": "50s remaining"], pid: 4)
        h.line(1_160, ExitRoles.shieldConfiguration, "shield_configuration", ["title": "Access Granted", "subtitle": "0s remaining"], pid: 5)
        let v = Self.violations(h.finished(at: 2_000), .unlockInWindow)
        #expect(v.count == 2)
        #expect(v.first?.explanation.contains("expected 40s remaining") == true)
        #expect(v.last?.explanation.contains("60.0 s after") == true)
    }

    /// The user turns Screen Time access off: iOS lifts every shield at once. Not an unlock by the
    /// app, and judged again from the next shield on; the same lift without the revocation is.
    @Test func shieldsIOSLiftsAtARevocationAreNotAnUnlock() throws {
        var base = History.started()
        base.harness(1_000, "user_action", ["action": "select_apps", "apps": "a"])
        base.harness(1_001, "shields", ["apps": "a"])
        var revoked = base
        revoked.harness(1_300, "authorization", ["kind": "familyControls", "status": "denied", "why": "revoked"])
        revoked.harness(1_300, "shields", ["apps": ""])
        #expect(Self.violations(revoked.finished(at: 2_000), .unlockInWindow).isEmpty)
        // Access given back, shielded again, then lifted by the app with no unlock: judged.
        revoked.harness(1_400, "shields", ["apps": "a"])
        revoked.harness(1_500, "shields", ["apps": ""])
        #expect(Self.violations(revoked.finished(at: 2_000), .unlockInWindow).map(\.subject?.id) == ["a@t=1500"])
        var lifted = base
        lifted.harness(1_300, "shields", ["apps": ""])
        #expect(Self.violations(lifted.finished(at: 2_000), .unlockInWindow).map(\.subject?.id) == ["a@t=1300"])
    }

    @Test func anAppUnshieldedPastTheWindowIsAViolationUnlessIOSKilledEveryChanceToReshield() throws {
        var base = History.started()
        base.harness(1_000, "user_action", ["action": "select_apps", "apps": "a"])
        base.harness(1_001, "shields", ["apps": "a"])
        base.write(1_100, ExitRoles.host, [ExitKeys.unlockTimestamp: "1100.0"])
        base.harness(1_100, "shields", ["apps": ""])
        var inTime = base
        inTime.harness(1_160, "shields", ["apps": "a"])
        #expect(Self.violations(inTime.finished(at: 2_000), .unlockInWindow).isEmpty)
        // Re-shielded 100 s late although a monitor call ran to its end at the window's end.
        var late = base
        late.line(1_160, ExitRoles.monitor, "callback_end", pid: 6)
        late.harness(1_200, "shields", ["apps": "a"])
        let v = try #require(Self.violations(late.finished(at: 2_000), .unlockInWindow).first)
        #expect(v.subject?.id == "a@t=1100")
        // No call of the app ran between the window's end and the re-shield: no chance, no blame.
        var noChance = base
        noChance.harness(1_200, "shields", ["apps": "a"])
        #expect(Self.violations(noChance.finished(at: 2_000), .unlockInWindow).isEmpty)
        // The host in the foreground but held stopped by the nemesis: its chance comes 2 s after CONT.
        var held = base
        held.harness(1_150, "host_state", ["state": "foreground"])
        held.harness(1_155, "signal", ["target": ExitRoles.host, "childPid": "1", "signal": "STOP", "by": "nemesis"])
        held.harness(1_190, "signal", ["target": ExitRoles.host, "childPid": "1", "signal": "CONT", "by": "nemesis"])
        var reshieldedAfterCont = held
        reshieldedAfterCont.harness(1_191, "shields", ["apps": "a"])
        #expect(Self.violations(reshieldedAfterCont.finished(at: 2_000), .unlockInWindow).isEmpty)
        held.harness(1_250, "shields", ["apps": "a"])
        #expect(Self.violations(held.finished(at: 2_000), .unlockInWindow).first?.explanation.contains("first chance after the window: t=1192.0") == true)
        // Unshielded with no unlock at all.
        var never = History.started()
        never.harness(1_000, "user_action", ["action": "select_apps", "apps": "a"])
        never.harness(1_001, "shields", ["apps": "a"])
        never.harness(1_050, "shields", ["apps": ""])
        #expect(Self.violations(never.finished(at: 1_051), .unlockInWindow).first?.explanation.contains("outside any unlock window") == true)
    }

    // MARK: unlock-grants-access

    @Test func theUserWhoComesBackInsideTheWindowMustGetTheAppNotItsShield() throws {
        var h = History.started()
        h.line(1_100, ExitRoles.host, "intervention_finished", ["outcome": "completed", "at": "1100.0"])
        h.harness(1_105, "user_action", ["action": "open_unlocked_app", "app": "a", "episode": "3"])
        var ok = h
        ok.harness(1_105, "app_in_use", ["app": "a"])
        #expect(Self.violations(ok.finished(at: 2_000), .unlockGrantsAccess).isEmpty)
        h.harness(1_105, "shield_shown", ["app": "a"])
        h.line(1_105, ExitRoles.shieldConfiguration, "shield_configuration", ["title": "Access Granted", "subtitle": "55s remaining"], pid: 3)
        let v = try #require(Self.violations(h.finished(at: 2_000), .unlockGrantsAccess).first)
        #expect(v.subject?.id == "3")
        #expect(v.explanation.contains("Access Granted — 55s remaining"))
    }

    // MARK: daily-reset-once-per-day

    @Test func aResetIsDueOnEachNewLocalDayAtTheFirstForegroundAndOnlyOnce() throws {
        // 2026-03-28 21:00 in Berlin (UTC+1); midnight is 23:00 UTC.
        let start = 1_774_728_000.0
        let midnight = 1_774_738_800.0
        var h = History.started(at: start)
        h.harness(start, "host_state", ["state": "foreground"])
        h.harness(start + 10, "host_state", ["state": "notRunning"])
        h.harness(midnight + 3_600, "host_state", ["state": "foreground"])
        var reset = h
        reset.reset(midnight + 3_601, day: "2026-03-29")
        reset.harness(midnight + 3_700, "host_state", ["state": "background"])
        #expect(Self.violations(reset.finished(at: midnight + 7_200), .dailyReset).isEmpty)
        var missed = h
        missed.harness(midnight + 3_700, "host_state", ["state": "background"])
        #expect(try #require(Self.violations(missed.finished(at: midnight + 7_200), .dailyReset).first).subject?.id == "2026-03-29")
        var twice = reset
        twice.reset(midnight + 3_800, day: "2026-03-29")
        #expect(try #require(Self.violations(twice.finished(at: midnight + 7_200), .dailyReset).first).explanation.contains("2 times"))
        // After a move to New York the same instant is still the 28th there: a reset then is on the 28th.
        var moved = reset
        moved.harness(midnight + 3_900, "time_zone", ["timeZone": "America/New_York"])
        moved.reset(midnight + 3_901, day: "2026-03-28")
        #expect(Self.violations(moved.finished(at: midnight + 7_200), .dailyReset).isEmpty)
    }

    @Test func aResetCountsWhenItsWritesLandAndNotWhenItsProcessDiedFirst() throws {
        let start = 1_774_728_000.0
        let midnight = 1_774_738_800.0
        var h = History.started(at: start)
        h.harness(midnight + 3_600, "host_state", ["state": "foreground"])
        // Killed between the trace and the write (explore's point inside the reset): no reset
        // landed, and the relaunched host's reset is the day's first, not its second.
        var killed = h
        killed.reset(midnight + 3_601, day: "2026-03-29", landing: false)
        killed.harness(midnight + 3_601, "exit", ["target": ExitRoles.host, "childPid": "1"])
        killed.reset(midnight + 3_602, day: "2026-03-29", pid: 4)
        #expect(Self.violations(killed.finished(at: midnight + 7_200), .dailyReset).isEmpty)
        // Only the trace, never a write: the day was not reset.
        var neverWritten = h
        neverWritten.reset(midnight + 3_601, day: "2026-03-29", landing: false)
        #expect(try #require(Self.violations(neverWritten.finished(at: midnight + 7_200), .dailyReset).first).subject?.id == "2026-03-29")
        // As-written's one write per key: the reset lands with the last of the three; a kill after
        // the flag and before the counters leaves the day not reset.
        var keyByKey = h
        keyByKey.reset(midnight + 3_601, day: "2026-03-29", keyByKey: true)
        #expect(Self.violations(keyByKey.finished(at: midnight + 7_200), .dailyReset).isEmpty)
        var torn = h
        torn.line(midnight + 3_601, ExitRoles.host, "daily_reset", ["day": "2026-03-29"])
        torn.write(midnight + 3_601, ExitRoles.host, [ExitKeys.dailyResetFlag: "true"])
        torn.write(midnight + 3_601, ExitRoles.host, [ExitKeys.screenTimeToday: "0"])
        #expect(!Self.violations(torn.finished(at: midnight + 7_200), .dailyReset).isEmpty)
        // A store writes only changes: a reset whose keys already hold their reset values writes
        // nothing and has landed (the second of two back to back, or the first after a day
        // without updates).
        var nothingToWrite = keyByKey
        nothingToWrite.line(midnight + 3_650, ExitRoles.host, "daily_reset", ["day": "2026-03-29"])
        #expect(try #require(Self.violations(nothingToWrite.finished(at: midnight + 7_200), .dailyReset).first).explanation.contains("2 times"))
        var partlyWritten = keyByKey
        partlyWritten.write(midnight + 3_640, ExitRoles.monitor, [ExitKeys.screenTimeToday: "5"], pid: 3)
        partlyWritten.line(midnight + 3_650, ExitRoles.host, "daily_reset", ["day": "2026-03-29"])
        partlyWritten.write(midnight + 3_650, ExitRoles.host, [ExitKeys.screenTimeToday: "0"])
        #expect(try #require(Self.violations(partlyWritten.finished(at: midnight + 7_200), .dailyReset).first).explanation.contains("2 times"))
        // Two resets that landed on one day are two, whichever process wrote them.
        var twice = killed
        twice.reset(midnight + 3_700, day: "2026-03-29", keyByKey: true, pid: 4)
        #expect(try #require(Self.violations(twice.finished(at: midnight + 7_200), .dailyReset).first).explanation.contains("2 times"))
    }

    // MARK: count-matches-day

    @Test func theCountIsTheUnlocksSinceTheLatestResetAndALostUpdateIsNamed() throws {
        var h = History.started()
        h.write(1_100, ExitRoles.host, [ExitKeys.unlockTimestamp: "1100.0"])
        h.write(1_100, ExitRoles.host, [ExitKeys.lastInterventionCount: "1"])
        h.reset(1_200, day: "x", keyByKey: true)
        h.write(1_300, ExitRoles.host, [ExitKeys.unlockTimestamp: "1300.0", ExitKeys.lastInterventionCount: "1"])
        #expect(Self.violations(h.finished(at: 2_000), .countMatchesDay).isEmpty)
        // Killed between the unlock and the count: the next exercise counts one too few.
        h.write(1_400, ExitRoles.host, [ExitKeys.unlockTimestamp: "1400.0"])
        h.write(1_500, ExitRoles.host, [ExitKeys.unlockTimestamp: "1500.0"])
        h.write(1_500, ExitRoles.host, [ExitKeys.lastInterventionCount: "2"])
        let v = try #require(Self.violations(h.finished(at: 2_000), .countMatchesDay).first)
        #expect(v.explanation.contains("= 2") && v.explanation.hasSuffix(": 3"))
    }

    // MARK: heartbeat-no-false-alarm

    @Test func aDecisionIsTrueOnlyWhenTheMonitorsLastCallDiedBeforeItEnded() throws {
        var h = History.started()
        // Never called: false alarm.
        h.line(1_001, ExitRoles.host, "reinitialize_extensions", ["ageSeconds": "999"])
        // A call that ended (the harness's lines of an extension call): false alarm (idle).
        h.harness(1_100, "callback_delivered", ["callback": "intervalDidStart", "childPid": "7", "delivery": "1"])
        h.write(1_100, ExitRoles.monitor, [ExitKeys.extensionHeartbeat: "1100.0"], pid: 7)
        h.harness(1_100, "callback_completed", ["callback": "intervalDidStart", "childPid": "7", "delivery": "1", "status": "exit 0"])
        h.line(1_500, ExitRoles.host, "reinitialize_extensions", ["ageSeconds": "400"])
        // A call killed mid-way: true alarm, measured.
        h.harness(1_600, "callback_delivered", ["callback": "intervalDidEnd", "childPid": "8", "delivery": "2"])
        h.harness(1_600, "signal", ["target": ExitRoles.monitor, "childPid": "8", "signal": "KILL", "by": "nemesis"])
        h.harness(1_600, "callback_failed", ["callback": "intervalDidEnd", "delivery": "2", "status": "signal 9"])
        h.line(1_950, ExitRoles.host, "reinitialize_extensions", ["ageSeconds": "850"])
        let report = ExitChecker.check(h.finished(at: 2_000))
        let v = report.violations.filter { $0.invariant == ExitInvariant.heartbeatNoFalseAlarm.rawValue }
        #expect(v.map(\.subject?.id) == ["1@t=1001", "2@t=1500"])
        #expect(v.first?.explanation.contains("not-launched") == true)
        #expect(v.last?.explanation.contains("idle") == true)
        #expect(report.result("heartbeat-no-false-alarm")?.checkedCount == 3)
        #expect(report.latency("crash-to-reinitialize")?.count == 1)
        let verdict = try #require(HeartbeatJudge.verdicts(ExitPack().descriptor, h.finished(at: 2_000)).first)
        #expect((verdict.trueAlarms, verdict.falseAlarms, verdict.detected) == (1, 2, 1))
        #expect(verdict.detectionLatencyP50Seconds == 350)
    }

    @Test func aHistoryThatDidNotFinishIsUndecided() {
        #expect(!ExitChecker.check(History.started().events).decided)
    }
}

/// Lost work is listed beside the verdict (`lostByOS`), never passed over in silence.
@Suite(.timeLimit(.minutes(1))) struct ExitLostWorkTests {
    typealias History = ExitCheckerTests.History

    @Test func aPressNoShieldActionCallCompletedAndADoneTapTheHostNeverTookAreListed() throws {
        var h = History.started()
        // Episode 1: the press's call completes, the done tap is taken.
        h.harness(1_010, "user_action", ["action": "press_shield", "episode": "1"])
        h.harness(1_010, "callback_delivered", ["callback": "shieldAction", "delivery": "1", "episode": "1", "childPid": "2"])
        h.write(1_010, ExitRoles.shieldAction, [ExitKeys.interventionRequested: "true"], pid: 2)
        h.harness(1_010, "callback_completed", ["callback": "shieldAction", "delivery": "1"])
        h.harness(1_040, "user_action", ["action": "breathing_done", "episode": "1"])
        h.line(1_040, ExitRoles.host, "user_input", ["action": "breathing_done", "episode": "1", "seq": "2"])
        #expect(ExitChecker.check(h.finished(at: 2_000)).lostByOS == nil)
        // Episode 2: iOS drops the press; the done tap never reaches the host.
        h.harness(1_200, "user_action", ["action": "press_shield", "episode": "2"])
        h.harness(1_200, "callback_dropped", ["callback": "shieldAction", "episode": "2"])
        h.harness(1_240, "user_action", ["action": "breathing_done", "episode": "2"])
        let lost = try #require(ExitChecker.check(h.finished(at: 2_000)).lostByOS)
        #expect(lost.map(\.subject?.id) == ["2@t=1200", "breathing_done 2@t=1240"])
        #expect(lost[0].explanation.contains("callback_dropped"))
        #expect(lost[1].invariant == ExitInvariant.unlockGrantsAccess.rawValue)
    }
}
