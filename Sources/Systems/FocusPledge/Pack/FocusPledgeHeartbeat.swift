import HarnessKit

/// Seed 000's heartbeat, declared for judging: the host reports liveness on every poll
/// (`POST /sessions/{id}/heartbeat`, the seed's `native.lastCheckedAt`; README A9), and the
/// server's scheduled job settles a session FAILURE `no_heartbeat` when it has been quiet for
/// `staleAfterSeconds` (Resilience 4, "User never reopens app, heartbeat stops"). The beats are the
/// server's `heartbeat` lines — what the job itself goes by. The seed wants a FAILURE when the
/// user never comes back, so a decision while the host is merely suspended is a false alarm of
/// the heartbeat (reported), not a broken promise: no invariant says the job must not misfire.
public enum FocusPledgeHeartbeat {
    static let server = FocusPledgePack.serverRole

    public static let writer = HeartbeatWriterModel(
        name: "session-heartbeat", key: "POST /sessions/{id}/heartbeat (native.lastCheckedAt)", role: FocusPledgePack.hostRole,
        beat: HistoryLinePattern(process: server, event: "heartbeat", present: ["sessionId"]),
        subjectField: "sessionId", intervalSeconds: 5)

    public static let staleJob = HeartbeatMonitorModel(
        name: "stale-session-job", writer: writer.name, role: server,
        rule: "now - (lastCheckedAt ?? createdAt) > staleAfterSeconds → FAILURE no_heartbeat",
        thresholdFact: "staleAfterSeconds",
        // The job traces its settlement as `stale-expired` (ServerTraceEvent), a client's as `settled`.
        decision: HistoryLinePattern(process: server, event: "stale-expired", equal: ["origin": "staleJob", "reason": "no_heartbeat"]),
        // The job measures a session from its creation (A1: dated at the pledge's planned start)
        // until it is settled, by anyone.
        opens: HistoryLinePattern(process: server, event: "created", present: ["sessionId"], timeFieldMillis: "createdAtUnixMillis"),
        closes: [
            HistoryLinePattern(process: server, event: "settled", present: ["sessionId"]),
            HistoryLinePattern(process: server, event: "stale-expired", present: ["sessionId"]),
        ],
        toleranceSeconds: 5)

    public static let model = HeartbeatModel(writers: [writer], monitors: [staleJob])
}
