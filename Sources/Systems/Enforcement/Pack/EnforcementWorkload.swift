import Enforcement
import HarnessKit

/// The `enforcement:` scenario section: what the user does (README "Scenario keys").
public struct EnforcementConfiguration: Sendable, Equatable {
    /// The apps the picker offers; the user picks `pick` of them (seed 001: "Select 1–2 apps").
    public var apps: [String]
    public var pick: ClosedRange<Int>
    /// Hours the first mode's schedule lasts, from "right now".
    public var modeHours: ClosedRange<Int>
    /// A second mode, of higher precedence and blocking one of the picked apps, starts later the
    /// same day for a while (precedence and mode boundaries while grants run).
    public var secondModeProbability: Double
    /// The lengths a grant is created with (minutes; the spec's checklist: 5).
    public var grantMinutes: [Int]
    /// Device minutes from one episode to the next (the host in the background meanwhile).
    public var everyMinutes: ClosedRange<Int>
    /// Seconds the user keeps using the granted app past the grant's end ("ideally while still in foreground").
    public var overrunSeconds: ClosedRange<Int>
    /// After an episode the user opens another blocked app (its shield shows: "next shield event").
    public var openBlockedProbability: Double
    /// After an episode the user opens the host (the "app foreground" fallback).
    public var hostVisitProbability: Double
    /// After an episode the user force-quits the host.
    public var forceQuitProbability: Double
    /// The spec's 7-step manual checklist, exactly, instead of episodes.
    public var checklist: Bool
    /// The user's overrides of modes (README A7); nil (the key absent): none, and nothing is drawn
    /// for them — the scenarios without the key plan exactly as they did before overrides existed.
    public var overrides: OverrideConfiguration? = nil

    /// `enforcement.overrides`: some episodes set an override instead of creating a grant.
    public struct OverrideConfiguration: Sendable, Equatable {
        /// The chance an episode is an override (instead of a grant).
        public var probability: Double
        /// The lengths an override is set for (minutes).
        public var minutes: [Int]
        /// The chance the override turns its mode off (else on).
        public var offProbability: Double
        /// Seconds after the override's end (the host in the background all along) the user opens
        /// one of the mode's apps — and presses Close if its shield shows.
        public var openAfterSeconds: ClosedRange<Int>
    }

    public static let maximumApps = 6

    static func read(_ sections: ScenarioSections) throws(ScenarioError) -> EnforcementConfiguration {
        let s = try sections.required("enforcement").section(allowed: [
            "apps", "pick", "modeHours", "secondModeProbability", "grantMinutes", "everyMinutes", "overrunSeconds", "openBlockedProbability",
            "hostVisitProbability", "forceQuitProbability", "checklist", "overrides",
        ])
        let appsNode = try s.required("apps")
        let apps = try appsNode.stringList(nonEmpty: true)
        guard apps.count <= maximumApps else { throw appsNode.error("enforcement.apps: at most \(maximumApps) apps") }
        let pick = try s["pick"]?.intRange(in: 1...maximumApps) ?? 1...2
        if let n = s["pick"], pick.upperBound > apps.count { throw n.error("enforcement.pick: at most \(apps.count), the number of apps") }
        var minutes: [Int] = []
        if let node = s["grantMinutes"] {
            for v in try node.list(expected: "a list of minutes") { minutes.append(try v.int(in: 1...240)) }
            if minutes.isEmpty { throw node.error("enforcement.grantMinutes: at least one length") }
        }
        return EnforcementConfiguration(
            apps: apps, pick: pick, modeHours: try s["modeHours"]?.intRange(in: 1...24) ?? 2...6,
            secondModeProbability: try s["secondModeProbability"]?.probability() ?? 0.5,
            grantMinutes: minutes.isEmpty ? [5, 10, 15, 30] : minutes,
            // An episode lasts the grant plus the overrun: the next one starts after it.
            everyMinutes: try s["everyMinutes"]?.intRange(in: 1...24 * 60) ?? 10...40,
            overrunSeconds: try s["overrunSeconds"]?.intRange(in: 0...3600) ?? 30...300,
            openBlockedProbability: try s["openBlockedProbability"]?.probability() ?? 0.3,
            hostVisitProbability: try s["hostVisitProbability"]?.probability() ?? 0.3,
            forceQuitProbability: try s["forceQuitProbability"]?.probability() ?? 0.2,
            checklist: try s["checklist"]?.bool() ?? false, overrides: try s["overrides"].map(readOverrides))
    }

