import Foundation
import History
import ScreenTimeModel
import SystemKit

/// A seed system, plugged into the harness: its processes, how a scenario configures it, what
/// the user does, and what its seed promises. The core knows systems only through this protocol
/// (and `AnySystemPack`, its type-erased form); a pack lives in `Sources/Systems/<Name>/`.
///
/// Adding a system: docs/ADDING-A-SYSTEM.md.
public protocol SystemPack: Sendable {
    /// The pack's own scenario settings (its `scenarioKeys` sections, parsed).
    associatedtype Configuration: Sendable & Equatable
    /// One thing the user does, as `schedule.json` records it (a flat JSON object with a `kind`).
    associatedtype Action: Codable & Sendable & Equatable
    /// What the plan says beyond the actions (e.g. FocusPledge's `sessions`); its keys appear at
    /// the top level of `schedule.json`.
    associatedtype Summary: Encodable & Sendable & Equatable

    var descriptor: SystemDescriptor { get }

    /// Reads the pack's sections of a scenario. Errors point at `file:line:column`.
    func configuration(from sections: ScenarioSections) throws(ScenarioError) -> Configuration

    /// The user's actions over `deviceMillis` of device time, decided from `generator` alone (the
    /// workload stream of the seed): the same configuration and seed give the same plan.
    func plan(_ configuration: Configuration, seed: UInt64, deviceMillis: Int, generator: inout SeededGenerator)
        -> WorkloadPlan<Action, Summary>

    /// Arguments a role's process gets after `role.arguments` (e.g. a server's journal path).
    func launchArguments(for role: ProcessRole, configuration: Configuration, run: RunPaths) -> [String]

    /// What the user does for `action`, seeing `screen` at that moment: the `user_action` line and
    /// the gestures (`UserMove`). The core records it, then performs it.
    func move(_ action: Action, seeing screen: any UserScreen) -> UserMove

    /// Facts the checker needs that only the configuration knows (e.g. the server's stale
    /// threshold), recorded in the history's `run_started` line so `harness check` can judge the
    /// history alone.
    func runFacts(_ configuration: Configuration) -> [String: String]

    /// What the pack's processes left behind that the history must hold (e.g. its server's durable
    /// journal), as harness lines appended after the run.
    func evidence(run: RunPaths) -> [Evidence]

    /// Judges a merged history, from the history alone.
    func check(_ history: [HistoryEvent]) -> CheckReport

    /// A tap the app died in (EMULATED-IOS.md §7.7): what the user taps, in order, once iOS has
    /// brought the app back. `earlier`: the taps made in `role` before it, oldest first (the last
    /// `InterruptedTapsBound.earlierTaps`). Default: the tap alone. A pack whose screen keeps what
    /// the user did only in the app's memory (a picker's selection) repeats the taps that built
    /// it, as a user back at the app's first screen would.
    func repeatTaps(of interrupted: AppMessage, in role: String, earlier: [AppMessage]) -> [AppMessage]
}

/// Bounds of the interrupted-tap repeat (InterruptedTaps.swift).
public enum InterruptedTapsBound {
    /// Taps per role kept for `SystemPack.repeatTaps(of:in:earlier:)`.
    public static let earlierTaps = 32
    /// Taps one repeat may make.
    public static let tapsPerRepeat = 8
}

extension SystemPack {
    public func launchArguments(for role: ProcessRole, configuration: Configuration, run: RunPaths) -> [String] { [] }
    public func runFacts(_ configuration: Configuration) -> [String: String] { [:] }
    public func evidence(run: RunPaths) -> [Evidence] { [] }
    public func repeatTaps(of interrupted: AppMessage, in role: String, earlier: [AppMessage]) -> [AppMessage] { [interrupted] }
}

/// A pack's plan of the user's actions, plus its summary (flattened into `schedule.json`).
public struct WorkloadPlan<Action: Codable & Sendable & Equatable, Summary: Encodable & Sendable & Equatable>: Sendable, Equatable, Encodable {
    /// Sorted by time; ties keep their planned order.
    public var actions: [PlannedAction<Action>]
    public var summary: Summary

    public init(actions: [PlannedAction<Action>], summary: Summary) {
        self.actions = actions
        self.summary = summary
    }

    enum CodingKeys: String, CodingKey { case userActions }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(actions, forKey: .userActions)
        try summary.encode(to: encoder)
    }
}

/// One thing the user does, at a device time measured from the clock's start.
public struct PlannedAction<Action: Codable & Sendable & Equatable>: Sendable, Equatable, Codable {
    public var atDeviceOffsetSeconds: Double
    public var action: Action

    public init(atDeviceOffsetSeconds: Double, action: Action) {
        self.atDeviceOffsetSeconds = atDeviceOffsetSeconds
        self.action = action
    }
}

/// Paths of one run that a pack may hand its processes.
public struct RunPaths: Sendable, Equatable {
    /// The run directory (history, traces, schedule, report, logs).
    public var runDirectory: String
    public var deviceRoot: String

    public init(runDirectory: String, deviceRoot: String) {
        self.runDirectory = runDirectory
        self.deviceRoot = deviceRoot
    }

    public func trace(_ process: String) -> String { runDirectory + "/trace/\(process).jsonl" }
    public func portFile(_ role: String) -> String { runDirectory + "/ports/\(role).port" }
    /// `<run-dir>/<role>/`: a server's own files (journal, …).
    public func dataDirectory(_ role: String) -> String { runDirectory + "/\(role)" }
}

/// A harness line a pack adds to the history after the run.
public struct Evidence: Sendable, Equatable {
    public var event: String
    public var fields: [String: String]

    public init(event: String, fields: [String: String]) {
        self.event = event
        self.fields = fields
    }
}
