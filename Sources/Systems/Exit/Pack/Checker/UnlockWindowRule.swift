import Exit
import Foundation
import HarnessKit
import History

/// §3.3 `if now - unlockTime < 60 { let remaining = Int(60 - (now - unlockTime))`: access — a
/// shield saying "Access Granted", or a monitored app left unshielded — only inside the 60 s after
/// the host's latest unlock (to the whole second: Apple's schedules end on one; `tolerance`) — or,
/// when iOS killed the calls that would have put the shield back, until the app's first chance. Not
/// judged: the shields iOS lifts when the user revokes Screen Time access, until the next shield.
enum UnlockWindowRule {
    static let toleranceSeconds = 1.0

    static func judge(_ run: ExitRun) -> RuleOutcome {
        var outcome = RuleOutcome(ExitInvariant.unlockInWindow.rawValue, subjectKind: "access")
        func latestUnlock(before mono: Int64) -> (line: HistoryEvent, value: Double)? { run.unlocks.last { $0.line.mono < mono } }
        // The shield's text.
        for e in run.events where e.isLine(of: ExitRoles.shieldConfiguration, "shield_configuration") && e["title"] == "Access Granted" {
            outcome.checkedCount += 1
            guard let u = latestUnlock(before: e.mono) else {
                outcome.fail("granted@t=\(Int(e.t))", "the shield said Access Granted at t=\(e.t) with no unlock written before", [e])
                continue
            }
            let elapsed = e.t - u.value
            let expected = "\(Int(ExitKeys.unlockWindowSeconds - elapsed))s remaining"
            if elapsed < 0 || elapsed >= ExitKeys.unlockWindowSeconds {
                outcome.fail("granted@t=\(Int(e.t))", "the shield said Access Granted at t=\(e.t), \(elapsed) s after the unlock of \(u.value)", [u.line, e])
            } else if e["subtitle"] != expected {
                outcome.fail(
                    "granted@t=\(Int(e.t))", "the shield said \(e["subtitle"] ?? "nothing") at t=\(e.t), \(elapsed) s after the unlock: expected \(expected)",
                    [u.line, e])
            }
        }
        // iOS's ground truth: which monitored apps were shielded (`shields` lines).
        let shieldLines = run.events.filter { $0.isHarnessLine("shields") }
        // The user turning Screen Time access off lifts every shield at once (EMULATED-IOS.md
        // §10.3): iOS's doing, not an unlock by the app, and no app can shield again until access is
        // given back — judged from the next shield on.
        func liftedByRevocation(_ line: HistoryEvent) -> Bool { run.index.screenTimeRevocation(before: line.mono)?.t == line.t }
        for app in run.monitoredApps {
            var wasShielded = false
            var openedAt: HistoryEvent?
            func close(_ end: HistoryEvent?, endT: Double) {
                guard let opened = openedAt else { return }
                openedAt = nil
                outcome.checkedCount += 1
                let u = latestUnlock(before: opened.mono + 1)
                let id = "\(app)@t=\(Int(opened.t))"
                guard let u, opened.t >= u.value, opened.t < u.value + ExitKeys.unlockWindowSeconds else {
                    outcome.fail(id, "\(app) was unshielded at t=\(opened.t) outside any unlock window", [u?.line, opened])
                    return
                }
                let windowEnd = u.value + ExitKeys.unlockWindowSeconds
                // The app's first chance to put the shield back once the window is over: iOS ran
                // one of its monitor calls to the end, or the host was in the foreground 2 s. Calls
                // iOS killed are no chance: then the next one is.
                guard endT > windowEnd + toleranceSeconds, let chance = firstChance(run, after: windowEnd), endT > chance + toleranceSeconds else { return }
                outcome.fail(
                    id,
                    "\(app) stayed unshielded from t=\(opened.t) to t=\(endT): \(Int(endT - u.value)) s after the unlock of \(u.value)"
                        + (chance > windowEnd + toleranceSeconds ? " (the app's first chance after the window: t=\(chance))" : ""),
                    [u.line, opened, end])
            }
            for line in shieldLines {
                let apps = Set((line["apps"] ?? "").split(separator: ",").map(String.init))
                if apps.contains(app) {
                    wasShielded = true
                    close(line, endT: line.t)
                } else if wasShielded, openedAt == nil {
                    if liftedByRevocation(line) { wasShielded = false } else { openedAt = line }
                }
            }
            close(run.finished, endT: run.endT)
        }
        return outcome
    }

    /// The first device time at or after `t` at which one of the app's processes ran: a monitor
    /// call that finished, or the host 2 s into the foreground and not held stopped by the nemesis
    /// (then 2 s after it was let go). Nil: none before the end.
    static func firstChance(_ run: ExitRun, after t: Double) -> Double? {
        let call = run.events.first { $0.isLine(of: ExitRoles.monitor, "callback_end") && $0.t >= t - toleranceSeconds }?.t
        let conts = run.events.filter { $0.isHarnessLine("signal") && $0["target"] == ExitRoles.host && $0["by"] == "nemesis" && $0["signal"] == "CONT" }
        let host = run.foreground.lazy.compactMap { p -> Double? in
            var from = max(p.start.t, t)
            // Each STOP in the way moves the chance past its CONT (bounded by the CONTs there are).
            for _ in 0...conts.count {
                let at = from + ExitKeys.detectWithinSeconds
                guard run.endT(of: p) >= at else { return nil }
                let fromMono = run.mono(atOrBefore: from)
                guard run.hostStopped(from: fromMono, to: run.mono(atOrAfter: at)) else { return at }
                guard let cont = conts.first(where: { $0.mono > fromMono }) else { return nil }
                from = cont.t
            }
            return nil
        }.first
        return [call, host].compactMap { $0 }.min()
    }
}
