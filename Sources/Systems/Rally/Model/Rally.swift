import PropertyList
import SystemKit

// Rally: the example pack (docs/ADDING-A-SYSTEM.md walks through it). Its "seed" is the
// spec in this folder's README, three lines long:
//
//   R1. Serving ball N, the player stores `ball = N` in the App Group and shields the court app.
//   R2. Pressing the shield's button, the returner stores `returned = N`, posts
//       `rally.returned` and closes the court app.
//   R3. The player, told of a return, wins the rally: it lifts the shield and clears the ball.
//
// As-written looks for a return only when told (R3); hardened also looks at every launch — the
// fix for the one finding the harness makes of the spec (a player killed before the post never
// wins that rally).

/// The pack's variants: `as-written` (the spec literally) comes first.
public enum RallyVariant: String, CaseIterable, Sendable {
    case asWritten = "as-written"
    case hardened
}

/// The spec's names.
public enum RallyKeys {
    public static let appGroup = "group.example.rally"
    public static let ball = "ball"
    public static let returned = "returned"
    /// The Darwin notification the returner posts (R2).
    public static let returnedNotification = "rally.returned"
    /// The app the player shields while a ball is in play.
    public static let court = "com.example.court"
    /// The user's tap that serves (an inbox action).
    public static let serveAction = "serve"
}

/// The player (the host app), a pure state machine: events in, effects out.
public struct Player: Sendable {
    public typealias Snapshot = [String: PropertyListValue]

    public enum Event: Sendable, Equatable {
        /// The process started; `store` is the App Group as it finds it.
        case launched(store: Snapshot)
        /// The user tapped "serve" for ball `ball` (R1).
        case serve(ball: Int)
        /// `rally.returned` was posted (R3).
        case returnNotified(store: Snapshot)
    }

    public let variant: RallyVariant

    public init(variant: RallyVariant) { self.variant = variant }

    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .serve(let ball):
            // R1: the ball first, then the shield; `served` for the history.
            return [
                .setDefaults([.set(RallyKeys.ball, .integer(Int64(ball)))], atomic: true),
                .applyShields([RallyKeys.court]),
                .trace("served", ["ball": String(ball)]),
            ]
        case .returnNotified(let store):
            return win(store)
        case .launched(let store):
            // As-written: R3 says the player acts when told, and nothing else.
            return variant == .hardened ? win(store) : []
        }
    }

    /// R3: a ball that came back is won — traced first (the outcome the checker reads), then the
    /// shield lifted and the ball cleared in one write. Killed in between, a relaunch (hardened)
    /// wins it again: a repeat, never a loss.
    func win(_ store: Snapshot) -> [Effect] {
        guard case .integer(let ball)? = store[RallyKeys.ball], case .integer(let returned)? = store[RallyKeys.returned],
            returned == ball
        else { return [] }
        return [
            .trace("rally_won", ["ball": String(ball)]),
            .removeShields,
            .setDefaults([.remove(RallyKeys.ball), .remove(RallyKeys.returned)], atomic: true),
        ]
    }
}

/// The returner (the shield-action extension), one call per process: R2.
public struct Returner: Sendable {
    public init() {}

    public func handle(action: ShieldAction, store: [String: PropertyListValue]) -> [Effect] {
        guard case .integer(let ball)? = store[RallyKeys.ball] else {
            return [.trace("no_ball_in_play", [:]), .respond(.close)]
        }
        return [
            .setDefaults([.set(RallyKeys.returned, .integer(ball))], atomic: true),
            .trace("returned", ["ball": String(ball)]),
            .postNotification(RallyKeys.returnedNotification),
            .respond(.close),
        ]
    }
}
