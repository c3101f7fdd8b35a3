import Exit
import Foundation
import HarnessKit
import History
import ScreenTimeModel
import SystemKit

/// Seed 004, Exit ("API Specifications — Main App ↔ Extensions"): a React Native host app and
/// three extensions sharing `group.com.exit.app` through the seed's key registry. README.md
/// beside this folder lists the seed's promises and every assumption beyond the seed.
public struct ExitPack: SystemPack {
    public init() {}

    public static let id = "exit"
    static let executable = "sth-exit"

    public var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "Exit", seed: "004", variants: ExitVariant.allCases.map(\.rawValue),
            appGroups: [ExitKeys.appGroup],
            // Every role traces its App Group writes: the key registry is judged from them.
            roles: [
                ProcessRole(
                    name: ExitRoles.host, lifetime: .app, executable: Self.executable, arguments: [ExitRoles.host],
                    summary: "React Native app + AppGroupStorage: polls for intervention requests, runs the exercise, unlocks, resets daily",
                    notices: AppNotices(lifecycle: true, significantTimeChange: true), tracesDefaultsWrites: true),
                ProcessRole(
                    name: ExitRoles.monitor, lifetime: .extension(.deviceActivityMonitor), executable: Self.executable,
                    arguments: [ExitRoles.monitor],
                    summary: "§5.3 ExitDeviceActivityMonitor (+ §6.1 heartbeat); hardened: heartbeat and re-shield only",
                    tracesDefaultsWrites: true),
                ProcessRole(
                    name: ExitRoles.shieldAction, lifetime: .extension(.shieldAction), executable: Self.executable,
                    arguments: [ExitRoles.shieldAction],
                    summary: "§3.2 \"Begin Breathing\": intervention_requested + blocked_app, answers .none", tracesDefaultsWrites: true),
                ProcessRole(
                    name: ExitRoles.shieldConfiguration, lifetime: .extension(.shieldConfiguration), executable: Self.executable,
                    arguments: [ExitRoles.shieldConfiguration],
                    summary: "§3.3 \"Access Granted — Ns remaining\" inside the 60 s window, locked otherwise", tracesDefaultsWrites: true),
            ],
            invariants: ExitInvariant.allCases.map(\.descriptor) + [CoreRules.noStoreCorrupt, CoreRules.runSettles],
            scenarioKeys: ["exit"],
            // Every promise is judged within a minute or two of its cause; settling covers an
            // unlock window and a poll or two.
            defaultSettleSeconds: 5 * 60,
            latencySeries: [ExitChecker.tapToIntervention, ExitChecker.crashToReinitialize], heartbeats: ExitHeartbeat.model)
    }

    public func configuration(from sections: ScenarioSections) throws(ScenarioError) -> ExitConfiguration {
        try ExitConfiguration.read(sections)
    }

    public func plan(_ c: ExitConfiguration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> WorkloadPlan<ExitAction, ExitSummary> {
        ExitPlanner.plan(c, deviceMillis: deviceMillis, generator: &generator)
    }

    /// The user, as iOS sees them: a blocked app is opened through iOS (its shield shows), the
    /// shield's button pressed on screen, the exercise is taps inside the host. Nothing here calls
    /// an extension directly.
    public func move(_ action: ExitAction, seeing screen: any UserScreen) -> UserMove {
        var label = ["episode": String(action.episode)]
        if let app = action.app { label["app"] = app }
        switch action.kind {
        case .selectApps:
            let apps = action.apps ?? []
            return .inHost("select_apps", ["apps": apps.joined(separator: ",")], role: ExitRoles.host, tap: AppMessage(action: ExitKeys.selectAppsAction, list: apps))
        case .openBlockedApp:
            return UserMove("open_blocked_app", label, steps: [.useApp(action.app ?? "", seconds: ExitPlanner.blockedUseSeconds, label: label)])
        case .pressShield:
            return UserMove("press_shield", label, steps: [.pressShield(.primaryButtonPressed, label: label)])
        case .openHost:
            return UserMove("open_host", label, steps: [.openHost])
        case .breathingDone:
            return UserMove("breathing_done", label, steps: [.tap(role: ExitRoles.host, AppMessage(action: ExitKeys.breathingDoneAction, fields: label))])
        case .breathingAbandoned:
            return UserMove("breathing_abandoned", label, steps: [.tap(role: ExitRoles.host, AppMessage(action: ExitKeys.breathingAbandonedAction, fields: label))])
        case .leaveHost:
            return UserMove("leave_host", label, steps: [.leaveHost])
        case .forceQuitHost:
            return UserMove("force_quit_host", label, steps: [.forceQuitHost])
        case .openUnlockedApp:
            return UserMove("open_unlocked_app", label, steps: [.useApp(action.app ?? "", seconds: ExitPlanner.unlockedUseSeconds, label: label)])
        }
    }

    public func check(_ history: [HistoryEvent]) -> CheckReport { ExitChecker.check(history) }
}
