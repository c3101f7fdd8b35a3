import HarnessKit

/// FocusPledge's scenario sections: `workload` (what the user does) and `server` (the settlement
/// server stand-in). Schema: the pack README, "Scenario keys".
public struct FocusPledgeConfiguration: Sendable, Equatable {
    public var workload: Workload
    /// The seed's "no heartbeat" job: an unsettled session whose last check is older than this
    /// (device time) is resolved FAILURE / no_heartbeat.
    public var staleAfterMinutes: Int

    public init(workload: Workload, staleAfterMinutes: Int = 15) {
        self.workload = workload
        self.staleAfterMinutes = staleAfterMinutes
    }

    /// What the user does.
    public struct Workload: Sendable, Equatable {
        /// Bundle ids selected in the app picker and shielded during sessions.
        public var blockedApps: [String]
        public var sessionDurationMinutes: ClosedRange<Int>
        public var gapMinutes: ClosedRange<Int>
        /// Chance that a session has any violations at all.
        public var violationProbability: Double
        public var violationKinds: [ViolationKind]
        /// A violating session has 1...maxViolationsPerSession violations.
        public var maxViolationsPerSession: Int
        /// Chance that the user stops a session by hand (`stopNativeSession`) before it ends.
        public var stopSessionProbability: Double
        /// How the user comes and goes from the host app (iOS suspends it in the background).
        public var host: Host

        public init(
            blockedApps: [String], sessionDurationMinutes: ClosedRange<Int> = 20...60, gapMinutes: ClosedRange<Int> = 2...15,
            violationProbability: Double = 0.5, violationKinds: [ViolationKind] = ViolationKind.allCases,
            maxViolationsPerSession: Int = 1, stopSessionProbability: Double = 0, host: Host = Host()
        ) {
            self.blockedApps = blockedApps
            self.sessionDurationMinutes = sessionDurationMinutes
            self.gapMinutes = gapMinutes
            self.violationProbability = violationProbability
            self.violationKinds = violationKinds
            self.maxViolationsPerSession = maxViolationsPerSession
            self.stopSessionProbability = stopSessionProbability
            self.host = host
        }
    }

    /// `workload.host`: the user opens the host to start or stop a session, leaves it (home
    /// screen) now and then and whenever they open a blocked app, and comes back `awayMinutes` later.
    public struct Host: Sendable, Equatable {
        /// Chance per session that the user leaves the host once mid-session.
        public var leaveProbability: Double
        /// How long the user stays away before opening the host again (also after a violation).
        public var awayMinutes: ClosedRange<Int>
        /// Chance per session that the user force-quits the host mid-session (seed: "Force-quit app
        /// during session").
        public var forceQuitProbability: Double

        public init(leaveProbability: Double = 0.5, awayMinutes: ClosedRange<Int> = 1...10, forceQuitProbability: Double = 0) {
            self.leaveProbability = leaveProbability
            self.awayMinutes = awayMinutes
            self.forceQuitProbability = forceQuitProbability
        }
    }

    // Bounds.
    public static let maximumBlockedApps = 50
    public static let maximumMinutes = 7 * 24 * 60
    public static let maximumViolationsPerSession = 100

    static func read(_ sections: ScenarioSections) throws(ScenarioError) -> FocusPledgeConfiguration {
        var configuration = FocusPledgeConfiguration(workload: try workload(try sections.required("workload")))
        if let node = sections["server"] {
            let server = try node.section(allowed: ["staleAfterMinutes"])
            if let value = server["staleAfterMinutes"] {
                configuration.staleAfterMinutes = try value.int(in: 1...maximumMinutes)
            }
        }
        return configuration
    }

    static func workload(_ node: ScenarioValue) throws(ScenarioError) -> Workload {
        let section = try node.section(allowed: ["blockedApps", "sessions", "violations", "stopSessionProbability", "host"])
        let appsNode = try section.required("blockedApps")
        let blockedApps = try appsNode.stringList(nonEmpty: true)
        guard blockedApps.count <= maximumBlockedApps else {
            throw appsNode.error("workload.blockedApps: at most \(maximumBlockedApps) apps")
        }
        var workload = Workload(blockedApps: blockedApps)
        if let node = section["sessions"] {
            let sessions = try node.section(allowed: ["durationMinutes", "gapMinutes"])
            if let value = sessions["durationMinutes"] {
                // Violations keep out of a session's first and last minute, so it needs room between them.
                workload.sessionDurationMinutes = try value.intRange(in: 3...maximumMinutes)
            }
            if let value = sessions["gapMinutes"] {
                workload.gapMinutes = try value.intRange(in: 0...maximumMinutes)
            }
        }
        if let node = section["violations"] {
            let violations = try node.section(allowed: ["probability", "kinds", "maxPerSession"])
            if let value = violations["probability"] { workload.violationProbability = try value.probability() }
            if let value = violations["kinds"] { workload.violationKinds = try value.enumList(what: "violation kind", nonEmpty: true) }
            if let value = violations["maxPerSession"] {
                workload.maxViolationsPerSession = try value.int(in: 1...maximumViolationsPerSession)
            }
        }
        if let value = section["stopSessionProbability"] {
            workload.stopSessionProbability = try value.probability()
        }
        if let node = section["host"] {
            let host = try node.section(allowed: ["leaveProbability", "awayMinutes", "forceQuitProbability"])
            if let value = host["leaveProbability"] { workload.host.leaveProbability = try value.probability() }
            if let value = host["awayMinutes"] { workload.host.awayMinutes = try value.intRange(in: 0...maximumMinutes) }
            if let value = host["forceQuitProbability"] { workload.host.forceQuitProbability = try value.probability() }
        }
        return workload
    }
}

/// How the user breaks a pledge.
public enum ViolationKind: String, Sendable, CaseIterable, Codable {
    /// Opens a blocked app: iOS shows its shield (and asks the shield-configuration extension).
    case openBlockedApp = "open_blocked_app"
    /// Opens a blocked app and taps the shield's primary button: iOS runs the shield-action extension.
    case pressShieldButton = "press_shield_button"
}
