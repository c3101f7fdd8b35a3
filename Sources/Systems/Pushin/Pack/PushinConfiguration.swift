import HarnessKit

/// Pushin's scenario section, `pushin:` (schema: the pack README, "Scenario keys"): what the user
/// does — onboard once, then open blocked apps and press their shield's buttons, and after each
/// press tap the notification, open Pushin, or do nothing; now and then force-quit Pushin.
public struct PushinConfiguration: Sendable, Equatable {
    /// Bundle ids the user blocks at onboarding (shielded by the host).
    public var blockedApps: [String]
    /// Emergency unlocks granted at onboarding (`emergencyUnlocksRemaining`).
    public var emergencyUnlocks: Int
    /// Shield button presses over the run (each on a blocked app the user opens).
    public var presses: Int
    /// Device seconds from the end of one press's episode to the next press.
    public var gapSeconds: ClosedRange<Int>
    /// Chance that a press is the emergency unlock (the secondary button) rather than the workout.
    public var emergencyProbability: Double
    /// Device seconds from a press to the user's next move.
    public var reactSeconds: ClosedRange<Int>
    /// Chance that the user then taps the newest notification in Notification Center.
    public var tapProbability: Double
    /// Of those taps, the share on `LATER` (the rest: half the notification, half `START_WORKOUT`).
    public var laterProbability: Double
    /// Chance (when not tapping) that the user opens Pushin themselves.
    public var openHostProbability: Double
    /// Chance per press that the user force-quits Pushin at the end of the episode.
    public var forceQuitProbability: Double

    public init(
        blockedApps: [String] = ["com.social.feed"], emergencyUnlocks: Int = 3, presses: Int = 10, gapSeconds: ClosedRange<Int> = 120...600,
        emergencyProbability: Double = 0.2, reactSeconds: ClosedRange<Int> = 5...400, tapProbability: Double = 0.5,
        laterProbability: Double = 0.2, openHostProbability: Double = 0.3, forceQuitProbability: Double = 0
    ) {
        self.blockedApps = blockedApps
        self.emergencyUnlocks = emergencyUnlocks
        self.presses = presses
        self.gapSeconds = gapSeconds
        self.emergencyProbability = emergencyProbability
        self.reactSeconds = reactSeconds
        self.tapProbability = tapProbability
        self.laterProbability = laterProbability
        self.openHostProbability = openHostProbability
        self.forceQuitProbability = forceQuitProbability
    }

    // Bounds.
    public static let maximumBlockedApps = 50
    public static let maximumPresses = 10_000
    public static let maximumSeconds = 7 * 24 * 3600

    static let keys = [
        "blockedApps", "emergencyUnlocks", "presses", "gapSeconds", "emergencyProbability", "reactSeconds", "tapProbability",
        "laterProbability", "openHostProbability", "forceQuitProbability",
    ]

    static func read(_ sections: ScenarioSections) throws(ScenarioError) -> PushinConfiguration {
        let s = try sections.required("pushin").section(allowed: keys)
        var c = PushinConfiguration()
        let appsNode = try s.required("blockedApps")
        c.blockedApps = try appsNode.stringList(nonEmpty: true)
        guard c.blockedApps.count <= maximumBlockedApps else { throw appsNode.error("pushin.blockedApps: at most \(maximumBlockedApps) apps") }
        if let v = s["emergencyUnlocks"] { c.emergencyUnlocks = try v.int(in: 0...1000) }
        c.presses = try s.required("presses").int(in: 1...maximumPresses)
        if let v = s["gapSeconds"] { c.gapSeconds = try v.intRange(in: 0...maximumSeconds) }
        if let v = s["emergencyProbability"] { c.emergencyProbability = try v.probability() }
        if let v = s["reactSeconds"] { c.reactSeconds = try v.intRange(in: 1...maximumSeconds) }
        if let v = s["tapProbability"] { c.tapProbability = try v.probability() }
        if let v = s["laterProbability"] { c.laterProbability = try v.probability() }
        if let v = s["openHostProbability"] { c.openHostProbability = try v.probability() }
        if let v = s["forceQuitProbability"] { c.forceQuitProbability = try v.probability() }
        return c
    }
}
