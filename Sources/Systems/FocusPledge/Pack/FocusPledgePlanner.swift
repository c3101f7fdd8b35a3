import HarnessKit

/// Seed 000's user: picks the apps, then runs pledge sessions one after the other, breaking some
/// (open a blocked app, press the shield's button) and stopping some by hand. Deterministic: the
/// same workload and generator state give the same plan (`schedule.json` byte for byte).
public enum FocusPledgePlanner {
    /// Upper bound on sessions per plan (TigerBeetle style: nothing unbounded).
    public static let maximumSessions = 10_000
    /// Violations and hand stops keep out of a session's first and last minute, so that they are
    /// unambiguously inside it whatever the emulated OS's callback latency.
    public static let sessionEdgeMillis = 60_000
    /// How long the user looks at a shield before pressing its button (inside the session's edge).
    public static let shieldReadingMillis = 3_000
    /// The user opens the host this long after the last pledge's planned end.
    public static let finalReturnMillis = 60_000

    // Device offsets are planned in whole milliseconds and only turned into seconds at the end, so
    // the comparisons that define "inside a session" are exact.
    static func planWorkload(
        _ workload: FocusPledgeConfiguration.Workload, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator
    ) -> WorkloadPlan<UserAction, PlanSummary> {
        var actions = [PlannedAction(atDeviceOffsetSeconds: 0, action: UserAction.selectApps(apps: workload.blockedApps))]
        var sessions: [PlannedSession] = []
        let edge = sessionEdgeMillis
        // The first session starts one gap after the apps are selected.
        var cursorMillis = generator.int(in: workload.gapMinutes) * 60_000
        while sessions.count < maximumSessions {
            let durationMinutes = generator.int(in: workload.sessionDurationMinutes)
            let startMillis = cursorMillis
            let endMillis = startMillis + durationMinutes * 60_000
            guard endMillis <= deviceMillis else { break }
            let sessionId = "s-\(seed)-\(sessions.count + 1)"

            // Strictly inside (start + edge, end - edge); durationMinutes >= 3 keeps this non-empty.
            let inside = (startMillis + edge + 1)...(endMillis - edge - 1)
            var violations: [(atMillis: Int, action: UserAction)] = []
            if !workload.violationKinds.isEmpty && generator.chance(workload.violationProbability) {
                let count = generator.int(in: 1...max(1, workload.maxViolationsPerSession))
                for _ in 0..<count {
                    let atMillis = generator.int(in: inside)
                    let kind = workload.violationKinds[generator.int(in: 0...(workload.violationKinds.count - 1))]
                    let app = workload.blockedApps[generator.int(in: 0...(workload.blockedApps.count - 1))]
                    // Pressing a button means opening the app first and reading its shield.
                    violations.append((atMillis, .openBlockedApp(app: app, sessionId: sessionId)))
                    if kind == .pressShieldButton {
                        violations.append((atMillis + shieldReadingMillis, .pressShieldButton(app: app, sessionId: sessionId)))
                    }
                }
            }
            var stopMillis: Int?
            if generator.chance(workload.stopSessionProbability) {
                stopMillis = generator.int(in: inside)
            }
            // Stable: equal offsets keep their drawn order.
            violations = violations.enumerated()
                .sorted { ($0.element.atMillis, $0.offset) < ($1.element.atMillis, $1.offset) }
                .map(\.element)
            if let stopMillis {
                // A "violation" after the user ended the session is just using their phone.
                violations.removeAll { $0.atMillis >= stopMillis }
            }

            // The user's comings and goings: away from the host after each violation (opening a
            // blocked app leaves it), once mid-session by chance, and after a force quit by chance.
            let host = workload.host
            var hostActions: [(atMillis: Int, action: UserAction)] = []
            for violation in violations {
                let away = generator.int(in: host.awayMinutes) * 60_000
                hostActions.append((violation.atMillis + away, .openHost(sessionId: sessionId)))
            }
            if generator.chance(host.leaveProbability) {
                let at = generator.int(in: inside)
                let away = generator.int(in: host.awayMinutes) * 60_000
                hostActions += [(at, .leaveHost(sessionId: sessionId)), (at + away, .openHost(sessionId: sessionId))]
            }
            if generator.chance(host.forceQuitProbability) {
                let at = generator.int(in: inside)
                let away = generator.int(in: host.awayMinutes) * 60_000
                hostActions += [(at, .forceQuitHost(sessionId: sessionId)), (at + away, .openHost(sessionId: sessionId))]
            }

            actions.append(PlannedAction(
                atDeviceOffsetSeconds: seconds(startMillis),
                action: .startSession(sessionId: sessionId, durationMinutes: durationMinutes)
            ))
            for violation in violations {
                actions.append(PlannedAction(atDeviceOffsetSeconds: seconds(violation.atMillis), action: violation.action))
            }
            if let stopMillis {
                actions.append(PlannedAction(atDeviceOffsetSeconds: seconds(stopMillis), action: .stopSession(sessionId: sessionId)))
            }
            for h in hostActions where h.atMillis <= deviceMillis {
                actions.append(PlannedAction(atDeviceOffsetSeconds: seconds(h.atMillis), action: h.action))
            }
            sessions.append(PlannedSession(
                sessionId: sessionId, startDeviceOffsetSeconds: seconds(startMillis), durationMinutes: durationMinutes,
                stopDeviceOffsetSeconds: stopMillis.map(seconds), violationCount: violations.filter { $0.action.isViolation }.count
            ))
            // The next session starts a gap after this one's planned end, even if it was stopped early:
            // sessions never overlap, whatever the emulated OS makes of a late intervalDidEnd.
            cursorMillis = endMillis + generator.int(in: workload.gapMinutes) * 60_000
        }
        // The user ends up in the host once the last pledge is over (so that it can settle it, and
        // notice what the server settled), as they do before each start.
        if let last = sessions.last {
            let endMillis = Int(last.endDeviceOffsetSeconds * 1000)
            actions.append(PlannedAction(
                atDeviceOffsetSeconds: seconds(min(deviceMillis, endMillis + finalReturnMillis)), action: .openHost(sessionId: nil)))
        }
        // Host comings and goings can fall after a later action: sort, stably (equal times keep
        // their planned order).
        actions = actions.enumerated()
            .sorted { ($0.element.atDeviceOffsetSeconds, $0.offset) < ($1.element.atDeviceOffsetSeconds, $1.offset) }
            .map(\.element)
        return WorkloadPlan(actions: actions, summary: PlanSummary(sessions: sessions))
    }

