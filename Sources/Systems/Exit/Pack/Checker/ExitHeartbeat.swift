import Exit
import HarnessKit

/// The pack's heartbeat, declared for judging: who writes it, where, who decides from
/// it, by which rule, and what the decision looks like in the history (`HeartbeatJudge`).
public enum ExitHeartbeat {
    /// §6.1 "Extension (periodic)": the monitor extension writes `extension_heartbeat` — only when
    /// iOS calls it (an extension is not a daemon), so it has no period.
    public static let writer = HeartbeatWriterModel(
        name: ExitKeys.extensionHeartbeat, key: "App Group \(ExitKeys.appGroup) key \(ExitKeys.extensionHeartbeat)", role: ExitRoles.monitor,
        beat: HistoryLinePattern(
            process: ExitRoles.monitor, event: "defaults_set", equal: ["suite": ExitKeys.appGroup], present: ["v." + ExitKeys.extensionHeartbeat]))

    /// §6.1 "Main App (check)": `if now - lastHeartbeat > 300 { reinitializeExtensions() }`, each
    /// time the as-written host comes to the foreground (A4). Hardened does not guess from the
    /// heartbeat (H5). The seed's comment "Extension may be crashed" is the promise the pack holds
    /// it to: `heartbeat-no-false-alarm`.
    public static let monitor = HeartbeatMonitorModel(
        name: "reinitialize-extensions", writer: writer.name, role: ExitRoles.host,
        rule: "now - extension_heartbeat > \(Int(ExitKeys.heartbeatStaleSeconds)) → reinitializeExtensions()",
        thresholdSeconds: ExitKeys.heartbeatStaleSeconds,
        decision: HistoryLinePattern(process: ExitRoles.host, event: "reinitialize_extensions"),
        toleranceSeconds: 5, variants: [ExitVariant.asWritten.rawValue], mustNotMisfire: ExitInvariant.heartbeatNoFalseAlarm.rawValue)

    public static let model = HeartbeatModel(writers: [writer], monitors: [monitor])
}