    static func readOverrides(_ node: ScenarioValue) throws(ScenarioError) -> OverrideConfiguration {
        let s = try node.section(allowed: ["probability", "minutes", "offProbability", "openAfterSeconds"])
        var minutes: [Int] = []
        if let node = s["minutes"] {
            for v in try node.list(expected: "a list of minutes") { minutes.append(try v.int(in: 1...240)) }
            if minutes.isEmpty { throw node.error("enforcement.overrides.minutes: at least one length") }
        }
        return OverrideConfiguration(
            probability: try s["probability"]?.probability() ?? 0.5, minutes: minutes.isEmpty ? [10, 20, 30, 45] : minutes,
            offProbability: try s["offProbability"]?.probability() ?? 0.5,
            openAfterSeconds: try s["openAfterSeconds"]?.intRange(in: 0...3600) ?? 90...600)
    }
}

/// One thing the user does, flat in `schedule.json`.
public struct EnforcementAction: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case selectApps, enableMode, createGrant, setOverride, openHost, leaveHost, forceQuitHost, openApp, pressClose
    }
    public var kind: Kind
    public var step: String
    public var app: String?
    public var apps: [String]?
    public var minutes: Int?
    public var seconds: Double?
    /// enableMode: id, name, precedence, minutes from now to its start, length in minutes.
    public var mode: String?
    public var precedence: Int?
    public var startsInMinutes: Int?
    /// setOverride: the mode turned on (true) or off (false) for `minutes`.
    public var on: Bool?

    public init(
        _ kind: Kind, step: String, app: String? = nil, apps: [String]? = nil, minutes: Int? = nil, seconds: Double? = nil, mode: String? = nil,
        precedence: Int? = nil, startsInMinutes: Int? = nil, on: Bool? = nil
    ) {
        self.kind = kind
        self.step = step
        self.app = app
        self.apps = apps
        self.minutes = minutes
        self.seconds = seconds
        self.mode = mode
        self.precedence = precedence
        self.startsInMinutes = startsInMinutes
        self.on = on
    }
}

public struct EnforcementSummary: Encodable, Sendable, Equatable {
    public var episodes: Int
    public var grants: Int
    /// nil when the scenario has no `overrides` (its summary as before).
    public var overrides: Int? = nil
}

/// The workload: pick apps, enable a mode "for right now" (and maybe a second one later), then
/// episodes — open the host, create a grant, open the granted app and keep using it past the
/// grant's end, then sometimes open another blocked app, visit the host or force-quit it — with
/// the host in the background for long stretches in between.
enum EnforcementPlanner {
    static func plan(_ c: EnforcementConfiguration, deviceMillis: Int, generator: inout SeededGenerator)
        -> WorkloadPlan<EnforcementAction, EnforcementSummary>
    {
        if c.checklist { return checklist(c) }
        var actions: [PlannedAction<EnforcementAction>] = []
        func at(_ t: Double, _ a: EnforcementAction) { actions.append(PlannedAction(atDeviceOffsetSeconds: t, action: a)) }
        // An episode's end, grant or override alike: the user may look into the host, then may force-quit it.
        func visitThenQuit(from start: Double, step: String, visit: Bool, quit: Bool) {
            var s = start
            if visit {
                at(s, EnforcementAction(.openHost, step: step))
                at(s + 10, EnforcementAction(.leaveHost, step: step))
                s += 15
            }
            if quit { at(s, EnforcementAction(.forceQuitHost, step: step)) }
        }
        let end = Double(deviceMillis) / 1000
        var pool = c.apps
        var picked: [String] = []
        for _ in 0..<generator.int(in: c.pick) {
            picked.append(pool.remove(at: generator.int(in: 0...(pool.count - 1))))
        }
        picked.sort()
        at(5, EnforcementAction(.selectApps, step: "select", apps: picked))
        let hours = generator.int(in: c.modeHours)
        at(15, EnforcementAction(.enableMode, step: "mode", apps: picked, minutes: hours * 60, mode: "focus", precedence: 1, startsInMinutes: 0))
        // The modes the user may override, with their apps.
        var modes: [(id: String, apps: [String])] = [("focus", picked)]
        if generator.chance(c.secondModeProbability) {
            let first = picked[generator.int(in: 0...(picked.count - 1))]
            modes.append(("deep", [first]))
            at(20, EnforcementAction(.enableMode, step: "mode", apps: [first], minutes: generator.int(in: 30...90), mode: "deep", precedence: 2,
                startsInMinutes: generator.int(in: 30...120)))
        }
        at(25, EnforcementAction(.leaveHost, step: "mode"))
        var t = 60.0
        var episode = 0
        var grants = 0
        var overrides = 0
        while true {
            let app = picked[generator.int(in: 0...(picked.count - 1))]
            let minutes = c.grantMinutes[generator.int(in: 0...(c.grantMinutes.count - 1))]
            let overrun = Double(generator.int(in: c.overrunSeconds))
            let other = picked.count > 1 && generator.chance(c.openBlockedProbability)
            let visit = generator.chance(c.hostVisitProbability)
            let quit = generator.chance(c.forceQuitProbability)
            let gap = Double(generator.int(in: c.everyMinutes)) * 60
            // Drawn only when the scenario has overrides (the others draw exactly what they did).
            if let o = c.overrides, generator.chance(o.probability) {
                let mode = modes[generator.int(in: 0...(modes.count - 1))]
                let on = !generator.chance(o.offProbability)
                let length = o.minutes[generator.int(in: 0...(o.minutes.count - 1))]
                let after = Double(generator.int(in: o.openAfterSeconds))
                let target = mode.apps[generator.int(in: 0...(mode.apps.count - 1))]
                let overrideEnd = 5 + Double(length * 60)
                let span = overrideEnd + after + 30
                guard t + span <= end else { break }
                episode += 1
                overrides += 1
                let step = "episode \(episode)"
                at(t, EnforcementAction(.openHost, step: step))
                at(t + 5, EnforcementAction(.setOverride, step: step, minutes: length, mode: mode.id, on: on))
                at(t + 10, EnforcementAction(.leaveHost, step: step))
                // The override applied: the mode's app shows its shield (on) or opens (off).
                at(t + 20, EnforcementAction(.openApp, step: step, app: target, seconds: 20))
                at(t + 25, EnforcementAction(.pressClose, step: step, app: target))
                // The override ends with the host in the background; the user comes back later.
                var s = t + overrideEnd + after
                at(s, EnforcementAction(.openApp, step: step, app: target, seconds: 20))
                at(s + 5, EnforcementAction(.pressClose, step: step, app: target))
                s += 15
                visitThenQuit(from: s, step: step, visit: visit, quit: quit)
                t += max(gap, span + 30)
                continue
            }
            let use = Double(minutes * 60) - 10 + overrun
            let length = 20 + use + 60
            guard t + length <= end else { break }
            episode += 1
            grants += 1
            let step = "episode \(episode)"
            at(t, EnforcementAction(.openHost, step: step))
            at(t + 5, EnforcementAction(.createGrant, step: step, app: app, minutes: minutes))
            at(t + 10, EnforcementAction(.leaveHost, step: step))
            at(t + 20, EnforcementAction(.openApp, step: step, app: app, seconds: use))
            var s = t + 20 + use + 10
            if other, let o = picked.first(where: { $0 != app }) {
                at(s, EnforcementAction(.openApp, step: step, app: o, seconds: 20))
                at(s + 5, EnforcementAction(.pressClose, step: step, app: o))
                s += 15
            }
            visitThenQuit(from: s, step: step, visit: visit, quit: quit)
            t += max(gap, length + 30)
        }
        return WorkloadPlan(
            actions: actions, summary: EnforcementSummary(episodes: episode, grants: grants, overrides: c.overrides == nil ? nil : overrides))
    }

