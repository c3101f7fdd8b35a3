import Foundation
import SystemKit

/// A misbehaviour of iOS that a scenario turns on (`faults:`): which callbacks it hits, how often,
/// when, and what it does to them. Field reports show callbacks that never fire, fire late in a
/// batch (even across midnight), fire twice, fire in either order at interval boundaries, and
/// extensions killed before they return.
public struct FieldFault: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The call is never made.
        case drop
        /// The call is made `seconds` later (drawn from the range).
        case delay(ClosedRange<Double>)
        /// The call is made twice.
        case duplicate
        /// Held, and made together with every other held call at the next `hour:minute` local time.
        case batchUntil(hour: Int, minute: Int)
        /// At an interval boundary, the next interval's `intervalDidStart` before the previous
        /// one's `intervalDidEnd` (when both fall at one instant).
        case reorderAtBoundary
        /// The extension's process is killed before it returns.
        case killMidCall
        /// App Group level: a reader's shared-defaults cache is kept for `seconds` of device time
        /// after it first sees the suite changed (`SharedDefaults`, PROTOCOL.md §3, EMULATED-IOS.md §10.5).
        case staleDefaults(seconds: Double)
        /// App Group level: a multi-key defaults write lands its first key, then the writing process
        /// is killed before the others (`SharedDefaults`, PROTOCOL.md §3, EMULATED-IOS.md §10.5).
        case tornWrite

        /// Faults of the App Group primitives, carried out inside the processes (not on calls).
        public var isDefaultsFault: Bool {
            switch self {
            case .staleDefaults, .tornWrite: true
            default: false
            }
        }
    }

    public var kind: Kind
    /// Callback names it applies to (`intervalDidStart`, `shieldAction`, …); empty = all.
    public var callbacks: Set<String>
    /// Activity name pattern (`*` wildcard); nil = any (calls without an activity included).
    public var activityPattern: String?
    /// Device-time window (unix seconds) in which it applies; nil = always.
    public var window: ClosedRange<Double>?
    /// Chance per matching call, 0…1.
    public var probability: Double
    /// At most this many times in a run; nil = unbounded.
    public var maxCount: Int?
    /// Defaults faults: the roles whose processes it applies to; empty = every device role.
    public var roles: Set<String> = []
    /// A budget: the first `after` calls the rule selects (per `per`) pass untouched; it acts only
    /// on later ones ("iOS delivers the first N of a kind in a day, then drops the rest").
    public var after: Int = 0
    /// What `maxCount` and `after` count over.
    public var per: Budget = .run
    /// Device state: the rule selects a call only while one of these holds (`when:`); empty = always.
    public var when: Set<DeviceCondition> = []
    /// Relation to another event: the rule selects a call only within `withinSeconds` after the
    /// latest such event (`following:`); nil = whatever came before.
    public var following: Relation?

    /// The state of the device when iOS makes a call.
    public enum DeviceCondition: String, Sendable, Equatable, CaseIterable {
        /// After a reboot, before the first unlock (`os.lockedAfterReboot`: data protection).
        case beforeFirstUnlock
        case unlocked
        /// The host app's process: not running, in front, in the background (not yet suspended), suspended.
        case hostNotRunning, hostForeground, hostBackground, hostSuspended
    }

    /// "Within `withinSeconds` after the latest `event`".
    public struct Relation: Sendable, Equatable {
        /// One of `FieldFault.relationEvents`, or a callback name (the latest delivery of that callback).
        public var event: String
        public var withinSeconds: Double

        public init(event: String, withinSeconds: Double) {
            self.event = event
            self.withinSeconds = withinSeconds
        }
    }

    /// Events of the device a rule may follow, besides the callbacks.
    public static let relationEvents = ["reboot", "firstUnlock", "timeZoneChange", "revocation", "hostLaunch", "hostExit"]

    public enum Budget: String, Sendable, Equatable {
        /// The whole run.
        case run
        /// Each local day of the device (counts start again at local midnight).
        case day
    }

    public init(
        kind: Kind, callbacks: Set<String> = [], activityPattern: String? = nil, window: ClosedRange<Double>? = nil,
        probability: Double = 1, maxCount: Int? = nil
    ) {
        self.kind = kind
        self.callbacks = callbacks
        self.activityPattern = activityPattern
        self.window = window
        self.probability = probability
        self.maxCount = maxCount
    }

    public var name: String {
        switch kind {
        case .drop: "drop"
        case .delay: "delay"
        case .duplicate: "duplicate"
        case .batchUntil: "batch"
        case .reorderAtBoundary: "reorder"
        case .killMidCall: "kill_mid_call"
        case .staleDefaults: "stale_defaults"
        case .tornWrite: "torn_write"
        }
    }

    /// How the history names the rule at `index` of `os.faults` (the `rule` field of the lines it
    /// writes when it acts).
    public static func ruleName(_ index: Int) -> String { "os.faults[\(index)]" }

    /// Whether this rule's filters select `call` at device time `now` (before chance and count).
    public func selects(_ call: ExtensionCall, now: Double) -> Bool {
        if kind.isDefaultsFault { return false }
        if !callbacks.isEmpty && !callbacks.contains(call.callbackName) { return false }
        if let window, !window.contains(now) { return false }
        if let pattern = activityPattern {
            guard case .monitor(_, let activity, _) = call else { return false }
            return Self.matches(activity, pattern)
        }
        return true
    }

    /// `*` matches any run of characters; everything else literally.
    public static func matches(_ text: String, _ pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return text == pattern }
        var rest = Substring(text)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for (i, part) in parts.dropFirst().enumerated() {
            let isLast = i == parts.count - 2
            if isLast { return part.isEmpty || rest.hasSuffix(part) }
            guard let r = rest.range(of: part) else { return false }
            rest = rest[r.upperBound...]
        }
        return true
    }
}
