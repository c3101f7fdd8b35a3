import Exit
import HarnessKit

/// The `exit:` scenario section: what the user does (README "Scenario keys").
public struct ExitConfiguration: Sendable, Equatable {
    /// The apps the user picks to monitor (and opens, to be shielded).
    public var monitoredApps: [String]
    /// Device minutes from one episode (open a blocked app … use it unlocked) to the next.
    public var everyMinutes: ClosedRange<Int>
    /// Device seconds the breathing exercise takes.
    public var breathingSeconds: ClosedRange<Int>
    /// The user leaves the exercise unfinished.
    public var abandonProbability: Double
    /// The user force-quits the host in the middle of the exercise (and opens it again).
    public var forceQuitMidBreathingProbability: Double
    /// The user force-quits the host after an episode (it stays dead until the next one).
    public var forceQuitAfterProbability: Double

    public static let maximumApps = 20
    public static let maximumMinutes = 24 * 60

    static func read(_ sections: ScenarioSections) throws(ScenarioError) -> ExitConfiguration {
        let s = try sections.required("exit").section(allowed: [
            "monitoredApps", "everyMinutes", "breathingSeconds", "abandonProbability", "forceQuitMidBreathingProbability",
            "forceQuitAfterProbability",
        ])
        let appsNode = try s.required("monitoredApps")
        let apps = try appsNode.stringList(nonEmpty: true)
        guard apps.count <= maximumApps else { throw appsNode.error("exit.monitoredApps: at most \(maximumApps) apps") }
        return ExitConfiguration(
            monitoredApps: apps,
            // An episode takes up to ~3 device minutes: the next one starts after it.
            everyMinutes: try s["everyMinutes"]?.intRange(in: 4...maximumMinutes) ?? 10...30,
            // The unlocked use must start inside the 60 s after the exercise; the exercise itself is free.
            breathingSeconds: try s["breathingSeconds"]?.intRange(in: 5...600) ?? 30...60,
            abandonProbability: try s["abandonProbability"]?.probability() ?? 0.2,
            forceQuitMidBreathingProbability: try s["forceQuitMidBreathingProbability"]?.probability() ?? 0.2,
            forceQuitAfterProbability: try s["forceQuitAfterProbability"]?.probability() ?? 0.2)
    }
}

/// One thing the user does, flat in `schedule.json`.
public struct ExitAction: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case selectApps, openBlockedApp, pressShield, openHost, breathingDone, breathingAbandoned, leaveHost, forceQuitHost, openUnlockedApp
    }
    public var kind: Kind
    public var episode: Int
    public var app: String?
    public var apps: [String]?

    public init(_ kind: Kind, episode: Int, app: String? = nil, apps: [String]? = nil) {
        self.kind = kind
        self.episode = episode
        self.app = app
        self.apps = apps
    }
}

public struct ExitSummary: Encodable, Sendable, Equatable {
    public var episodes: Int
}

/// The workload: the apps picked once, then episodes — open a monitored app (the shield shows),
/// press "Begin Breathing", open Exit, breathe (or give up; sometimes force-quit on the way), go
/// back to the app inside the unlock window.
enum ExitPlanner {
    /// How long the user means to use an app they open (device seconds).
    static let blockedUseSeconds = 20.0
    static let unlockedUseSeconds = 40.0

    static func plan(_ c: ExitConfiguration, deviceMillis: Int, generator: inout SeededGenerator) -> WorkloadPlan<ExitAction, ExitSummary> {
        var actions: [PlannedAction<ExitAction>] = []
        func at(_ t: Double, _ a: ExitAction) { actions.append(PlannedAction(atDeviceOffsetSeconds: t, action: a)) }
        let end = Double(deviceMillis) / 1000
        at(5, ExitAction(.selectApps, episode: 0, apps: c.monitoredApps))
        at(10, ExitAction(.leaveHost, episode: 0))
        var t = 60.0
        var episode = 0
        while true {
            let app = c.monitoredApps[generator.int(in: 0...(c.monitoredApps.count - 1))]
            let toHost = Double(generator.int(in: 3...30))
            let breathing = Double(generator.int(in: c.breathingSeconds))
            let quitMid = generator.chance(c.forceQuitMidBreathingProbability)
            let abandon = generator.chance(c.abandonProbability)
            let quitAfter = generator.chance(c.forceQuitAfterProbability)
            let gap = Double(generator.int(in: c.everyMinutes)) * 60
            // The whole episode, unlocked use included, inside the workload.
            let length = 4 + toHost + (quitMid ? 15 : 0) + breathing + 5 + unlockedUseSeconds + 5
            guard t + length <= end else { break }
            episode += 1
            var s = t
            at(s, ExitAction(.openBlockedApp, episode: episode, app: app))
            s += 4
            at(s, ExitAction(.pressShield, episode: episode, app: app))
            s += toHost
            at(s, ExitAction(.openHost, episode: episode))
            if quitMid {
                // Force quit with the exercise on screen, then back in.
                at(s + 5, ExitAction(.forceQuitHost, episode: episode))
                at(s + 10, ExitAction(.openHost, episode: episode))
                s += 15
            }
            s += breathing
            at(s, ExitAction(abandon ? .breathingAbandoned : .breathingDone, episode: episode))
            s += 2
            at(s, ExitAction(quitAfter ? .forceQuitHost : .leaveHost, episode: episode))
            if !abandon {
                s += 3
                at(s, ExitAction(.openUnlockedApp, episode: episode, app: app))
            }
            t += max(gap, length + 1)
        }
        return WorkloadPlan(actions: actions, summary: ExitSummary(episodes: episode))
    }
}
