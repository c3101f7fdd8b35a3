import Foundation

/// Everything a run will do, decided up front from the scenario and a seed: the user's actions in
/// device time and the nemesis's faults in wall time. Pure and deterministic — the same scenario and
/// seed give a byte-identical `schedule.json` — so a failing run is reproduced from its seed alone.
public struct ScenarioPlan: Sendable, Equatable, Codable {
    public var scenarioName: String
    public var seed: UInt64
    /// Device time the user's actions cover (the scenario's `duration`, or the override).
    public var deviceDurationSeconds: Int
    /// Wall time the faults cover, as given by the runner.
    public var wallSpanMillis: Int
    public var sessions: [PlannedSession]
    /// Sorted by `atDeviceOffsetSeconds`; ties keep their planned order (selectApps first).
    public var userActions: [PlannedUserAction]
    /// Sorted by `atWallOffsetMillis`; every fault starts and ends inside `0...wallSpanMillis`, and
    /// faults on one target never overlap (a target is never signalled while stopped or down).
    public var faults: [PlannedFault]

    public init(
        scenarioName: String, seed: UInt64, deviceDurationSeconds: Int, wallSpanMillis: Int,
        sessions: [PlannedSession], userActions: [PlannedUserAction], faults: [PlannedFault]
    ) {
        self.scenarioName = scenarioName
        self.seed = seed
        self.deviceDurationSeconds = deviceDurationSeconds
        self.wallSpanMillis = wallSpanMillis
        self.sessions = sessions
        self.userActions = userActions
        self.faults = faults
    }

    /// Upper bounds on what one plan may hold (TigerBeetle style: nothing unbounded).
    public static let maximumSessions = 10_000
    public static let maximumFaults = 100_000
    /// Draws the nemesis may make, including those skipped because the target was busy.
    public static let maximumFaultDraws = 1_000_000
    /// Violations and hand stops keep out of a session's first and last minute, so that they are
    /// unambiguously inside it whatever the emulated OS's callback latency.
    public static let sessionEdgeMillis = 60_000

    /// Streams of `SeededGenerator`: the workload and the nemesis draw independently.
    static let workloadStream: UInt64 = 1
    static let nemesisStream: UInt64 = 2

    /// Plans a run of `scenario`. `durationOverride` replaces the scenario's device duration
    /// (`harness run --duration`); `wallSpanMillis` is the wall time the runner will give the faults.
    public static func make(
        scenario: Scenario, seed: UInt64, durationOverride: Duration? = nil, wallSpanMillis: Int
    ) -> ScenarioPlan {
        let deviceSeconds: Int
        if let durationOverride {
            let seconds = durationOverride.components.seconds
            deviceSeconds = Int(max(0, min(seconds, Int64(ScenarioDuration.maximumSeconds))))
        } else {
            deviceSeconds = scenario.durationSeconds
        }
        var workloadGenerator = SeededGenerator(seed: seed, stream: workloadStream)
        let (sessions, userActions) = planWorkload(
            scenario.workload, seed: seed, deviceMillis: deviceSeconds * 1000, generator: &workloadGenerator
        )
        var nemesisGenerator = SeededGenerator(seed: seed, stream: nemesisStream)
        let faults = planFaults(scenario.nemesis, wallSpanMillis: max(0, wallSpanMillis), generator: &nemesisGenerator)
        return ScenarioPlan(
            scenarioName: scenario.name, seed: seed, deviceDurationSeconds: deviceSeconds,
            wallSpanMillis: max(0, wallSpanMillis), sessions: sessions, userActions: userActions, faults: faults
        )
    }

    // Device offsets are planned in whole milliseconds and only turned into seconds at the end, so
    // the comparisons that define "inside a session" are exact.
    static func planWorkload(
        _ workload: Scenario.Workload, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator
    ) -> ([PlannedSession], [PlannedUserAction]) {
        var actions = [PlannedUserAction(atDeviceOffsetSeconds: 0, action: .selectApps(apps: workload.blockedApps))]
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
                    switch kind {
                    case .openBlockedApp: violations.append((atMillis, .openBlockedApp(app: app, sessionId: sessionId)))
                    case .pressShieldButton: violations.append((atMillis, .pressShieldButton(app: app, sessionId: sessionId)))
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

            actions.append(PlannedUserAction(
                atDeviceOffsetSeconds: seconds(startMillis),
                action: .startSession(sessionId: sessionId, durationMinutes: durationMinutes)
            ))
            for violation in violations {
                actions.append(PlannedUserAction(atDeviceOffsetSeconds: seconds(violation.atMillis), action: violation.action))
            }
            if let stopMillis {
                actions.append(PlannedUserAction(atDeviceOffsetSeconds: seconds(stopMillis), action: .stopSession(sessionId: sessionId)))
            }
            sessions.append(PlannedSession(
                sessionId: sessionId, startDeviceOffsetSeconds: seconds(startMillis), durationMinutes: durationMinutes,
                stopDeviceOffsetSeconds: stopMillis.map(seconds), violationCount: violations.count
            ))
            // The next session starts a gap after this one's planned end, even if it was stopped early:
            // sessions never overlap, whatever the emulated OS makes of a late intervalDidEnd.
            cursorMillis = endMillis + generator.int(in: workload.gapMinutes) * 60_000
        }
        return (sessions, actions)
    }

    static func planFaults(
        _ nemesis: Scenario.Nemesis, wallSpanMillis: Int, generator: inout SeededGenerator
    ) -> [PlannedFault] {
        let kinds = FaultKind.allCases
        let weights = kinds.map { nemesis.weights.weight(of: $0) }
        guard nemesis.enabled, !nemesis.targets.isEmpty, weights.contains(where: { $0 > 0 }) else { return [] }
        var faults: [PlannedFault] = []
        var busyUntilMillis: [FaultTarget: Int] = [:]
        var atMillis = 0
        var draws = 0
        while faults.count < maximumFaults && draws < maximumFaultDraws {
            draws += 1
            atMillis += max(1, generator.int(in: nemesis.intervalMillis))
            guard atMillis < wallSpanMillis else { break }
            guard let kindIndex = generator.weightedIndex(weights) else { break }
            let kind = kinds[kindIndex]
            let target = nemesis.targets[generator.int(in: 0...(nemesis.targets.count - 1))]
            let holdMillis = generator.int(in: kind == .stop ? nemesis.stopMillis : nemesis.restartDelayMillis)
            // Skipped, not retried, so that one busy target does not shift every later draw.
            if let busy = busyUntilMillis[target], atMillis < busy { continue }
            if atMillis + holdMillis > wallSpanMillis { continue }
            faults.append(PlannedFault(atWallOffsetMillis: atMillis, target: target, kind: kind, holdMillis: holdMillis))
            busyUntilMillis[target] = atMillis + holdMillis
        }
        return faults
    }

    static func seconds(_ millis: Int) -> Double {
        Double(millis) / 1000
    }

    // MARK: - schedule.json

    /// Sorted keys, pretty-printed, trailing newline: the same plan is always the same bytes.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    public static func decode(json: Data) throws -> ScenarioPlan {
        try JSONDecoder().decode(ScenarioPlan.self, from: json)
    }
}
