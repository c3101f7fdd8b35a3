import Foundation
import History

/// The core's word on a run before and around its pack's: a run the harness did not see through
/// to its end, or whose device root someone else changed while it ran, is *undecided* — never a
/// pass, never a violation blamed on the system. The pack still judges what there is, and the
/// report keeps that as "what could be checked" (results only: a rule that failed on a partial
/// history may only mean that the run stopped before the system settled).
///
/// `harness run` and `harness check` both judge through here.
public enum RunJudgement {
    /// Harness lines that decide this (HISTORY.md §8).
    public static let interruptedEvent = HarnessLine.runInterrupted.rawValue
    public static let tamperEvent = HarnessLine.tamper.rawValue

    public static func judge(_ pack: AnySystemPack, _ history: [HistoryEvent]) -> CheckReport {
        let events = HistoryMerge.sorted(history)
        var report = judgeOnly(pack, events)
        CauseChain.attach(to: &report, events: events, hostRole: pack.descriptor.roles.first { $0.lifetime == .app }?.name)
        // Heartbeat decisions: judged on whatever history there is, reported beside
        // the verdict; a pack that promises its rule never misfires also fails an invariant.
        let heartbeats = HeartbeatJudge.verdicts(pack.descriptor, events)
        report.heartbeats = heartbeats.isEmpty ? nil : heartbeats
        return report
    }

    static func judgeOnly(_ pack: AnySystemPack, _ events: [HistoryEvent]) -> CheckReport {
        let started = events.contains { $0.isHarnessLine("run_started") }
        let finished = events.contains { $0.isHarnessLine("run_finished") }
        let interrupted = events.first { $0.isHarnessLine(interruptedEvent) }
        let tamper = events.first { $0.isHarnessLine(tamperEvent) }
        if let tamper {
            var report = partial(pack, events, finished: finished)
            report.undecidedReason = "the device root was tampered with during the run, so nothing here is the system's doing: "
                + (tamper["what"] ?? "a file the harness owns changed")
            report.tampered = tamper["what"] ?? "tampered"
            return report
        }
        if let foundation = events.first(where: { $0.isHarnessLine(FoundationDefaults.event) }) {
            var report = partial(pack, events, finished: finished)
            report.undecidedReason = FoundationDefaults.reason(role: foundation["target"] ?? "a process", suite: foundation["suite"] ?? "?")
            return report
        }
        if let interrupted {
            var report = partial(pack, events, finished: finished)
            let signal = interrupted["signal"] ?? "a signal"
            report.undecidedReason = "interrupted: the harness got \(signal) at device time \(deviceTime(interrupted.t)); the history stops there"
            report.interruption = signal
            return report
        }
        if started && !finished {
            var report = partial(pack, events, finished: false)
            report.undecidedReason = "interrupted: the history stops before run_finished (the harness was killed or crashed)"
                + (events.last.map { " after device time \(deviceTime($0.t))" } ?? "")
            report.interruption = "killed"
            return report
        }
        var report = pack.check(events)
        if report.decided { DeclaredInvariant.add(to: &report, events) }
        // The user's taps lost with the app, listed for every pack (no pass by lost work).
        if events.contains(where: { $0.isHarnessLine("user_tap_lost") }) {
            let lostTaps = LostWork.tapsLostWithTheApp(HistoryIndex(events))
            if !lostTaps.isEmpty { report.lostByOS = (report.lostByOS ?? []) + lostTaps }
        }
        SpeedDependence.apply(to: &report, descriptor: pack.descriptor, events: events)
        return report
    }

    /// The pack's verdict on `events` as if the run had ended at its last line, kept as results
    /// of an undecided report.
    static func partial(_ pack: AnySystemPack, _ events: [HistoryEvent], finished: Bool) -> CheckReport {
        var all = events
        if !finished, let last = events.last {
            all.append(HistoryEvent(
                mono: last.mono + 1, t: last.t, process: HistoryEvent.harnessProcessName, pid: last.pid, event: "run_finished",
                fields: ["synthetic": "partial history"]))
        }
        let inner = pack.check(all)
        var report = CheckReport.undecided(checker: inner.checker, reason: "")
        report.results = inner.results
        report.latencies = inner.latencies
        return report
    }

    static func deviceTime(_ t: Double) -> String {
        guard t.isFinite, t >= 0, t < 253_402_300_800 else { return String(t) }
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: t))
    }
}
