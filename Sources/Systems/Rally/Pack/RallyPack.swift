import Foundation
import HarnessKit
import History
import Rally
import ScreenTimeModel
import SystemKit

/// Rally plugged into the harness: its processes, its scenario keys, what the user does, and the
/// spec's one promise. The whole of what a pack gives the core (docs/ADDING-A-SYSTEM.md).
public struct RallyPack: SystemPack {
    public static let id = "rally"
    static let executable = "sth-rally"
    static let playerRole = "player"
    static let returnerRole = "returner"

    public init() {}

    public struct Configuration: Sendable, Equatable {
        /// Balls served over the run.
        public var serves: Int
        /// Device seconds from one serve to the next.
        public var everySeconds: Int
    }

    /// One thing the user does, flat in `schedule.json`.
    public struct Action: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable { case serve, openCourt, pressShield }
        public var kind: Kind
        public var ball: Int
    }

    public struct Summary: Encodable, Sendable, Equatable {
        public var balls: Int
    }

    public var descriptor: SystemDescriptor {
        SystemDescriptor(
            id: Self.id, title: "Rally (the example pack)", seed: "example", variants: RallyVariant.allCases.map(\.rawValue),
            appGroups: [RallyKeys.appGroup],
            roles: [
                ProcessRole(
                    name: Self.playerRole, lifetime: .app, executable: Self.executable, arguments: [Self.playerRole],
                    summary: "serves (stores the ball, shields the court), wins when the ball comes back"),
                ProcessRole(
                    name: Self.returnerRole, lifetime: .extension(.shieldAction), executable: Self.executable, arguments: [Self.returnerRole],
                    summary: "a shield button press returns the ball and posts rally.returned"),
            ],
            invariants: [RallyChecker.everyReturnWon, CoreRules.noStoreCorrupt, CoreRules.runSettles],
            scenarioKeys: ["rally"],
            // A return is won at once, or at the player's next launch: minutes are plenty.
            defaultSettleSeconds: 5 * 60,
            latencySeries: [RallyChecker.returnToWin])
    }

    /// `rally: { serves: 8, everySeconds: 120 }`.
    public func configuration(from sections: ScenarioSections) throws(ScenarioError) -> Configuration {
        let rally = try sections.required("rally").section(allowed: ["serves", "everySeconds"])
        return Configuration(
            serves: try rally.required("serves").int(in: 1...10_000),
            everySeconds: try rally["everySeconds"]?.int(in: 60...86_400) ?? 120)
    }

    /// Ball by ball: serve, then (20–40 device s later, from the seed) open the court app and
    /// press its shield's button five seconds after.
    public func plan(_ c: Configuration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> WorkloadPlan<Action, Summary> {
        var actions: [PlannedAction<Action>] = []
        for ball in 1...c.serves {
            let t = Double(ball * c.everySeconds)
            let open = t + Double(generator.int(in: 20...40))
            guard (open + 5) * 1000 <= Double(deviceMillis) else { break }
            actions.append(PlannedAction(atDeviceOffsetSeconds: t, action: Action(kind: .serve, ball: ball)))
            actions.append(PlannedAction(atDeviceOffsetSeconds: open, action: Action(kind: .openCourt, ball: ball)))
            actions.append(PlannedAction(atDeviceOffsetSeconds: open + 5, action: Action(kind: .pressShield, ball: ball)))
        }
        return WorkloadPlan(actions: actions, summary: Summary(balls: actions.count / 3))
    }

    /// The user, as iOS sees them: serving is a tap in the player (opened first), after which they
    /// go to the home screen; the court is opened through iOS (the shield shows if it is shielded)
    /// and its button pressed on the shield on screen. Nothing here calls an extension directly.
    public func move(_ action: Action, seeing screen: any UserScreen) -> UserMove {
        let ball = ["ball": String(action.ball)]
        switch action.kind {
        case .serve:
            return UserMove("serve", ball, steps: [.openHost, .tap(role: Self.playerRole, AppMessage(action: RallyKeys.serveAction, fields: ball)), .leaveHost])
        case .openCourt:
            return UserMove("open_court", ball, steps: [.useApp(RallyKeys.court, seconds: 10, label: ball)])
        case .pressShield:
            return UserMove("press_shield", ball, steps: [.pressShield(.primaryButtonPressed, label: ball)])
        }
    }

    public func check(_ history: [HistoryEvent]) -> CheckReport { RallyChecker.check(history) }
}
