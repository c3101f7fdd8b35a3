import Exit
import HarnessKit
import History

/// §2.1 `daily_reset_flag` "Signals midnight rollover occurred" and §8.1 "Midnight rollover
/// doesn't corrupt shared data": the host resets the daily keys at most once per local day (the
/// device's zone at the reset), and on every local day after the run's first on which it comes to
/// the foreground it has reset by 5 s into that (periods the nemesis held it stopped in are not
/// judged).
enum DailyResetRule {
    static let withinSeconds = 5.0

    static func judge(_ run: ExitRun) -> RuleOutcome {
        var outcome = RuleOutcome(ExitInvariant.dailyReset.rawValue, subjectKind: "day")
        var byDay: [String: [HistoryEvent]] = [:]
        for r in run.resets { byDay[run.day(r), default: []].append(r) }
        for (day, resets) in byDay.sorted(by: { $0.key < $1.key }) where resets.count > 1 {
            outcome.fail(
                day, "the daily counters were reset \(resets.count) times on \(day) (t=\(resets.map { String(Int($0.t)) }.joined(separator: ", ")))",
                resets.prefix(3).map { Optional($0) } + [run.events.last { $0.isHarnessLine("time_zone") && $0.mono < resets[1].mono }])
        }
        guard let start = run.events.first(where: { $0.isHarnessLine("run_started") }) else { return outcome }
        let firstDay = run.day(start)
        var judgedDays: Set<String> = []
        for p in run.foreground {
            let day = run.day(p.start)
            guard day != firstDay, !judgedDays.contains(day) else { continue }
            let deadline = p.start.t + withinSeconds
            guard run.endT(of: p) >= deadline else { continue }
            let deadlineMono = run.mono(atOrAfter: deadline)
            if run.hostStopped(from: p.start.mono, to: deadlineMono) { continue }
            judgedDays.insert(day)
            outcome.checkedCount += 1
            if !(byDay[day] ?? []).contains(where: { $0.mono <= deadlineMono }) {
                outcome.fail(
                    day, "the host came to the foreground on \(day) at t=\(p.start.t) and had not reset the daily counters \(Int(withinSeconds)) s later",
                    [p.start, run.resets.last { $0.mono < p.start.mono }, run.events.last { $0.isHarnessLine("host_state") && $0.mono < p.start.mono }])
            }
        }
        outcome.checkedCount += byDay.count
        return outcome
    }
}
