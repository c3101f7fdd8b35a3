import HarnessKit
import History
import Until

/// Judges an Until run from its merged history alone. The guide's promise: "Open one of the selected
/// apps / App should detect the opening after ~1 second / Reminder should fire" (Testing after
/// approval, 5-7), through "Checks App Group for new events / Emits to React Native / Triggers
/// reminder evaluation" (Architecture). Per app opening iOS reports to the extension: one reminder,
/// none lost, none doubled, at once while the host is on screen.
public enum UntilChecker {
    public static let name = "Until"

    public static let everyReportReminds = InvariantDescriptor(
        name: "every-report-reminds",
        promise: "Every app opening iOS reported to the extension reaches the user as a reminder, judged once the host has been in the foreground and running for \(Int(graceSeconds)) s after it.",
        source: "Seed 003, Testing after approval 5-7: \"Open one of the selected apps ... Reminder should fire\"; Step 7: \"check for new app opened events from the extension\"",
        boundSeconds: graceSeconds)
    public static let noDoubleReminder = InvariantDescriptor(
        name: "no-double-reminder", promise: "No reported app opening reaches the user as more than one reminder.",
        source: "Seed 003, Step 7: \"Clear the event so we don't process it twice\"")
    public static let noReminderWithoutReport = InvariantDescriptor(
        name: "no-reminder-without-report", promise: "Every reminder shown answers an app opening iOS reported.",
        source: "Seed 003, Step 4: the extension stores \"the event\" when \"a monitored app was opened\"; a reminder names its event's timestamp")
    public static let reminderWithinBound = InvariantDescriptor(
        name: "reminder-within-bound",
        promise: "An app opening reported while the host runs (on screen, or in iOS's background grace before suspension) and keeps running reaches the user within \(Int(boundSeconds)) s of device time.",
        source: "Seed 003, Step 4: \"Post Darwin notification for immediate wake-up\"; Testing: \"detect the opening after ~1 second\"",
        boundSeconds: boundSeconds)

    public static let monitoringStarted = InvariantDescriptor(
        name: "monitoring-started",
        promise: "Saving a reminder with picked apps registers the DeviceActivity monitoring (activity untilMonitoring) with iOS.",
        source: "Seed 003, Step 6: \"Update ScreenTimeModule.swift to start monitoring when apps are selected\"; Testing after approval 3-4")

    public static let reportToReminder = LatencySeriesDescriptor(
        name: "report-to-reminder",
        what: "iOS called eventDidReachThreshold -> the reminder was shown (host running, not suspended, throughout)")

    public static let invariants = [
        everyReportReminds, noDoubleReminder, noReminderWithoutReport, reminderWithinBound, monitoringStarted, CoreRules.noStoreCorrupt,
        CoreRules.runSettles,
    ]

    /// Device seconds of host foreground time within which a report must be reminded of: the JS
    /// poll (5 s) plus a launch and a second poll's worth of slack.
    public static let graceSeconds = 15.0
    /// Device seconds within which a running host shows the reminder: the extension posts "for
    /// immediate wake-up" (Step 4); a JS poll (5 s) is the slowest path a running host has. The
    /// opening itself sends the host to the background, and iOS suspends it 10 s later
    /// (EMULATED-IOS.md §10.2): only a host still running then can be held to a bound.
    public static let boundSeconds = 5.0

    public static func check(_ history: [HistoryEvent]) -> CheckReport {
        guard history.contains(where: { $0.isHarnessLine("run_finished") }) else {
            return .undecided(checker: name, reason: "the history has no run_finished line")
        }
        let run = UntilRun(history)
        let shown = run.shownByReport()
        let (timely, latency) = judgeBound(run, shown)
        let outcomes = [
            judgeLoss(run, shown), judgeDoubles(run, shown), judgePhantoms(run), timely, judgeMonitoring(run),
            CoreRules.noStoreCorrupt(history), CoreRules.runSettles(history),
        ]
        var report = CheckReport(
            checker: name, decided: true, results: outcomes.map(\.result), violations: outcomes.flatMap(\.violations), latencies: [latency])
        let lost = lostByOS(run)
        if !lost.isEmpty { report.lostByOS = lost }
        return report
    }

