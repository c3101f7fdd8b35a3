import Foundation
import History
import ScreenTimeModel

/// A `SystemPack` with its associated types erased, so the core can hold packs of every system
/// in one list and scenarios can carry their pack's configuration.
public struct AnySystemPack: Sendable, CustomStringConvertible {
    public let descriptor: SystemDescriptor
    let box: any ErasedPack

    public init<P: SystemPack>(_ pack: P) {
        descriptor = pack.descriptor
        box = Box(pack: pack)
    }

    public var id: String { descriptor.id }
    public var description: String { descriptor.id }

    public func configuration(from sections: ScenarioSections) throws(ScenarioError) -> AnyConfiguration {
        try box.configuration(from: sections)
    }

    public func plan(_ configuration: AnyConfiguration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> AnyWorkloadPlan {
        box.plan(configuration, seed: seed, deviceMillis: deviceMillis, generator: &generator)
    }

    public func launchArguments(for role: ProcessRole, configuration: AnyConfiguration, run: RunPaths) -> [String] {
        box.launchArguments(for: role, configuration: configuration, run: run)
    }

    public func runFacts(_ configuration: AnyConfiguration) -> [String: String] { box.runFacts(configuration) }

    public func evidence(run: RunPaths) -> [Evidence] { box.evidence(run: run) }

    public func check(_ history: [HistoryEvent]) -> CheckReport { box.check(history) }

    public func repeatTaps(of interrupted: AppMessage, in role: String, earlier: [AppMessage]) -> [AppMessage] {
        box.repeatTaps(of: interrupted, in: role, earlier: earlier)
    }

    /// A workload of exactly these actions (a scenario's `plan.userActions`, each one JSON object
    /// as `schedule.json` records it: `atDeviceOffsetSeconds` and the pack's `action`), instead of
    /// the one the pack would plan from a seed. Throws, per entry, why one is not this pack's.
    public func pinnedWorkload(_ entries: [Data], summary: [String: JSONValue] = [:]) throws(PinnedPlan.EntryError) -> AnyWorkloadPlan {
        try box.pinnedWorkload(entries, summary: summary)
    }
}

/// A pack's configuration, erased; equal when the pack and the values are.
public struct AnyConfiguration: Sendable, Equatable {
    let value: any Sendable
    let equals: @Sendable (any Sendable) -> Bool

    public init<C: Sendable & Equatable>(_ value: C) {
        self.value = value
        equals = { ($0 as? C) == value }
    }

    public static func == (a: AnyConfiguration, b: AnyConfiguration) -> Bool { a.equals(b.value) }

    /// The pack's own type (packs and tests use this; the core never looks inside).
    public func typed<C>(as type: C.Type = C.self) -> C? { value as? C }
}

/// A pack's workload plan, erased: action times for the runner, `move` to see what one action does,
/// and its own encoding for `schedule.json`.
public struct AnyWorkloadPlan: Sendable, Encodable, Equatable {
    /// Device offsets of the actions, in plan order.
    public let actionTimes: [Double]
    let moveAt: @Sendable (Int, any UserScreen) -> UserMove
    let encodeInto: @Sendable (any Encoder) throws -> Void
    let value: any Sendable
    let equals: @Sendable (any Sendable) -> Bool
    /// A pinned plan's first n actions (nil for a planned workload).
    let firstActions: (@Sendable (Int) -> AnyWorkloadPlan)?

    init<P: SystemPack>(_ plan: WorkloadPlan<P.Action, P.Summary>, pack: P) {
        firstActions = nil
        actionTimes = plan.actions.map(\.atDeviceOffsetSeconds)
        moveAt = { index, screen in pack.move(plan.actions[index].action, seeing: screen) }
        encodeInto = { try plan.encode(to: $0) }
        value = plan
        equals = { ($0 as? WorkloadPlan<P.Action, P.Summary>) == plan }
    }

    /// A pinned workload (`PinnedPlan`): the scenario's actions and the pack's summary keys as
    /// the scenario gives them; `schedule.json` says `"pinned": true`.
    init<P: SystemPack>(pinned actions: [PlannedAction<P.Action>], summary: [String: JSONValue], pack: P) {
        actionTimes = actions.map(\.atDeviceOffsetSeconds)
        moveAt = { index, screen in pack.move(actions[index].action, seeing: screen) }
        // The core's keys of schedule.json are the core's, whatever a summary says.
        let extra = summary.filter { PinnedKeys(rawValue: $0.key) == nil && !ScenarioPlan.coreKeys.contains($0.key) }
        encodeInto = { encoder in
            try JSONValue.object(extra).encode(to: encoder)
            var c = encoder.container(keyedBy: PinnedKeys.self)
            try c.encode(actions, forKey: .userActions)
            try c.encode(true, forKey: .pinned)
        }
        value = PinnedValue(actions: actions, summary: extra)
        equals = { ($0 as? PinnedValue<P.Action>) == PinnedValue(actions: actions, summary: extra) }
        firstActions = { AnyWorkloadPlan(pinned: Array(actions.prefix($0)), summary: extra, pack: pack) }
    }

