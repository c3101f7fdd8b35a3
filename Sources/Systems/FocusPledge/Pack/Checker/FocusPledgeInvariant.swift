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
    case startEnforced = "start-enforced"
    case blockedAppShielded = "blocked-app-shielded"
    case stopRemovesShields = "stop-removes-shields"
    case monitoringStoppedAfterSettlement = "monitoring-stopped-after-settlement"
    case failureReasonRecorded = "failure-reason-recorded"
    case errorReported = "error-reported"
    case noEarlySuccess = "no-early-success"

    public var descriptor: InvariantDescriptor { promise.bounded(by: boundSeconds) }

    /// The shortest device-time bound each rule judges by (`InvariantDescriptor.boundSeconds`): the
    /// host's grace for acting.
    var boundSeconds: Double? {
        switch self {
        case .startEnforced, .blockedAppShielded, .stopRemovesShields: FocusPledgeChecker.StartEnforcedRule.graceSeconds
        case .noShieldAfterSettlement, .monitoringStoppedAfterSettlement: FocusPledgeChecker.NoShieldAfterSettlementRule.graceSeconds
        // The server's tolerances on its own clock (stale-settlement-earned, no-early-success) are
        // no time given to an app to act: not bounds.
        case .violationSettlesFailure, .cleanSessionSettlesSuccess, .noDoubleSettlement, .failureWhileHostDeadSettledAfterRelaunch,
            .failureReasonRecorded, .errorReported, .staleSettlementEarned, .noEarlySuccess:
            nil
        }
    }

    var promise: InvariantDescriptor {
        switch self {
        case .violationSettlesFailure:
            InvariantDescriptor(
                name: rawValue,
                promise: "A session in which iOS told the app of a violation (a completed shield or threshold call) is settled, first as FAILURE.",
                source: "Testing Checklist, Open blocked app: \"violation detected in App Group\"; Server settlement: \"resolveSession(FAILURE) called, credits burned\"")
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
        case .startEnforced:
            InvariantDescriptor(
                name: rawValue,
                promise: "A minute of host running time after the user starts a session, every selected app is shielded and the session's activity is monitored; a refused start is a violation.",
                source: "Testing Checklist, Start session: \"Shields apply immediately, DeviceActivity starts\"")
        case .blockedAppShielded:
            InvariantDescriptor(
                name: rawValue, promise: "While a session is enforced, a selected app the user opens shows the shield.",
                source: "Testing Checklist, Open blocked app: \"iOS shield UI appears\"")
        case .stopRemovesShields:
            InvariantDescriptor(
                name: rawValue,
                promise: "A minute of host running time after the user stops a session, nothing is shielded and its activity is not monitored.",
                source: "Testing Checklist, Stop session: \"Shields removed, monitoring stopped\"; MethodChannel 5")
        case .monitoringStoppedAfterSettlement:
            InvariantDescriptor(
                name: rawValue, promise: "Once a session is settled its DeviceActivity registration is gone before the next session starts.",
                source: "Security Considerations 4: \"Always call stopNativeSession on success or failure\"; MethodChannel 5: \"Stop monitoring\"")
        case .failureReasonRecorded:
            InvariantDescriptor(
                name: rawValue, promise: "A violation's FAILURE settled by the host carries the extension's reason app_opened.",
                source: "Shared Storage Keys: focuspledge_failure_reason \"Reason (e.g., app_opened, no_heartbeat)\"")
        case .errorReported:
            InvariantDescriptor(
                name: rawValue, promise: "A startMonitoring or ManagedSettings error in the host is reported, never swallowed.",
                source: "MethodChannel 4, startNativeSession: \"Returns {success: bool, error: String?}\"")
        case .noEarlySuccess:
            InvariantDescriptor(
                name: rawValue, promise: "A SUCCESS is settled no earlier than the pledge's planned end (device time).",
                source: "Testing Checklist, Time expiry: \"Wait for session duration to elapse\"; Resilience 3: \"we validate end time server-side\"")
        }
    }
}
