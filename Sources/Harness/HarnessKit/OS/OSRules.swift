import Foundation

/// Documented alternatives to the OS's rules (`os.rules`), for behaviour where real devices differ
/// from Apple's documentation or from one another (EMULATED-IOS.md §10.6 names the field evidence of
/// each). The defaults are the rules of EMULATED-IOS.md §7.3 and §10.1, unchanged. A rule that acts
/// writes its name (`rule: os.rules.<key>`) on the history line it causes, so a violation's cause
/// chain and the report's "armed, never fired" list can name it.
public struct OSRules: Sendable, Equatable {
    /// An interval whose start is "the current moment" of its registration — its start components
    /// match an instant at most `currentMomentSeconds` before `startMonitoring` (an app that builds
    /// `intervalStart` from the current hour and minute).
    public enum StartAtRegistration: String, Sendable, Equatable, CaseIterable {
        /// It runs from the registration (`intervalDidStart` at once): the documented reading,
        /// `nextInterval` is "the current interval if one is ongoing".
        case runs
        /// It is not treated as running: no `intervalDidStart`, no `intervalDidEnd`, no thresholds
        /// for it; a repeating schedule's next interval runs as usual (`interval_missed`).
        case missed
    }

    /// When `eventDidReachThreshold` comes.
    public enum Thresholds: String, Sendable, Equatable, CaseIterable {
        /// When the cumulative use of the event's apps reaches its threshold (Apple's documentation).
        case byUse
        /// Every event of a running interval reaches its threshold at the first use of the device
        /// in that interval (any app, shielded or not), whatever was used.
        case atFirstUse
    }

    /// Whether use before an event's interval started counting (before its registration) counts.
    public enum PastActivity: String, Sendable, Equatable, CaseIterable {
        /// As the event asks (iOS 17.4's `includesPastActivity`): with `true`, the interval's use
        /// before the registration counts, from the round hour at or before the interval's start;
        /// with `false` (and events made without it), none does.
        case asRequested
        /// Use in the interval before the registration always counts, from the interval's start,
        /// whatever the event says (devices before `includesPastActivity`).
        case always
    }

    public var startAtRegistration: StartAtRegistration = .runs
    public var thresholds: Thresholds = .byUse
    public var pastActivity: PastActivity = .asRequested

    public init(startAtRegistration: StartAtRegistration = .runs, thresholds: Thresholds = .byUse, pastActivity: PastActivity = .asRequested) {
        self.startAtRegistration = startAtRegistration
        self.thresholds = thresholds
        self.pastActivity = pastActivity
    }

    /// The keys of `os.rules`, with their alternatives (the first is the default).
    public static let keys: [(key: String, values: [String])] = [
        ("startAtRegistration", StartAtRegistration.allCases.map(\.rawValue)),
        ("thresholds", Thresholds.allCases.map(\.rawValue)),
        ("pastActivity", PastActivity.allCases.map(\.rawValue)),
    ]

    /// How far before its registration an interval's start still counts as "the current moment":
    /// components of the current hour and minute match the start of the current minute.
    public static let currentMomentSeconds = 60.0

    /// The rules that differ from the defaults, as `key=value` (the `run_started` line records them).
    public var changed: [String] {
        var out: [String] = []
        if startAtRegistration != .runs { out.append("startAtRegistration=\(startAtRegistration.rawValue)") }
        if thresholds != .byUse { out.append("thresholds=\(thresholds.rawValue)") }
        if pastActivity != .asRequested { out.append("pastActivity=\(pastActivity.rawValue)") }
        return out
    }

    /// How the history names the rule of `key` when it acts.
    public static func ruleName(_ key: String) -> String { "os.rules.\(key)" }
}
