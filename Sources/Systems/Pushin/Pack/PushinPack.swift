import Foundation
import HarnessKit
import History
import Pushin
import ScreenTimeModel
import SystemKit

/// Pushin (seed 002) plugged into the harness: its two processes, its scenario keys, what the
/// user does, and the seed's promises (`PushinChecker`).
public struct PushinPack: SystemPack {
    public static let id = "pushin"
    static let executable = "sth-pushin"
    static let hostRole = "host-app"
    static let extensionRole = "shield-action-extension"

    public init() {}

    /// One thing the user does, flat in `schedule.json`.
    public struct Action: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            case onboard, openBlockedApp, pressWorkout, pressEmergency, tapNotification, openHost, leaveHost, forceQuitHost
        }

        public var kind: Kind
        /// The press this belongs to (0: onboarding).
        public var press: Int
        /// `openBlockedApp`: the app.
        public var app: String?
        /// `tapNotification`: `default`, `START_WORKOUT` or `LATER`.
        public var tapAction: String?
        /// `onboard`: the blocked apps and unlocks.
        public var apps: [String]?
        public var emergencyUnlocks: Int?

        public init(kind: Kind, press: Int, app: String? = nil, tapAction: String? = nil, apps: [String]? = nil, emergencyUnlocks: Int? = nil) {
            self.kind = kind
            self.press = press
            self.app = app
            self.tapAction = tapAction
            self.apps = apps
            self.emergencyUnlocks = emergencyUnlocks
        }
    }

    public struct Summary: Encodable, Sendable, Equatable {
        public var workoutPresses: Int
        public var emergencyPresses: Int
    }

    public var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "Pushin", seed: "002", variants: PushinVariant.allCases.map(\.rawValue), appGroups: [PushinKeys.appGroup],
            roles: [
                ProcessRole(
                    name: Self.hostRole, lifetime: .app, executable: Self.executable, arguments: [Self.hostRole],
                    summary: "Flutter app + NotificationManager: onboarding, App Group check, notification, pushin://workout",
                    notices: AppNotices(lifecycle: true, urlSchemes: [PushinKeys.urlScheme]), tracesDefaultsWrites: true),
                ProcessRole(
                    name: Self.extensionRole, lifetime: .extension(.shieldAction), executable: Self.executable, arguments: [Self.extensionRole],
                    summary: "workout: App Group signal (as-written: the seed's Swift), .none; emergency: spends an unlock, .close",
                    tracesDefaultsWrites: true),
            ],
            invariants: PushinChecker.invariants + [CoreRules.noStoreCorrupt, CoreRules.runSettles],
            scenarioKeys: ["pushin"],
            // A signal expires after 5 minutes; a notification waits at most a minute for its slot.
            defaultSettleSeconds: 10 * 60,
            latencySeries: PushinChecker.latencySeries)
    }

    public func configuration(from sections: ScenarioSections) throws(ScenarioError) -> PushinConfiguration {
        try PushinConfiguration.read(sections)
    }

    /// Onboarding at 10 s (Pushin opened, the onboarding tap, left 30 s later), then press by
    /// press: open a blocked app, press a shield button 5 s later, react `reactSeconds` after
    /// that (tap the newest notification, open Pushin, or nothing; leave Pushin 30 s after),
    /// maybe force-quit Pushin, then wait `gapSeconds`.
    public func plan(_ c: PushinConfiguration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator)
        -> WorkloadPlan<Action, Summary>
    {
        var actions: [PlannedAction<Action>] = []
        func at(_ t: Double, _ a: Action) { actions.append(PlannedAction(atDeviceOffsetSeconds: t, action: a)) }
        let end = Double(deviceMillis) / 1000
        at(10, Action(kind: .onboard, press: 0, apps: c.blockedApps, emergencyUnlocks: c.emergencyUnlocks))
        at(40, Action(kind: .leaveHost, press: 0))
        var t = 60.0
        var summary = Summary(workoutPresses: 0, emergencyPresses: 0)
        for press in 1...c.presses {
            let app = c.blockedApps[generator.int(in: 0...(c.blockedApps.count - 1))]
            let emergency = generator.chance(c.emergencyProbability)
            let react = Double(generator.int(in: c.reactSeconds))
            let roll = generator.unit()
            let tapKind = generator.unit()
            let forceQuit = generator.chance(c.forceQuitProbability)
            let gap = Double(generator.int(in: c.gapSeconds))
            // The whole episode must fit: press, reaction, 30 s in Pushin, the force quit.
            guard t + 5 + react + 40 <= end else { break }
            at(t, Action(kind: .openBlockedApp, press: press, app: app))
            at(t + 5, Action(kind: emergency ? .pressEmergency : .pressWorkout, press: press))
            if emergency { summary.emergencyPresses += 1 } else { summary.workoutPresses += 1 }
            let next = t + 5 + react
            if roll < c.tapProbability {
                let action = tapKind < c.laterProbability ? PushinKeys.laterAction : tapKind < (1 + c.laterProbability) / 2 ? "default" : PushinKeys.startWorkoutAction
                at(next, Action(kind: .tapNotification, press: press, tapAction: action))
                at(next + 30, Action(kind: .leaveHost, press: press))
            } else if roll < c.tapProbability + (1 - c.tapProbability) * c.openHostProbability {
                at(next, Action(kind: .openHost, press: press))
                at(next + 30, Action(kind: .leaveHost, press: press))
            }
            if forceQuit { at(next + 35, Action(kind: .forceQuitHost, press: press)) }
            t = next + 40 + gap
        }
        return WorkloadPlan(actions: actions, summary: summary)
    }

    /// The user, as iOS sees them. A tap picks the newest notification in Notification Center (the
    /// one on top of the lock screen); with none there it is recorded and nothing else happens.
    public func move(_ action: Action, seeing screen: any UserScreen) -> UserMove {
        var label = ["press": String(action.press)]
        switch action.kind {
        case .onboard:
            return .inHost(
                "onboard", label, role: Self.hostRole,
                tap: AppMessage(
                    action: PushinKeys.onboardAction,
                    fields: ["apps": (action.apps ?? []).joined(separator: ","), "emergencyUnlocks": String(action.emergencyUnlocks ?? 0)]))
        case .openBlockedApp:
            let app = action.app ?? ""
            label["app"] = app
            return UserMove("open_blocked_app", label, steps: [.useApp(app, seconds: 20, label: label)])
        case .pressWorkout:
            return UserMove("press_workout", label, steps: [.pressShield(.primaryButtonPressed, label: label)])
        case .pressEmergency:
            return UserMove("press_emergency", label, steps: [.pressShield(.secondaryButtonPressed, label: label)])
        case .tapNotification:
            // The newest notification on the lock screen, whatever the app named it.
            let tap = action.tapAction ?? "default"
            label["tapAction"] = tap
            guard let id = screen.deliveredNotifications.last else {
                label["identifier"] = "-"
                return UserMove("tap_notification", label, steps: [])
            }
            label["identifier"] = id
            return UserMove(
                "tap_notification", label, steps: [.tapNotification(identifier: id, action: tap == "default" ? NotificationResponse.defaultAction : tap)])
        case .openHost:
            return UserMove("open_host", label, steps: [.openHost])
        case .leaveHost:
            return UserMove("leave_host", label, steps: [.leaveHost])
        case .forceQuitHost:
            return UserMove("force_quit_host", label, steps: [.forceQuitHost])
        }
    }

    public func check(_ history: [HistoryEvent]) -> CheckReport { PushinChecker.check(history) }
}
