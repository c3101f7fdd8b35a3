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

        public init(
            blockedApps: [String], sessionDurationMinutes: ClosedRange<Int> = 20...60, gapMinutes: ClosedRange<Int> = 2...15,
            violationProbability: Double = 0.5, violationKinds: [ViolationKind] = ViolationKind.allCases,
            maxViolationsPerSession: Int = 1, stopSessionProbability: Double = 0
        ) {
            self.blockedApps = blockedApps
            self.sessionDurationMinutes = sessionDurationMinutes
            self.gapMinutes = gapMinutes
            self.violationProbability = violationProbability
            self.violationKinds = violationKinds
            self.maxViolationsPerSession = maxViolationsPerSession
            self.stopSessionProbability = stopSessionProbability
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
        let section = try node.section(allowed: ["blockedApps", "sessions", "violations", "stopSessionProbability"])
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
        return workload
    }
}

/// How the user breaks a pledge.
public enum ViolationKind: String, Sendable, CaseIterable, Codable {
    /// Opens a blocked app: DeviceActivity reports the threshold to the monitor extension.
    case openBlockedApp = "open_blocked_app"
    /// Taps a button on the shield: ManagedSettings hands the action to the shield-action extension.
    case pressShieldButton = "press_shield_button"
}
