@testable import FocusPledgePack
import HarnessKit
import History
import Testing

/// A tap the host died in and the user did not make again (`user.retry: never`): the start it
/// would have made is excused only when nothing came of it before the host died — no process could
/// act on it — and the core lists it beside the verdict; once something came of it, the
/// relaunched host must finish it.
@Suite(.timeLimit(.minutes(1))) struct LostTapRuleTests {
    enum Lost { case start(effect: Bool), pick(written: Bool), none }

    /// The user picks an app and starts `s1`; the host dies in the tap that `lost` names (and the
    /// user does not tap again); the relaunched host refuses the start for want of apps (`pick`)
    /// or hears nothing of it (`start`).
    static func run(_ lost: Lost) -> CheckReport {
        var b = HistoryBuilder()
        var host = b.spawnHost()
        b.harness("user_action", ["action": "select_apps", "apps": "com.example.game"])
        func die(_ action: String, seq: String, fields: [String: String], effect: () -> Void) {
            b.line("host-app", pid: host, "user_input", fields.merging(["action": action, "seq": seq]) { a, _ in a })
            effect()
            b.line("host-app", pid: host, "failpoint", ["label": "host-app:defaults:k#1", "action": "kill"])
            b.harness("exit", ["target": "host-app", "childPid": String(host), "status": "signal 9"])
            b.harness("user_tap_lost", fields.merging([
                "target": "host-app", "action": action, "seq": seq, "how": "taken in, not finished",
                "why": "the user does not tap again (user.retry: never)",
            ]) { a, _ in a })
            host = b.spawnHost()
        }
        if case .pick(let written) = lost {
            die("select_apps", seq: "1", fields: [:]) {
                if written { b.line("host-app", pid: host, "defaults_set", ["suite": "g", "keys": "tokens", "v.tokens": "x"]) }
            }
        }
        b.harness("user_action", ["action": "start_session", "sid": "s1", "durationMinutes": "30"])
        switch lost {
        case .start(let effect):
            die("start_session", seq: "2", fields: ["sessionId": "s1"]) {
                if effect { b.line("host-app", pid: host, "defaults_set", ["suite": "g", "keys": "session", "v.session": "s1"]) }
            }
        case .pick:
            b.line("host-app", pid: host, "start_rejected", ["sessionId": "s1", "reason": "no_blocked_apps"])
        case .none:
            b.line("host-app", pid: host, "start_rejected", ["sessionId": "s1", "reason": "no_blocked_apps"])
        }
        b.wait(deviceMinutes: 5)
        b.wait(deviceMinutes: 40)
        return RunJudgement.judge(AnySystemPack(FocusPledgePack()), b.finish())
    }

    @Test func aStartTheHostDiedInBeforeAnythingCameOfItIsExcusedAndListed() {
        let report = Self.run(.start(effect: false))
        #expect(!report.failedInvariants.contains("start-enforced"), "\(report.violations.map(\.explanation))")
        #expect(report.checked(.startEnforced) == 1)
        let listed = (report.lostByOS ?? []).filter { $0.invariant == LostWork.tapLostWithTheApp }
        #expect(listed.count == 1 && listed.first?.explanation.contains("start_session tap (sessionId s1)") == true)
    }

    @Test func aStartThatWroteBeforeTheHostDiedIsTheRelaunchedHostsToFinish() {
        let report = Self.run(.start(effect: true))
        #expect(report.violations(of: "start-enforced").map(\.subject?.id) == ["s1"])
        #expect((report.lostByOS ?? []).contains { $0.invariant == LostWork.tapLostWithTheApp }, "listed all the same")
    }

    @Test func aRefusalForWantOfAppsIsExcusedOnlyWhenEveryPickDiedBeforeReachingTheAppGroup() {
        #expect(!Self.run(.pick(written: false)).failedInvariants.contains("start-enforced"))
        #expect(Self.run(.pick(written: true)).violations(of: "start-enforced").map(\.subject?.id) == ["s1"])
        #expect(Self.run(.none).violations(of: "start-enforced").map(\.subject?.id) == ["s1"], "a pick that reached the host: no excuse")
    }
}