    static func seconds(_ millis: Int) -> Double {
        Double(millis) / 1000
    }
}

/// What `schedule.json` says beyond the actions: the planned sessions.
public struct PlanSummary: Sendable, Equatable, Codable {
    public var sessions: [PlannedSession]
}

/// A session as planned, so checkers and reports can say what each session should have ended as
/// without re-deriving it from the action list.
public struct PlannedSession: Sendable, Equatable, Codable {
    public var sessionId: String
    public var startDeviceOffsetSeconds: Double
    public var durationMinutes: Int
    /// Offset of the user's `stopSession`, if they stop it by hand before the end.
    public var stopDeviceOffsetSeconds: Double?
    /// Violations (openings of a blocked app) planned inside the session (before any hand stop).
    public var violationCount: Int

    public init(
        sessionId: String, startDeviceOffsetSeconds: Double, durationMinutes: Int,
        stopDeviceOffsetSeconds: Double?, violationCount: Int
    ) {
        self.sessionId = sessionId
        self.startDeviceOffsetSeconds = startDeviceOffsetSeconds
        self.durationMinutes = durationMinutes
        self.stopDeviceOffsetSeconds = stopDeviceOffsetSeconds
        self.violationCount = violationCount
    }

    /// Where the session's interval ends if nobody stops it.
    public var endDeviceOffsetSeconds: Double { startDeviceOffsetSeconds + Double(durationMinutes * 60) }
}

