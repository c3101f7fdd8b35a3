import Exit
import HarnessKit
import History

/// §6.1's rule judged by what the history shows of its writer (`ExitHeartbeat.declaration`): each
/// `reinitialize_extensions` of the host is a true alarm when the monitor's last call before it
/// died before it finished (no `callback_end` of that process), and a false alarm otherwise — the
/// extension was idle (never called, or its last call ended), or running. An on-demand extension
/// writes only when called: the rule cannot tell idle from dead.
enum HeartbeatRule {
    struct Judgement {
        var outcome: RuleOutcome
        /// Crash → the first decision after it, device time.
        var detectionSamplesNanos: [Int64]
        var trueAlarms = 0
        var falseAlarms = 0
    }

    static func judge(_ run: ExitRun) -> Judgement {
        let d = ExitHeartbeat.declaration
        var j = Judgement(outcome: RuleOutcome(ExitInvariant.heartbeatNoFalseAlarm.rawValue, subjectKind: "decision"), detectionSamplesNanos: [])
        let lives = ProcessLifetime.lifetimes(of: d.writerRole, in: run.events)
        let ended = Set(run.events.filter { $0.isLine(of: d.writerRole, "callback_end") }.map(\.pid))
        func crashed(_ l: ProcessLifetime) -> Bool { l.exit != nil && !ended.contains(l.pid) }
        let decisions = run.events.filter { $0.isLine(of: d.monitorRole, d.decisionEvent) }
        for (i, decision) in decisions.enumerated() {
            j.outcome.checkedCount += 1
            let last = lives.last { $0.spawn.mono < decision.mono }
            let state: String
            switch last {
            case nil: state = "never called (an on-demand extension, idle)"
            case let l? where l.exit == nil || l.exit!.mono > decision.mono: state = "running a call"
            case let l? where crashed(l):
                j.trueAlarms += 1
                continue
            case let l?: state = "idle since its last call ended at t=\(l.exit?.t ?? 0)"
            }
            j.falseAlarms += 1
            j.outcome.fail(
                "\(i + 1)@t=\(Int(decision.t))",
                "the host decided the extension may be crashed (heartbeat \(decision["ageSeconds"] ?? "?") s old) at t=\(decision.t); the monitor was \(state)",
                [decision, last?.spawn, last?.exit])
        }
        for l in lives where crashed(l) {
            guard let exit = l.exit, let first = decisions.first(where: { $0.mono > exit.mono }) else { continue }
            j.detectionSamplesNanos.append(Int64((first.t - exit.t) * 1e9))
        }
        return j
    }
}
