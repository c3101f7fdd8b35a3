/// What seed 000 (FocusPledge) promises, one case per promise. The raw values are the names
/// reports, JUnit and humans see.
public enum FocusPledgeInvariant: String, CaseIterable, Codable, Sendable {
    /// Testing Checklist, "Server settlement": a violation ends in a FAILURE settlement.
    case violationSettlesFailure = "violation-settles-failure"
    /// "Time expiry … session ends naturally": a clean session ends in SUCCESS (or the stale job's FAILURE).
    case cleanSessionSettlesSuccess = "clean-session-settles-success"
    /// A pledge is settled once: credits are burned or returned once.
    case noDoubleSettlement = "no-double-settlement"
    /// "Stop session … Shields removed": a settled session leaves no shield behind.
    case noShieldAfterSettlement = "no-shield-after-settlement"
    /// Resilience 1, "If session failed while app was dead, detect on relaunch and settle".
    case failureWhileHostDeadSettledAfterRelaunch = "failure-while-host-dead-settled-after-relaunch"
    /// The App Group store was never found corrupt.
    case noStoreCorrupt = "no-store-corrupt"
    /// Resilience 4, "sessions with stale native.lastCheckedAt": the server's stale job settles a
    /// session only after it went `staleAfterSeconds` without a heartbeat (checks the server stand-in).
    case staleSettlementEarned = "stale-settlement-earned"
}
