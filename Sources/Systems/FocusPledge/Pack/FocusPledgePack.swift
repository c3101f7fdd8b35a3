import FocusPledge
import Foundation
import HarnessKit
import History
import ScreenTimeModel
import SystemKit

/// Seed 000, FocusPledge ("iOS Native Bridge Specification — Flutter ↔ Screen Time Integration"):
/// a Flutter host app, a DeviceActivityMonitor and a ShieldAction extension sharing
/// `group.com.focuspledge.shared`, and a settlement server standing in for the `resolveSession`
/// Cloud Function and its stale-session job. README.md beside this folder lists the seed's
/// promises and every assumption the pack makes beyond the seed.
public struct FocusPledgePack: SystemPack {
    public init() {}

    public static let id = "focuspledge"
    static let standIns = "sth-focuspledge"
    static let server = "sth-focuspledge-server"
    static let serverRole = "settlement-server"
    static let hostRole = "host-app"

    public var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "FocusPledge", seed: "000", variants: Variant.allCases.map(\.rawValue),
            appGroups: [FocusPledgeKeys.appGroupId],
            // The nemesis's default targets are in this order (it decides the fault plan).
            roles: [
                ProcessRole(
                    name: Self.hostRole, lifetime: .app, executable: Self.standIns, arguments: ["host-app"],
                    summary: "Flutter app + Swift NativeBridge: starts sessions, polls every 5 s, settles on the server"),
                ProcessRole(
                    name: Self.serverRole, lifetime: .server, executable: Self.server,
                    summary: "resolveSession Cloud Function + stale-heartbeat job (Hummingbird, 127.0.0.1)"),
                // The extensions trace their App Group writes (`defaults_set`): as-written's are the
                // seed's own `AppGroupStorage` calls, which the checker reads the failure records from.
                ProcessRole(
                    name: "monitor-extension", lifetime: .extension(.deviceActivityMonitor), executable: Self.standIns,
                    arguments: ["monitor-extension"],
                    summary: "DeviceActivityMonitorExtension (as-written: the seed's Swift): eventDidReachThreshold marks the session failed",
                    tracesDefaultsWrites: true),
                ProcessRole(
                    name: "shield-action-extension", lifetime: .extension(.shieldAction), executable: Self.standIns,
                    arguments: ["shield-action-extension"],
                    summary: "ShieldActionExtension (as-written: the seed's Swift): a shield button press marks the session failed, answers .none",
                    tracesDefaultsWrites: true),
                ProcessRole(
                    name: "shield-configuration-extension", lifetime: .extension(.shieldConfiguration), executable: Self.standIns,
                    arguments: ["shield-configuration-extension"],
                    summary: "not in the seed: as-written shows the default shield; hardened marks the session failed when a shield shows",
                    tracesDefaultsWrites: true),
            ],
            invariants: FocusPledgeInvariant.allCases.map(\.descriptor) + [CoreRules.noStoreCorrupt, CoreRules.runSettles],
            scenarioKeys: ["workload", "server"],
            // Longer than the server's stale-heartbeat threshold (15 min) plus a poll: a session
            // the host could not settle is settled by the job before the run is judged.
            defaultSettleSeconds: 45 * 60,
            latencySeries: [FocusPledgeChecker.violationToHost], heartbeats: FocusPledgeHeartbeat.model)
    }

    public func configuration(from sections: ScenarioSections) throws(ScenarioError) -> FocusPledgeConfiguration {
        try FocusPledgeConfiguration.read(sections)
    }

    public func plan(
        _ configuration: FocusPledgeConfiguration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator
    ) -> WorkloadPlan<UserAction, PlanSummary> {
        FocusPledgePlanner.planWorkload(configuration.workload, seed: seed, deviceMillis: deviceMillis, generator: &generator)
    }

    public func launchArguments(for role: ProcessRole, configuration: FocusPledgeConfiguration, run: RunPaths) -> [String] {
        guard role.name == Self.serverRole else { return [] }
        return [
            "--journal", Self.journal(run), "--port-file", run.portFile(role.name), "--trace", run.trace(role.name),
            "--device-root", run.deviceRoot, "--stale-after-seconds", String(configuration.staleAfterMinutes * 60),
            "--job-interval-ms", "20", "--no-journal-fsync",
            // The pledges exist server-side before their native sessions start (README, A1).
            "--pledges", run.runDirectory + "/schedule.json",
        ]
    }

    static func journal(_ run: RunPaths) -> String { run.dataDirectory(serverRole) + "/ledger.jsonl" }

    public func runFacts(_ configuration: FocusPledgeConfiguration) -> [String: String] {
        ["staleAfterSeconds": String(configuration.staleAfterMinutes * 60)]
    }

    /// The user, as the seed's UI and iOS see them: taps happen inside the host (opened first), a
    /// blocked app is opened through iOS (`useApp`: the shield shows if it is shielded) and a
    /// shield button is pressed on the shield on screen. Nothing here calls an extension directly.
    public func move(_ action: UserAction, seeing screen: any UserScreen) -> UserMove {
        switch action {
        case .selectApps(let apps):
            return .inHost("select_apps", ["apps": apps.joined(separator: ",")], role: Self.hostRole, tap: AppMessage(action: FocusPledgeActions.selectApps, list: apps))
        case .startSession(let sid, let minutes):
            // `tappedAt`: the UI's time of the tap (README H7); a host held stopped reads it late.
            return .inHost(
                "start_session", ["sid": sid, "durationMinutes": String(minutes)], role: Self.hostRole,
                tap: AppMessage(
                    action: FocusPledgeActions.startSession,
                    fields: ["sessionId": sid, "durationMinutes": String(minutes), "tappedAt": String(screen.now)]))
        case .stopSession(let sid):
            return .inHost("stop_session", ["sid": sid], role: Self.hostRole, tap: AppMessage(action: FocusPledgeActions.stopSession, fields: ["sessionId": sid]))
        case .openBlockedApp(let app, let sid):
            return UserMove(
                "open_blocked_app", ["sid": sid, "app": app],
                steps: [.useApp(app, seconds: Self.blockedAppUseSeconds, label: ["sid": sid, "violation": "open_blocked_app"])])
        case .pressShieldButton(let app, let sid):
            // The shield of `app` is on screen since the `openBlockedApp` just before (if iOS shielded it).
            return UserMove(
                "press_shield_button", ["sid": sid, "app": app],
                steps: [.pressShield(.primaryButtonPressed, label: ["sid": sid, "violation": "press_shield_button"])])
        case .openHost(let sid):
            return UserMove("open_host", sid.map { ["sid": $0] } ?? [:], steps: [.openHost])
        case .leaveHost(let sid):
            return UserMove("leave_host", sid.map { ["sid": $0] } ?? [:], steps: [.leaveHost])
        case .forceQuitHost(let sid):
            return UserMove("force_quit_host", sid.map { ["sid": $0] } ?? [:], steps: [.forceQuitHost])
        }
    }

    /// How long the user means to use a blocked app (if it is not shielded, iOS counts this use).
    static let blockedAppUseSeconds = 60.0

    /// The settlement server's durable journal is the authority on settlements: each one becomes a
    /// `ledger` line.
    public func evidence(run: RunPaths) -> [Evidence] {
        guard let data = FileManager.default.contents(atPath: Self.journal(run)) else { return [] }
        var out: [Evidence] = []
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let obj = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any], obj["type"] as? String == "settled",
                let s = obj["settlement"] as? [String: Any]
            else { continue }
            var f: [String: String] = [:]
            for k in ["sessionId", "resolution", "reason", "idempotencyKey", "origin", "previousStatus"] { f[k] = s[k].map { "\($0)" } ?? "" }
            f["ledgerSeq"] = (s["ledgerSeq"] as? NSNumber).map { "\($0.int64Value)" } ?? ""
            f["settledAtUnixMillis"] = (s["settledAtUnixMillis"] as? NSNumber).map { "\($0.int64Value)" } ?? ""
            out.append(Evidence(event: "ledger", fields: f))
        }
        return out
    }

    public func check(_ history: [HistoryEvent]) -> CheckReport {
        FocusPledgeChecker.check(history)
    }
}