    struct PinnedValue<Action: Codable & Sendable & Equatable>: Sendable, Equatable {
        var actions: [PlannedAction<Action>]
        var summary: [String: JSONValue]
    }

    /// The plan up to its nth action (a pinned plan under a shorter `--duration`); a planned
    /// workload is planned for its duration already and comes back whole.
    public func prefix(_ n: Int) -> AnyWorkloadPlan { firstActions?(n) ?? self }

    enum PinnedKeys: String, CodingKey { case userActions, pinned }

    /// How many actions the plan holds.
    public var actionCount: Int { actionTimes.count }

    /// What the user does for the `index`th action, seeing `screen` (the core records and performs it).
    public func move(action index: Int, seeing screen: any UserScreen) -> UserMove { moveAt(index, screen) }

    public func encode(to encoder: any Encoder) throws { try encodeInto(encoder) }

    public static func == (a: AnyWorkloadPlan, b: AnyWorkloadPlan) -> Bool { a.equals(b.value) }

    /// The pack's own plan type (packs and tests use this).
    public func typed<T>(as type: T.Type = T.self) -> T? { value as? T }
}

protocol ErasedPack: Sendable {
    func configuration(from sections: ScenarioSections) throws(ScenarioError) -> AnyConfiguration
    func plan(_ configuration: AnyConfiguration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> AnyWorkloadPlan
    func launchArguments(for role: ProcessRole, configuration: AnyConfiguration, run: RunPaths) -> [String]
    func runFacts(_ configuration: AnyConfiguration) -> [String: String]
    func evidence(run: RunPaths) -> [Evidence]
    func check(_ history: [HistoryEvent]) -> CheckReport
    func repeatTaps(of interrupted: AppMessage, in role: String, earlier: [AppMessage]) -> [AppMessage]
    func pinnedWorkload(_ entries: [Data], summary: [String: JSONValue]) throws(PinnedPlan.EntryError) -> AnyWorkloadPlan
}

struct Box<P: SystemPack>: ErasedPack {
    let pack: P

    func typed(_ c: AnyConfiguration) -> P.Configuration {
        guard let value = c.typed(as: P.Configuration.self) else {
            preconditionFailure("a \(pack.descriptor.id) scenario carries another system's configuration")
        }
        return value
    }

    func configuration(from sections: ScenarioSections) throws(ScenarioError) -> AnyConfiguration {
        AnyConfiguration(try pack.configuration(from: sections))
    }

    func plan(_ configuration: AnyConfiguration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator) -> AnyWorkloadPlan {
        AnyWorkloadPlan(pack.plan(typed(configuration), seed: seed, deviceMillis: deviceMillis, generator: &generator), pack: pack)
    }

    func launchArguments(for role: ProcessRole, configuration: AnyConfiguration, run: RunPaths) -> [String] {
        pack.launchArguments(for: role, configuration: typed(configuration), run: run)
    }

    func runFacts(_ configuration: AnyConfiguration) -> [String: String] { pack.runFacts(typed(configuration)) }

    func evidence(run: RunPaths) -> [Evidence] { pack.evidence(run: run) }

    func check(_ history: [HistoryEvent]) -> CheckReport { pack.check(history) }

    func repeatTaps(of interrupted: AppMessage, in role: String, earlier: [AppMessage]) -> [AppMessage] {
        pack.repeatTaps(of: interrupted, in: role, earlier: earlier)
    }

    func pinnedWorkload(_ entries: [Data], summary: [String: JSONValue]) throws(PinnedPlan.EntryError) -> AnyWorkloadPlan {
        var actions: [PlannedAction<P.Action>] = []
        for (i, data) in entries.enumerated() {
            do {
                actions.append(try JSONDecoder().decode(PlannedAction<P.Action>.self, from: data))
            } catch {
                throw PinnedPlan.EntryError(index: i, message: "not a \(pack.descriptor.id) action: \(PinnedPlan.describe(error))")
            }
        }
        return AnyWorkloadPlan(pinned: actions, summary: summary, pack: pack)
    }
}

/// The systems a harness knows: the registry module lists the real ones; tests add their own.
public struct SystemCatalog: Sendable {
    public let packs: [AnySystemPack]

    public init(_ packs: [AnySystemPack]) {
        var seen = Set<String>()
        for p in packs { precondition(seen.insert(p.id).inserted, "two packs are called \(p.id)") }
        self.packs = packs
    }

    public func pack(_ id: String) -> AnySystemPack? { packs.first { $0.id == id } }

    public var ids: [String] { packs.map(\.id) }
}