    /// A received report with no reminder shown, although the host then had `graceSeconds` of
    /// foreground time. Reports the host never had that chance for are not judged (not blamed).
    static func judgeLoss(_ run: UntilRun, _ shown: [Int: [UntilRun.Reminder]]) -> RuleOutcome {
        var outcome = RuleOutcome(everyReportReminds.name, subjectKind: "report")
        for (i, report) in run.reports.enumerated() where report.received {
            if shown[i] != nil {
                outcome.checkedCount += 1
                continue
            }
            // Stale reads (an iOS fault) hide the report from the host until they end.
            guard let by = run.hostUp.deadline(after: run.visibleFrom(report.t, within: graceSeconds), seconds: graceSeconds) else { continue }
            outcome.checkedCount += 1
            let later = run.reports.dropFirst(i + 1).first
            outcome.fail(
                report.id,
                "app opening reported at \(report.millis) (\(report.deliveries.count) call(s)) never reached the user, though the host was in the foreground and running \(Int(graceSeconds)) s after it (by device time \(by))"
                    + (later.map { "; the next report came at \($0.millis)" } ?? ""),
                [run.events.last { $0.isUserAction("open_app") && $0.t <= report.t }, report.first, report.deliveries.first?.outcomeEvent,
                 run.events.first { $0.isLine(of: UntilPack.hostRole, "app_opened_read") && $0.t >= report.t }, later?.first,
                 run.events.first { $0.isHarnessLine("host_state") && $0["state"] == "foreground" && $0.t >= report.t }])
        }
        return outcome
    }

    /// A report answered by more than one reminder shown (distinct identifiers: the same one again
    /// replaces the notification, A5).
    static func judgeDoubles(_ run: UntilRun, _ shown: [Int: [UntilRun.Reminder]]) -> RuleOutcome {
        var outcome = RuleOutcome(noDoubleReminder.name, subjectKind: "report")
        for i in shown.keys.sorted() {
            let reminders = shown[i]!
            outcome.checkedCount += 1
            guard reminders.count > 1 else { continue }
            let report = run.reports[i]
            outcome.fail(
                report.id,
                "app opening reported at \(report.millis) (\(report.deliveries.count) call(s)) reached the user as \(reminders.count) reminders: \(reminders.map(\.identifier).joined(separator: ", "))",
                [report.first] + report.deliveries.dropFirst().prefix(1).map { Optional($0.delivered) } + reminders.prefix(3).flatMap { [Optional($0.line), $0.delivered] })
        }
        return outcome
    }

    /// A reminder shown that answers no report.
    static func judgePhantoms(_ run: UntilRun) -> RuleOutcome {
        var outcome = RuleOutcome(noReminderWithoutReport.name, subjectKind: "reminder")
        for r in run.reminders where r.delivered != nil {
            outcome.checkedCount += 1
            guard run.report(for: r) == nil else { continue }
            outcome.fail(
                r.identifier, "reminder \(r.identifier) (event timestamp \(r.line["eventTimestamp"] ?? "-")) answers no app opening iOS reported",
                [r.line, r.delivered])
        }
        return outcome
    }