/// The user's side of seed 000's MethodChannel API, plus the two ways of breaking a pledge.
public enum UserAction: Sendable, Equatable, Codable {
    /// `presentAppPicker`: the selection the host saves to the App Group.
    case selectApps(apps: [String])
    /// `startNativeSession(sessionId:durationMinutes:)`.
    case startSession(sessionId: String, durationMinutes: Int)
    /// The user opens a shielded app during the session (DeviceActivity threshold).
    case openBlockedApp(app: String, sessionId: String)
    /// The user taps the primary button of the shield on screen (ShieldAction extension); the
    /// planner puts an `openBlockedApp` of the same app just before it.
    case pressShieldButton(app: String, sessionId: String)
    /// `stopNativeSession(sessionId:)` by hand, before the session's end.
    case stopSession(sessionId: String)
    /// The user opens the host app (launched, or resumed and foregrounded); `sessionId` labels it.
    case openHost(sessionId: String?)
    /// The user goes to the home screen: iOS suspends the host after its grace period.
    case leaveHost(sessionId: String?)
    /// The user swipes the host away (seed: "Force-quit app during session").
    case forceQuitHost(sessionId: String?)

    /// The session this action belongs to (nil for `selectApps`).
    public var sessionId: String? {
        switch self {
        case .selectApps: nil
        case .startSession(let id, _), .openBlockedApp(_, let id), .pressShieldButton(_, let id), .stopSession(let id): id
        case .openHost(let id), .leaveHost(let id), .forceQuitHost(let id): id
        }
    }

    /// One violation is one opening of a blocked app (a shield-button press follows its opening).
    public var isViolation: Bool {
        if case .openBlockedApp = self { return true }
        return false
    }

    // A flat `{"kind": ..., fields}` object: readable in schedule.json and easy for other tools,
    // unlike the synthesized `{"startSession": {"sessionId": ...}}` nesting.
    private enum CodingKeys: String, CodingKey {
        case kind, apps, sessionId, durationMinutes, app
    }

    private enum Kind: String, Codable {
        case selectApps, startSession, openBlockedApp, pressShieldButton, stopSession, openHost, leaveHost, forceQuitHost
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .selectApps:
            self = .selectApps(apps: try container.decode([String].self, forKey: .apps))
        case .startSession:
            self = .startSession(
                sessionId: try container.decode(String.self, forKey: .sessionId),
                durationMinutes: try container.decode(Int.self, forKey: .durationMinutes)
            )
        case .openBlockedApp:
            self = .openBlockedApp(
                app: try container.decode(String.self, forKey: .app),
                sessionId: try container.decode(String.self, forKey: .sessionId)
            )
        case .pressShieldButton:
            self = .pressShieldButton(
                app: try container.decode(String.self, forKey: .app),
                sessionId: try container.decode(String.self, forKey: .sessionId)
            )
        case .stopSession:
            self = .stopSession(sessionId: try container.decode(String.self, forKey: .sessionId))
        case .openHost: self = .openHost(sessionId: try container.decodeIfPresent(String.self, forKey: .sessionId))
        case .leaveHost: self = .leaveHost(sessionId: try container.decodeIfPresent(String.self, forKey: .sessionId))
        case .forceQuitHost: self = .forceQuitHost(sessionId: try container.decodeIfPresent(String.self, forKey: .sessionId))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .selectApps(let apps):
            try container.encode(Kind.selectApps, forKey: .kind)
            try container.encode(apps, forKey: .apps)
        case .startSession(let sessionId, let durationMinutes):
            try container.encode(Kind.startSession, forKey: .kind)
            try container.encode(sessionId, forKey: .sessionId)
            try container.encode(durationMinutes, forKey: .durationMinutes)
        case .openBlockedApp(let app, let sessionId):
            try container.encode(Kind.openBlockedApp, forKey: .kind)
            try container.encode(app, forKey: .app)
            try container.encode(sessionId, forKey: .sessionId)
        case .pressShieldButton(let app, let sessionId):
            try container.encode(Kind.pressShieldButton, forKey: .kind)
            try container.encode(app, forKey: .app)
            try container.encode(sessionId, forKey: .sessionId)
        case .stopSession(let sessionId):
            try container.encode(Kind.stopSession, forKey: .kind)
            try container.encode(sessionId, forKey: .sessionId)
        case .openHost(let sessionId):
            try container.encode(Kind.openHost, forKey: .kind)
            try container.encodeIfPresent(sessionId, forKey: .sessionId)
        case .leaveHost(let sessionId):
            try container.encode(Kind.leaveHost, forKey: .kind)
            try container.encodeIfPresent(sessionId, forKey: .sessionId)
        case .forceQuitHost(let sessionId):
            try container.encode(Kind.forceQuitHost, forKey: .kind)
            try container.encodeIfPresent(sessionId, forKey: .sessionId)
        }
    }
}