    /// "Manual test checklist (iOS enforcement)", step by step (the step names the line).
    static func checklist(_ c: EnforcementConfiguration) -> WorkloadPlan<EnforcementAction, EnforcementSummary> {
        let picked = Array(c.apps.prefix(2))
        let x = picked[0]
        let steps: [(Double, EnforcementAction)] = [
            (5, EnforcementAction(.selectApps, step: "1 select 1-2 apps in picker", apps: picked)),
            (15, EnforcementAction(.enableMode, step: "2 enable a mode schedule for right now", apps: picked, minutes: 120, mode: "focus",
                precedence: 1, startsInMinutes: 0)),
            (25, EnforcementAction(.leaveHost, step: "2 enable a mode schedule for right now")),
            (30, EnforcementAction(.openApp, step: "3 open a blocked app, shield appears", app: x, seconds: 20)),
            (35, EnforcementAction(.pressClose, step: "3 open a blocked app, shield appears", app: x)),
            (60, EnforcementAction(.openHost, step: "4 open Earned Access, create 5-minute unlock grant")),
            (65, EnforcementAction(.createGrant, step: "4 open Earned Access, create 5-minute unlock grant", app: x, minutes: 5)),
            (70, EnforcementAction(.leaveHost, step: "4 open Earned Access, create 5-minute unlock grant")),
            // Used from t=80 for 8 minutes: the grant ends at t=365, with the app in the foreground.
            (80, EnforcementAction(.openApp, step: "5 open blocked app, should open; 6 wait until grant expires, re-shield", app: x, seconds: 480)),
            (600, EnforcementAction(.openApp, step: "7 after expiration the shield shows again", app: x, seconds: 20)),
            (605, EnforcementAction(.pressClose, step: "7 after expiration the shield shows again", app: x)),
        ]
        return WorkloadPlan(
            actions: steps.map { PlannedAction(atDeviceOffsetSeconds: $0.0, action: $0.1) }, summary: EnforcementSummary(episodes: 1, grants: 1))
    }
}
