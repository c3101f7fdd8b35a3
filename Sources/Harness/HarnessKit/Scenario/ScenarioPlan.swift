import Foundation

/// Everything a run will do, decided up front from the scenario and a seed: the user's actions in
/// device time (planned by the system's pack) and the nemesis's faults in wall time. Pure and
/// deterministic — the same scenario and seed give a byte-identical `schedule.json` — so a failing
/// run is reproduced from its seed alone.
public struct ScenarioPlan: Sendable, Equatable, Encodable {
    public var scenarioName: String
    public var seed: UInt64
    /// Device time the user's actions cover (the scenario's `duration`, or the override).
    public var deviceDurationSeconds: Int
    /// Wall time the faults cover at a fixed rate (0 under virtual time, where they cover
    /// `deviceDurationSeconds`).
    public var wallSpanMillis: Int
    /// The pack's plan: `userActions` (sorted by `atDeviceOffsetSeconds`) and its summary keys.
    public var workload: AnyWorkloadPlan
    /// Sorted by `atWallOffsetMillis`; every fault starts and ends inside `0...wallSpanMillis`, and
    /// faults on one target never overlap (a target is never signalled while stopped or down).
    public var faults: [PlannedFault]

    public init(
        scenarioName: String, seed: UInt64, deviceDurationSeconds: Int, wallSpanMillis: Int,
        workload: AnyWorkloadPlan, faults: [PlannedFault]
    ) {
        self.scenarioName = scenarioName
        self.seed = seed
        self.deviceDurationSeconds = deviceDurationSeconds
        self.wallSpanMillis = wallSpanMillis
        self.workload = workload
        self.faults = faults
    }

    /// Upper bounds on what one plan may hold (TigerBeetle style: nothing unbounded).
    public static let maximumFaults = 100_000
    /// Draws the nemesis may make, including those skipped because the target was busy.
    public static let maximumFaultDraws = 1_000_000

    /// Streams of `SeededGenerator`: the workload and the nemesis draw independently.
    public static let workloadStream: UInt64 = 1
    public static let nemesisStream: UInt64 = 2

    /// Plans a run of `scenario`. `durationOverride` replaces the scenario's device duration
    /// (`harness run --duration`); `wallSpanMillis` is the wall time the runner will give the faults.
    public static func make(
        scenario: Scenario, seed: UInt64, durationOverride: Duration? = nil, wallSpanMillis: Int
    ) -> ScenarioPlan {
        let deviceSeconds = deviceDurationSeconds(scenario: scenario, override: durationOverride)
        let workload: AnyWorkloadPlan
        let faults: [PlannedFault]
        if let pinned = scenario.pinnedPlan {
            (workload, faults) = pinned.within(deviceSeconds: deviceSeconds, spanMillis: max(0, wallSpanMillis))
        } else {
            var workloadGenerator = SeededGenerator(seed: seed, stream: workloadStream)
            workload = scenario.system.plan(
                scenario.configuration, seed: seed, deviceMillis: deviceSeconds * 1000, generator: &workloadGenerator)
            var nemesisGenerator = SeededGenerator(seed: seed, stream: nemesisStream)
            faults = planFaults(scenario.nemesis, spanMillis: max(0, wallSpanMillis), timeBase: .wall, generator: &nemesisGenerator)
        }
        return ScenarioPlan(
            scenarioName: scenario.name, seed: seed, deviceDurationSeconds: deviceSeconds,
            wallSpanMillis: max(0, wallSpanMillis), workload: workload, faults: faults)
    }

    /// The plan a run of `scenario` executes. At a fixed rate its faults cover the wall time the
    /// workload takes at that rate; under virtual time they cover the workload's device time, with
    /// the nemesis's wall-millisecond settings scaled by the rate to device time (the same fault
    /// density per device hour as at that fixed rate). The settle time after it is fault-free.
    public static func make(scenario: Scenario, seed: UInt64, durationOverride: Duration? = nil) -> ScenarioPlan {
        let deviceSeconds = deviceDurationSeconds(scenario: scenario, override: durationOverride)
        switch scenario.clock.mode {
        case .fixed:
            let wallSpan = Int(Double(deviceSeconds) / scenario.clock.rate * 1000)
            return make(scenario: scenario, seed: seed, durationOverride: durationOverride, wallSpanMillis: max(wallSpan, 1))
        case .virtual:
            let workload: AnyWorkloadPlan
            let faults: [PlannedFault]
            if let pinned = scenario.pinnedPlan {
                (workload, faults) = pinned.within(deviceSeconds: deviceSeconds, spanMillis: deviceSeconds * 1000)
            } else {
                var workloadGenerator = SeededGenerator(seed: seed, stream: workloadStream)
                workload = scenario.system.plan(
                    scenario.configuration, seed: seed, deviceMillis: deviceSeconds * 1000, generator: &workloadGenerator)
                var nemesisGenerator = SeededGenerator(seed: seed, stream: nemesisStream)
                faults = planFaults(
                    scenario.nemesis.scaled(by: scenario.clock.rate), spanMillis: deviceSeconds * 1000, timeBase: .device,
                    generator: &nemesisGenerator)
            }
            return ScenarioPlan(
                scenarioName: scenario.name, seed: seed, deviceDurationSeconds: deviceSeconds, wallSpanMillis: 0,
                workload: workload, faults: faults)
        }
    }

    public static func deviceDurationSeconds(scenario: Scenario, override: Duration?) -> Int {
        guard let override else { return scenario.durationSeconds }
        return Int(max(0, min(override.components.seconds, Int64(ScenarioDuration.maximumSeconds))))
    }

    static func planFaults(
        _ nemesis: Scenario.Nemesis, spanMillis wallSpanMillis: Int, timeBase: PlannedFault.TimeBase, generator: inout SeededGenerator
    ) -> [PlannedFault] {
        let kinds = FaultKind.allCases
        let weights = kinds.map { nemesis.weights.weight(of: $0) }
        guard nemesis.enabled, !nemesis.targets.isEmpty, weights.contains(where: { $0 > 0 }) else { return [] }
        var faults: [PlannedFault] = []
        var busyUntilMillis: [String: Int] = [:]
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
            faults.append(PlannedFault(timeBase: timeBase, atOffsetMillis: atMillis, target: target, kind: kind, holdMillis: holdMillis))
            busyUntilMillis[target] = atMillis + holdMillis
        }
        return faults
    }

    // MARK: - schedule.json

    enum CodingKeys: String, CodingKey, CaseIterable {
        case scenarioName, seed, deviceDurationSeconds, wallSpanMillis, faults
    }

    /// The keys of `schedule.json` the core writes (a pack's summary may not use them).
    public static let coreKeys = Set(CodingKeys.allCases.map(\.rawValue))

    /// The core's keys and the pack's (`userActions` and its summary) in one object.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(scenarioName, forKey: .scenarioName)
        try c.encode(seed, forKey: .seed)
        try c.encode(deviceDurationSeconds, forKey: .deviceDurationSeconds)
        try c.encode(wallSpanMillis, forKey: .wallSpanMillis)
        try c.encode(faults, forKey: .faults)
        try workload.encode(to: encoder)
    }

    /// Sorted keys, pretty-printed: the same plan is always the same bytes (`schedule.json`).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
