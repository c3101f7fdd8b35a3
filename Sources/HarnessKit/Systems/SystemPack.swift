import Foundation
import History
import ScreenTimeShims
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

    /// The user does `action`: the pack records it and reaches its processes through `device`.
    func perform(_ action: Action, on device: any UserDevice)

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

/// The emulated device as the user's hands: what a pack's `perform` may do. Every call is
/// recorded in the history by the harness.
public protocol UserDevice: AnyObject {
    /// Device time now, unix seconds.
    var now: Double { get }
    /// The user's action as the history records it (`user_action` with these fields).
    func record(_ action: String, _ fields: [String: String])
    /// A tap inside an app role (delivered through its inbox; read at launch if it is dead). A host
    /// that iOS suspended or terminated is opened first (`openHost`).
    func tap(in role: String, _ message: AppMessage)
    /// ManagedSettings ground truth: the applications shielded now.
    var shieldedApplications: Set<String> { get }
    /// True while a DeviceActivity registration named `activity` is inside its interval.
    func isMonitored(_ activity: String) -> Bool
    /// iOS calls the system's extension for `call.point` (a fresh process) directly, for a user
    /// action the OS does not model. `label` is added to the history's `callback_delivered` line
    /// (e.g. the session the user meant). Field faults apply.
    func deliver(_ call: ExtensionCall, label: [String: String])
    /// The user opens an app and keeps it frontmost for `seconds`: counted toward the events that
    /// select it; if it is shielded the shield shows instead (DeviceOS).
    func useApp(_ bundleIdentifier: String, seconds: Double, label: [String: String])
    /// The user presses a button of the shield on screen (recorded as unavailable if none shows).
    func pressShieldButton(_ action: ShieldAction, label: [String: String])
    /// The user opens the host app (launched, or resumed and foregrounded).
    func openHost()
    /// The user goes to the home screen: the host goes to the background (suspended after the grace).
    func leaveHost()
    /// The user opens a URL (a link, a notification's deep link): the host opens it when its role
    /// registered the scheme (`AppNotices.urlSchemes`), launched or foregrounded, and is told
    /// `open_url`; any other scheme is recorded as not handled.
    func openURL(_ url: String)
    /// The user swipes the host away: terminated until opened again.
    func forceQuitHost()
    /// The user deletes an app: refused while a store sets `application.denyAppRemoval`
    /// (`app_removal_denied`); a deleted app does not open (`app_not_installed`) until installed.
    func deleteApp(_ bundleIdentifier: String)
    /// The user installs an app: refused while a store sets `application.denyAppInstallation`.
    func installApp(_ bundleIdentifier: String)
    /// The user opens a website: `website_blocked` when a store's web content filter blocks the
    /// domain (`adult`: the adult-content classifier would say so, for `.auto` filters) or a store
    /// shields it, else `website_visited`.
    func visitWebsite(_ domain: String, adult: Bool)
    /// The user taps a delivered notification (`action`: `com.apple.UNNotificationDefaultActionIdentifier`)
    /// or one of its actions: the host gets the response in its inbox and is launched or foregrounded
    /// (or run in the background for an action without `.foreground`). Recorded as unavailable if
    /// the notification is not in Notification Center.
    func tapNotification(_ identifier: String, action: String)
    /// The identifiers of the notifications in Notification Center now, oldest first: what the
    /// user sees on the lock screen when choosing one to tap (an app's identifiers are its own —
    /// often UUIDs a workload cannot know in advance).
    var deliveredNotifications: [String] { get }
}
