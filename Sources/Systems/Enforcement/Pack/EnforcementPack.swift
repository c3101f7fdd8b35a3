import AppGroup
import Enforcement
import EnforcementStore
import Foundation
import HarnessKit
import History
import ScreenTimeModel
import SystemKit

/// Seed 001, the v1.1 iOS enforcement spec: a local-first rules engine (modes, unlock grants)
/// applied as `shieldedApps = blockedAppsByEffectiveMode - appsWithActiveGrant`, re-shielding at
/// a grant's end through a one-off DeviceActivity schedule, with fallbacks. README.md beside this
/// folder lists the spec's promises and every assumption beyond its text.
public struct EnforcementPack: SystemPack {
    public init() {}

    public static let id = "enforcement"
    static let executable = "sth-enforcement"

    public var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "Enforcement (v1.1 iOS enforcement spec)", seed: "001", variants: EnforcementVariant.allCases.map(\.rawValue),
            appGroups: [EnforcementKeys.appGroup],
            roles: [
                ProcessRole(
                    name: EnforcementRoles.host, lifetime: .app, executable: Self.executable, arguments: [EnforcementRoles.host],
                    summary: "rules engine: selection, modes, unlock grants -> shieldedApps; one-off schedule per grant; SQLite mirror (GRDB, WAL)",
                    notices: AppNotices(lifecycle: true), tracesDefaultsWrites: true),
                ProcessRole(
                    name: EnforcementRoles.monitor, lifetime: .extension(.deviceActivityMonitor), executable: Self.executable,
                    arguments: [EnforcementRoles.monitor], summary: "re-applies shieldedApps from the App Group at mode and grant boundaries",
                    tracesDefaultsWrites: true),
                ProcessRole(
                    name: EnforcementRoles.shieldAction, lifetime: .extension(.shieldAction), executable: Self.executable,
                    arguments: [EnforcementRoles.shieldAction], summary: "Close app (.close); reconciles first (\"next shield event\")",
                    tracesDefaultsWrites: true),
                ProcessRole(
                    name: EnforcementRoles.shieldConfiguration, lifetime: .extension(.shieldConfiguration), executable: Self.executable,
                    arguments: [EnforcementRoles.shieldConfiguration], summary: "\"App is blocked\", the blocking mode, the next step; Close app",
                    tracesDefaultsWrites: true),
            ],
            invariants: EnforcementInvariant.allCases.map(\.descriptor) + [CoreRules.noStoreCorrupt, CoreRules.runSettles],
            scenarioKeys: ["enforcement"],
            // A grant's end is judged up to a minute after it (or after the next fallback trigger);
            // settling covers that and the longest grant the workload may leave running is cut by it.
            defaultSettleSeconds: 5 * 60,
            latencySeries: [EnforcementChecker.reshieldLatency, EnforcementChecker.overrideEndLatency])
    }

    public func configuration(from sections: ScenarioSections) throws(ScenarioError) -> EnforcementConfiguration {
        try EnforcementConfiguration.read(sections)
    }

    public func plan(_ c: EnforcementConfiguration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator)
        -> WorkloadPlan<EnforcementAction, EnforcementSummary>
    {
        EnforcementPlanner.plan(c, deviceMillis: deviceMillis, generator: &generator)
    }

    /// The user, as iOS sees them: taps inside the host (opened first), apps opened through iOS
    /// (the shield shows when shielded), the shield's button pressed on screen.
    public func move(_ action: EnforcementAction, seeing screen: any UserScreen) -> UserMove {
        var label = ["step": action.step]
        if let app = action.app { label["app"] = app }
        let host = EnforcementRoles.host
        switch action.kind {
        case .selectApps:
            let apps = action.apps ?? []
            return .inHost(
                "select_apps", label.merging(["apps": apps.joined(separator: ",")]) { a, _ in a }, role: host,
                tap: AppMessage(action: EnforcementKeys.selectAppsAction, list: apps))
        case .enableMode:
            let apps = action.apps ?? []
            var fields = [
                "mode": action.mode ?? "", "name": (action.mode ?? "").capitalized, "precedence": String(action.precedence ?? 0),
                "startsInMinutes": String(action.startsInMinutes ?? 0), "lengthMinutes": String(action.minutes ?? 0),
            ]
            let recorded = label.merging(fields.merging(["apps": apps.joined(separator: ",")]) { a, _ in a }) { a, _ in a }
            fields["step"] = action.step
            return .inHost("enable_mode", recorded, role: host, tap: AppMessage(action: EnforcementKeys.enableModeAction, fields: fields, list: apps))
        case .createGrant:
            let minutes = String(action.minutes ?? 0)
            return .inHost(
                "create_grant", label.merging(["minutes": minutes]) { a, _ in a }, role: host,
                tap: AppMessage(action: EnforcementKeys.createGrantAction, fields: ["app": action.app ?? "", "minutes": minutes]))
        case .setOverride:
            let fields = ["mode": action.mode ?? "", "state": action.on == true ? "on" : "off", "minutes": String(action.minutes ?? 0)]
            return .inHost("set_override", label.merging(fields) { a, _ in a }, role: host, tap: AppMessage(action: EnforcementKeys.setOverrideAction, fields: fields))
        case .openHost:
            return UserMove("open_host", label, steps: [.openHost])
        case .leaveHost:
            return UserMove("leave_host", label, steps: [.leaveHost])
        case .forceQuitHost:
            return UserMove("force_quit_host", label, steps: [.forceQuitHost])
        case .openApp:
            return UserMove("open_app", label, steps: [.useApp(action.app ?? "", seconds: action.seconds ?? 20, label: label)])
        case .pressClose:
            return UserMove("press_close", label, steps: [.pressShield(.primaryButtonPressed, label: label)])
        }
    }

    /// After the run: the host's SQLite mirror opened read-only (its ids, `PRAGMA
    /// integrity_check`, journal mode) and the App Group's selection, as two harness lines the
    /// checker compares (`sqlite-mirror-agrees`).
    public func evidence(run: RunPaths) -> [Evidence] {
        let db = SelectionMirror.inspect(path: EnforcementHostAdapterPaths.database(deviceRoot: run.deviceRoot))
        var out = [
            Evidence(event: "sqlite_mirror", fields: [
                "exists": String(db.ids != nil), "apps": (db.ids ?? []).joined(separator: ","), "integrity": db.integrity, "journalMode": db.journalMode,
            ])
        ]
        do {
            let root = try DeviceRoot(path: run.deviceRoot, create: false)
            let container = try AppGroupContainer(
                deviceRoot: root, groupIdentifier: EnforcementKeys.appGroup, entitlements: Entitlements(appGroups: [EnforcementKeys.appGroup]))
            let snapshot = try SharedDefaults(container: container, suiteName: EnforcementKeys.appGroup).snapshot()
            out.append(Evidence(event: "app_group_selection", fields: [
                "present": String(snapshot[EnforcementKeys.selection] != nil), "apps": Rules(store: snapshot).selection.joined(separator: ","),
            ]))
        } catch {
            out.append(Evidence(event: "app_group_selection", fields: ["present": "false", "apps": "", "error": "\(error)"]))
        }
        return out
    }

    public func check(_ history: [HistoryEvent]) -> CheckReport { EnforcementChecker.check(history) }
}

/// Where the host keeps its database (the stand-in's adapter and the evidence agree on it).
public enum EnforcementHostAdapterPaths {
    public static func database(deviceRoot: String) -> String {
        deviceRoot + "/sandboxes/\(EnforcementRoles.host)/\(EnforcementKeys.databaseDirectory)/\(EnforcementKeys.databaseFile)"
    }
}
