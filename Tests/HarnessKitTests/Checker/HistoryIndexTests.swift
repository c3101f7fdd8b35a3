import Foundation
import HarnessKit
import History
import Testing

/// The history read once for every pack: its order, each role's processes, when the host could act,
/// the App Group writes and the user's lost work, on hand-made histories.
@Suite(.timeLimit(.minutes(1))) struct HistoryIndexTests {
    static let t0 = 1_771_315_200.0

    /// A line of the harness.
    static func line(_ mono: Int64, _ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        line(mono, HistoryEvent.harnessProcessName, event, pid: 1, fields)
    }

    /// A line of a process.
    static func line(_ mono: Int64, _ process: String, _ event: String, pid: Int32 = 7, _ fields: [String: String] = [:]) -> HistoryEvent {
        HistoryEvent(mono: mono, t: t0 + Double(mono), process: process, pid: pid, event: event, fields: fields)
    }

    @Test func linesAreInMonoOrderAndEqualMonosKeepTheirOrder() {
        let a = Self.line(5, "host-app", "b"), b = Self.line(5, "host-app", "a"), c = Self.line(1, "host-app", "c")
        let index = HistoryIndex([a, b, c])
        #expect(index.events == [c, a, b])
    }

    @Test func eachRolesProcessesWithTheirSignalsAndExits() {
        let index = HistoryIndex([
            Self.line(0, "run_started", ["timeZone": "Europe/Paris"]),
            Self.line(1, "spawn", ["target": "host-app", "childPid": "10"]),
            Self.line(2, "spawn", ["target": "server", "childPid": "11"]),
            Self.line(3, "signal", ["target": "host-app", "childPid": "10", "signal": "STOP"]),
            Self.line(5, "signal", ["target": "host-app", "childPid": "10", "signal": "CONT"]),
            Self.line(7, "exit", ["target": "host-app", "childPid": "10"]),
            Self.line(8, "spawn", ["target": "host-app", "childPid": "12"]),
            Self.line(20, "run_finished"),
        ])
        let host = index.lifetimes(of: "host-app")
        #expect(host.map(\.pid) == [10, 12])
        #expect(host[0].signals.count == 2 && host[0].exit?.mono == 7 && host[1].exit == nil)
        #expect(index.lifetimes(of: "server").map(\.pid) == [11])
        #expect(index.lifetimes(of: "nobody").isEmpty)
        // Running: [1, 3) and [5, 7) and, still running at the end, [8, 20).
        #expect(index.running("host-app") == HostAvailability([(Self.t0 + 1, Self.t0 + 3), (Self.t0 + 5, Self.t0 + 7), (Self.t0 + 8, Self.t0 + 20)]))
        #expect(index.endT == Self.t0 + 20 && index.undecidableReason == nil)
        #expect(index.timeZone(atMono: 9).identifier == "Europe/Paris")
    }

    /// A tap the host died in and the user did not make again: what came of it before the death
    /// decides whether a rule may excuse what it would have done; the core lists it as lost work.
    @Test func aLostTapSaysWhatCameOfItBeforeTheAppDied() {
        func history(_ between: [HistoryEvent]) -> [HistoryEvent] {
            [Self.line(0, "run_started"), Self.line(1, "spawn", ["target": "host-app", "childPid": "7"]),
             Self.line(2, "user_action", ["action": "start_session", "sid": "s-1"]),
             Self.line(3, "host-app", "user_input", ["action": "start_session", "seq": "4", "sessionId": "s-1"])]
                + between
                + [Self.line(10, "host-app", "failpoint", ["label": "host-app:defaults:x#1", "action": "kill"]),
                   Self.line(11, "exit", ["target": "host-app", "childPid": "7", "status": "signal 9"]),
                   Self.line(12, "user_tap_lost", [
                       "target": "host-app", "action": "start_session", "seq": "4", "sessionId": "s-1", "how": "taken in, not finished",
                       "why": "the user does not tap again (user.retry: never)"]),
                   Self.line(13, "host-app", "user_input", ["action": "start_session", "seq": "4"]),  // after: not this tap's
                   Self.line(20, "run_finished")]
        }
        // The app's own account of what it was about to do is not an effect; the nemesis's lines neither.
        let unseen = HistoryIndex(history([Self.line(4, "host-app", "starting", ["sessionId": "s-1"]), Self.line(5, "fault_armed", ["kind": "stop"])]))
        let lost = unseen.lostTaps
        #expect(lost.count == 1 && lost.first?.action == "start_session" && lost.first?["sessionId"] == "s-1")
        #expect(lost.first?.input?.mono == 3 && lost.first?.exit?.mono == 11)
        #expect(lost.first?.beforeAnyEffect == true && lost.first?.writes.isEmpty == true)
        let listed = LostWork.tapsLostWithTheApp(unseen)
        #expect(listed.map(\.invariant) == [LostWork.tapLostWithTheApp])
        #expect(listed.first?.explanation.contains("host-app died while handling it, before anything came of it, and it was not made again: the user does not tap again") == true)
        #expect(listed.first?.relevantEvents.map(\.mono) == [3, 11, 12])
        // An App Group write of it, a server's line or iOS's record of a change: something came of it.
        let wrote = HistoryIndex(history([Self.line(6, "host-app", "defaults_set", ["suite": "g", "keys": "session", "v.session": "s-1"])])).lostTaps
        #expect(wrote.first?.beforeAnyEffect == false && wrote.first?.writes.map { $0["session"] } == ["s-1"])
        let served = HistoryIndex(history([Self.line(6, "server", "session_created", pid: 9, ["sessionId": "s-1"])])).lostTaps
        #expect(served.first?.beforeAnyEffect == false && served.first?.writes.isEmpty == true)
        let shielded = HistoryIndex(history([Self.line(6, "shields", ["apps": "a"])])).lostTaps
        #expect(shielded.first?.beforeAnyEffect == false)
        #expect(LostWork.tapsLostWithTheApp(HistoryIndex(history([]))).first?.explanation.contains("before anything came of it") == true)
    }

    @Test func availabilityMergesOverlapsAndCountsItsGraceOnlyWhileUp() {
        let a = HostAvailability([(10, 20), (15, 25), (40, 50), (30, 30)])
        #expect(a.spans.map(\.from) == [10, 40] && a.spans.map(\.to) == [25, 50])
        #expect(a.deadline(after: 20, seconds: 5) == 25)
        #expect(a.deadline(after: 20, seconds: 6) == 41)
        #expect(a.deadline(after: 20, seconds: 100) == nil)
        #expect(a.covers(12, seconds: 13) && !a.covers(12, seconds: 14))
        let b = HostAvailability([(0, 12), (45, 100)])
        #expect(a.intersection(b) == HostAvailability([(10, 12), (45, 50)]))
    }

    @Test func foregroundAndHostStateComeFromIOSsHostStateLines() {
        let index = HistoryIndex([
            Self.line(0, "run_started"),
            Self.line(2, "host_state", ["state": "foreground"]),
            Self.line(4, "host_state", ["state": "background"]),
            Self.line(6, "host_state", ["state": "foreground"]),
            Self.line(9, "run_finished"),
        ])
        #expect(index.foreground == HostAvailability([(Self.t0 + 2, Self.t0 + 4), (Self.t0 + 6, Self.t0 + 9)]))
        #expect(index.hostState(atMono: 1) == "notRunning")
        #expect(index.hostState(atMono: 5) == "background")
    }

    @Test func appGroupWritesAreReadByKeyWithTheirWriter() {
        let write = Self.line(
            3, "host-app", "defaults_set", pid: 42,
            ["suite": "group.x", "keys": "a,b", "v.a": "1", "v.b": DefaultsWrite.removed])
        let other = Self.line(4, "monitor", "defaults_set", pid: 43, ["suite": "group.y", "keys": "c", "v.c": "true"])
        let index = HistoryIndex([Self.line(0, "run_started"), write, other, Self.line(9, "run_finished")])
        #expect(index.defaultsWrites.count == 2)
        let w = index.writes(suite: "group.x", by: "host-app")
        #expect(w.count == 1 && w[0].keys == ["a", "b"] && w[0]["a"] == "1" && w[0]["b"] == DefaultsWrite.removed)
        #expect(w[0].pid == 42 && w[0].wrote("b") && !w[0].wrote("c"))
        #expect(index.writes(by: "monitor").map(\.suite) == ["group.y"])
        #expect(index.writes(suite: "group.x", by: "monitor").isEmpty)
    }

    @Test func selectedAppsAreTheFirstSelection() {
        let index = HistoryIndex([
            Self.line(1, "user_action", ["action": "select_apps", "apps": "b,a"]),
            Self.line(2, "user_action", ["action": "select_apps", "apps": "c"]),
        ])
        #expect(index.selectedApps == ["b", "a"])
        #expect(index.userActions("select_apps").count == 2)
        #expect(index.undecidableReason != nil)
    }

    /// Lost work in one wording for every pack, in the order the user did it.
    @Test func lostPressesAndTapsAreSaidInTheOrderTheUserDidThem() {
        let events = [
            Self.line(0, "run_started"),
            Self.line(10, "user_action", ["action": "tap_done", "episode": "2"]),
            Self.line(20, "user_action", ["action": "press", "episode": "3"]),
            Self.line(21, "callback_delivered", ["callback": "shieldAction", "delivery": "1", "episode": "3", "childPid": "9"]),
            Self.line(22, "callback_failed", ["callback": "shieldAction", "delivery": "1", "status": "killed"]),
            Self.line(30, "user_action", ["action": "tap_done", "episode": "4"]),
            Self.line(31, "host-app", "user_input", ["action": "tap_done", "episode": "4"]),
            Self.line(40, "run_finished"),
        ]
        let lost = LostWork.violations(
            in: events, presses: [.init(action: "press", label: "episode", invariant: "answered", name: "Begin")],
            taps: [.init(role: "host-app", action: "tap_done", matching: ["episode"], invariant: "taken", consequence: "no unlock")])
        #expect(lost.map(\.subject?.id) == ["tap_done 2@t=\(Int(Self.t0 + 10))", "3@t=\(Int(Self.t0 + 20))"])
        #expect(lost.map(\.invariant) == ["taken", "answered"])
        #expect(lost[0].explanation == "the user's tap_done tap of episode 2 at t=\(Self.t0 + 10) never reached the host (no user_input): no unlock")
        #expect(lost[1].explanation == "the Begin press (episode 3) at t=\(Self.t0 + 20): no shield-action call of it completed (1 call(s))")
        #expect(lost[1].relevantEvents.map(\.event) == ["user_action", "callback_delivered", "callback_failed"])
    }
}
