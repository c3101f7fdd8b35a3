import Foundation
import History

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

/// A pack's workload plan, erased: action times for the runner, `perform` to play one action,
/// and its own encoding for `schedule.json`.
public struct AnyWorkloadPlan: Sendable, Encodable, Equatable {
    /// Device offsets of the actions, in plan order.
    public let actionTimes: [Double]
    let performAction: @Sendable (Int, any UserDevice) -> Void
    let encodeInto: @Sendable (any Encoder) throws -> Void
    let value: any Sendable
    let equals: @Sendable (any Sendable) -> Bool

    init<P: SystemPack>(_ plan: WorkloadPlan<P.Action, P.Summary>, pack: P) {
        actionTimes = plan.actions.map(\.atDeviceOffsetSeconds)
        performAction = { index, device in pack.perform(plan.actions[index].action, on: device) }
        encodeInto = { try plan.encode(to: $0) }
        value = plan
        equals = { ($0 as? WorkloadPlan<P.Action, P.Summary>) == plan }
    }

    public func perform(action index: Int, on device: any UserDevice) { performAction(index, device) }

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
