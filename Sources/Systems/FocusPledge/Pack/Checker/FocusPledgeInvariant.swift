import HarnessKit

/// What seed 000 (FocusPledge) promises, one case per promise. The raw values are the names
/// reports, JUnit and humans see. (`no-store-corrupt` and `run-settles` are the core's.)
public enum FocusPledgeInvariant: String, CaseIterable, Codable, Sendable {
    case violationSettlesFailure = "violation-settles-failure"
    case cleanSessionSettlesSuccess = "clean-session-settles-success"
    case noDoubleSettlement = "no-double-settlement"
    case noShieldAfterSettlement = "no-shield-after-settlement"
    case failureWhileHostDeadSettledAfterRelaunch = "failure-while-host-dead-settled-after-relaunch"
    case staleSettlementEarned = "stale-settlement-earned"

    public var descriptor: InvariantDescriptor {
        switch self {
        case .violationSettlesFailure:
            InvariantDescriptor(
                name: rawValue, promise: "A session with a completed violation is settled, first as FAILURE.",
                source: "Testing Checklist, Server settlement: \"resolveSession(FAILURE) called, credits burned\"")
        case .cleanSessionSettlesSuccess:
            InvariantDescriptor(
                name: rawValue,
                promise: "A session without violations is settled SUCCESS when it ends (or FAILURE no_heartbeat by the stale job).",
                source: "Testing Checklist, Time expiry: \"session ends naturally\"; Resilience 4")
        case .noDoubleSettlement:
            InvariantDescriptor(
                name: rawValue, promise: "A session is settled at most once.",
                source: "Security Considerations 3: \"Replay protection: Use idempotency keys\"")
        case .noShieldAfterSettlement:
            InvariantDescriptor(
                name: rawValue, promise: "Once a session is settled its shields are removed before the next session starts.",
                source: "Security Considerations 4: \"Always call stopNativeSession on success or failure\"")
        case .failureWhileHostDeadSettledAfterRelaunch:
            InvariantDescriptor(
                name: rawValue,
                promise: "A violation while the host was dead is settled FAILURE by the relaunched host.",
                source: "Resilience 1: \"If session failed while app was dead, detect on relaunch and settle\"")
        case .staleSettlementEarned:
            InvariantDescriptor(
                name: rawValue,
                promise: "The stale job settles a session only after staleAfterSeconds without a heartbeat.",
                source: "Resilience 4: \"sessions with stale native.lastCheckedAt\" (checks the server stand-in)")
        }
    }
}
