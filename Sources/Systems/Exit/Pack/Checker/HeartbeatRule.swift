import Exit
import HarnessKit
import History

/// §6.1's rule judged by the core's `HeartbeatJudge` against what the history shows of its
/// writer (`ExitHeartbeat`): each `reinitialize_extensions` of the host is a true alarm when the
/// monitor extension's last call died before it finished (killed at launch, killed or crashed
/// mid-call), and a false alarm otherwise — never called yet, idle since its last call ended,
/// running a call, or held stopped. An on-demand extension writes only when called: the rule
/// cannot tell idle from dead.
enum HeartbeatRule {
    static func judge(_ run: ExitRun) -> HeartbeatJudge.Judged {
        HeartbeatJudge.judge(ExitHeartbeat.monitor, writer: ExitHeartbeat.writer, lifetime: .extension(.deviceActivityMonitor), run.events)
    }
}