    /// Reports made while the host ran and kept running for `boundSeconds`: the reminder is shown
    /// within that time — unless the host's reads were stale then (iOS's fault: no app can see
    /// what its store does not show it; counted as excluded, never as a pass). Measured: first call -> first reminder shown.
    static func judgeBound(_ run: UntilRun, _ shown: [Int: [UntilRun.Reminder]]) -> (RuleOutcome, LatencySeries) {
        var outcome = RuleOutcome(reminderWithinBound.name, subjectKind: "report")
        var samples: [Int64] = []
        var notRunning = 0, notReceived = 0, stale = 0
        for (i, report) in run.reports.enumerated() {
            guard report.received else {
                notReceived += 1
                continue
            }
            guard run.hostRunning.covers(report.t, seconds: boundSeconds) else {
                notRunning += 1
                continue
            }
            guard run.visibleFrom(report.t, within: boundSeconds) == report.t else {
                stale += 1
                continue
            }
            outcome.checkedCount += 1
            let first = shown[i]?.compactMap(\.delivered).min { $0.mono < $1.mono }
            if let first, first.t <= report.t + boundSeconds {
                samples.append(max(0, first.mono - report.first.mono))
                continue
            }
            outcome.fail(
                report.id,
                first.map { "app opening reported at \(report.millis) while the host ran reached the user only \($0.t - report.t) s later (bound \(Int(boundSeconds)) s)" }
                    ?? "app opening reported at \(report.millis) while the host ran for \(Int(boundSeconds)) s after never reached the user in that time",
                [report.first, report.deliveries.first?.outcomeEvent, first])
        }
        return (outcome, reportToReminder.series(samplesNanos: samples, excluded: ["host not running": notRunning, "not received": notReceived, "stale reads": stale]))
    }

    /// Every save with picked apps is followed by iOS registering the activity — so a variant cannot
    /// pass by never monitoring (no report, nothing to judge). Excused (and listed by the core) when
    /// the host died in a tap of that reminder screen and the user did not tap again: the save
    /// before anything came of it, or the screen's opening or pick before it reached the App Group
    /// (the screen keeps what the user did in the module's memory: nothing was left to save).
    static func judgeMonitoring(_ run: UntilRun) -> RuleOutcome {
        var outcome = RuleOutcome(monitoringStarted.name, subjectKind: "save")
        let lostTaps = run.index.lostTaps
        let saves = run.events.filter { $0.isUserAction("save_reminder") }
        for (n, save) in saves.enumerated() {
            let picked = run.events.last { $0.isUserAction("select_apps") && $0.mono < save.mono }
            guard let apps = picked?["apps"], !apps.isEmpty else { continue }
            outcome.checkedCount += 1
            let screenFrom = run.events.last { $0.isUserAction("create_reminder") && $0.mono < save.mono }?.mono ?? picked?.mono ?? save.mono
            let nextSave = n + 1 < saves.count ? saves[n + 1].mono : Int64.max
            let lostOnScreen = lostTaps.contains { lost in
                switch lost.action {
                case UntilActions.saveReminder: lost.line.mono > save.mono && lost.line.mono < nextSave && lost.beforeAnyEffect
                case UntilActions.appTrigger, UntilActions.selectApps: lost.line.mono > screenFrom && lost.line.mono < save.mono && lost.writes.isEmpty
                default: false
                }
            }
            if lostOnScreen { continue }
            guard !run.events.contains(where: { $0.isHarnessLine("monitoring_registered") && $0["activity"] == UntilKeys.activity && $0.mono > save.mono })
            else { continue }
            outcome.fail(
                String(n + 1), "the user saved a reminder with apps \(apps) picked and iOS never registered the monitoring",
                [picked, save, run.events.first { $0.isLine(of: UntilPack.hostRole, "monitoring_rejected") && $0.mono > save.mono }])
        }
        return outcome
    }

    /// Openings iOS never reported to the extension (dropped, or every call of it killed before it
    /// returned): listed so a pass is not read as "every opening was handled".
    static func lostByOS(_ run: UntilRun) -> [InvariantViolation] {
        var out: [InvariantViolation] = []
        for d in run.dropped {
            out.append(InvariantViolation(
                invariant: everyReportReminds.name, subject: .init(kind: "report", id: "dropped@\(Int64((d.t * 1000).rounded()))"),
                explanation: "iOS dropped an eventDidReachThreshold call (\(d["fault"] ?? "fault"))", relevantEvents: RelevantEvents.pick([d])))
        }
        for r in run.reports where !r.received {
            out.append(InvariantViolation(
                invariant: everyReportReminds.name, subject: .init(kind: "report", id: r.id),
                explanation: "every eventDidReachThreshold call of this opening was killed before it returned", relevantEvents: RelevantEvents.pick([r.first, r.deliveries.first?.outcomeEvent])))
        }
        return out
    }
}
