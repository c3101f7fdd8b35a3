@testable import FocusPledgePack
import HarnessKit
import History
import Testing

/// A user who denies Screen Time access (seed 000's "Authorization flow" answered no):
/// a start the host refuses for it is excused only when the history shows the user's answer,
/// and it is listed beside the verdict — never a silent pass.
@Suite(.timeLimit(.minutes(1))) struct AuthorizationRuleTests {
    enum OSLine { case deniedAnswer, revoked, none }

    /// The user picks an app, iOS answers the app's prompt (or revokes), the user starts `s1`, the
    /// host refuses with `reason`, opens the blocked app (not shielded), and the stale job settles.
    static func refusedStart(os: OSLine, reason: String = "not_authorized") -> CheckReport {
        var b = HistoryBuilder()
        let host = b.spawnHost()
        b.harness("user_action", ["action": "select_apps", "apps": "com.example.game"])
        switch os {
        case .deniedAnswer:
            b.line("host-app", pid: host, "authorization_requested", ["kind": "screenTime"])
            b.harness("authorization", ["kind": "familyControls", "status": "denied", "request": "R1"])
        case .revoked:
            b.harness("authorization", ["kind": "familyControls", "status": "approved", "request": "R1"])
            b.harness("authorization", ["kind": "familyControls", "status": "denied", "why": "revoked"])
        case .none:
            break
        }
        b.harness("user_action", ["action": "start_session", "sid": "s1", "durationMinutes": "30"])
        b.line("host-app", pid: host, "start_rejected", ["sessionId": "s1", "reason": reason])
        b.wait(deviceMinutes: 5)
        b.harness("user_action", ["action": "open_blocked_app", "sid": "s1", "app": "com.example.game"])
        b.harness("app_in_use", ["sid": "s1", "app": "com.example.game", "seconds": "60"])
        b.wait(deviceMinutes: 11)
        b.settle("s1", "FAILURE", reason: "no_heartbeat", origin: "staleJob")
        b.wait(deviceMinutes: 20)
        return FocusPledgeChecker.check(b.finish())
    }

    @Test func aStartRefusedAfterTheUserDeniedAccessIsExcusedAndListed() {
        let report = Self.refusedStart(os: .deniedAnswer)
        #expect(report.violations.isEmpty, "\(report.violations.map(\.explanation))")
        #expect(report.checked(.startEnforced) == 1)
        let listed = report.lostByOS ?? []
        #expect(listed.map(\.invariant) == ["start-not-authorized"])
        #expect(listed.first?.subject?.id == "s1")
        #expect(listed.first?.explanation.contains("denied Screen Time access") == true)
    }

    /// After a revocation the app could have asked again (iOS prompts until approved): no excuse.
    @Test func aRefusalAfterARevocationIsAViolation() {
        let report = Self.refusedStart(os: .revoked)
        #expect(report.violations(of: "start-enforced").map(\.subject?.id) == ["s1"])
        #expect(report.failedInvariants.contains("blocked-app-shielded"))
        #expect(report.lostByOS == nil)
    }

    /// The user revokes Screen Time access during a running session and opens a blocked app: iOS
    /// removed the shields and told the app nothing. Not the app's doing while it had no chance to
    /// see it (never in front since) — listed; once the user had the host in front, it could have
    /// asked again — a violation.
    @Test func shieldsIOSRemovedWithARevocationAreExcusedOnlyUntilTheHostWasInFront() {
        func run(openHostBetween: Bool) -> CheckReport {
            var b = HistoryBuilder()
            let host = b.spawnHost()
            b.startSession("s1", host: host, minutes: 30)
            b.wait(deviceMinutes: 2)
            b.harness("authorization", ["kind": "familyControls", "status": "denied", "why": "revoked"])
            if openHostBetween { b.harness("user_action", ["action": "open_host"]) }
            b.wait(deviceMinutes: 2)
            b.harness("user_action", ["action": "open_blocked_app", "sid": "s1", "app": "com.example.game"])
            b.harness("app_in_use", ["sid": "s1", "app": "com.example.game", "seconds": "60"])
            b.wait(deviceMinutes: 30)
            b.hostSettles("s1", "FAILURE", host: host)
            return FocusPledgeChecker.check(b.finish())
        }
        let unseen = run(openHostBetween: false)
        #expect(!unseen.failedInvariants.contains("blocked-app-shielded"))
        #expect((unseen.lostByOS ?? []).map(\.invariant) == ["shield-removed-by-revocation"])
        let seen = run(openHostBetween: true)
        #expect(seen.violations(of: "blocked-app-shielded").map(\.subject?.id) == ["s1"])
        #expect(seen.lostByOS == nil)
    }

    /// A host that says `not_authorized` when the OS never said no is refusing a start it could make.
    @Test func aRefusalTheOSNeverAnsweredIsAViolation() {
        let report = Self.refusedStart(os: .none)
        #expect(report.violations(of: "start-enforced").first?.explanation.contains("not_authorized") == true)
        #expect(report.lostByOS == nil)
    }

    /// The excuse is for that reason only: any other refusal after a denied answer still fails.
    @Test func anotherRefusalReasonIsNotExcused() {
        let report = Self.refusedStart(os: .deniedAnswer, reason: "no_blocked_apps")
        #expect(report.violations(of: "start-enforced").map(\.subject?.id) == ["s1"])
    }
}
