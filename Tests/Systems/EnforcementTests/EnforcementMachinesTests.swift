import AppGroup
import Enforcement
import Foundation
import SystemKit
import Testing

/// The host and the extensions by events and effects: as-written follows the spec's text, hardened
/// fixes each finding (README H1–H3).
@Suite(.timeLimit(.minutes(1))) struct EnforcementMachinesTests {
    static let berlin = RulesTests.berlin
    static let nine = RulesTests.nine
    static let focus = Mode(id: "focus", name: "Focus", apps: ["a", "b"], startMinute: 8 * 60, endMinute: 12 * 60, precedence: 1)
    static let store: [String: PropertyListValue] = [
        EnforcementKeys.selection: Rules.encode(["a", "b"]), EnforcementKeys.modes: Rules.encode([focus]),
    ]

    static func monitoring(_ effects: [Effect]) -> Effect? {
        effects.first { if case .startMonitoring = $0 { return true }; if case .startMonitoringSchedule = $0 { return true }; return false }
    }

    @Test func aGrantWritesItselfThenUnshieldsItsAppThenSchedulesTheReshield() throws {
        var host = EnforcementHost(variant: .asWritten)
        let effects = host.handle(.createGrant(app: "a", minutes: 5, now: Self.nine + 0.5, timeZone: Self.berlin, store: Self.store))
        guard case .setDefaults(let writes, true) = effects[0], writes.first?.key == EnforcementKeys.grants else {
            Issue.record("the grant is written first: \(effects)")
            return
        }
        #expect(effects.contains(.setShield(ShieldWrite(applications: .set(["b"])))), "X removed from shields")
        // As-written: the one-off schedule exactly as recommended, ending at the grant's end.
        #expect(Self.monitoring(effects) == .startMonitoring(
            activity: "grant.\(Int(Self.nine))-a", start: Date(timeIntervalSince1970: Self.nine), end: Date(timeIntervalSince1970: Self.nine + 301),
            repeats: false))
    }

    @Test func hardenedMakesAShortGrantAFifteenMinuteIntervalWarningAtItsEnd() throws {
        var host = EnforcementHost(variant: .hardened)
        let effects = host.handle(.createGrant(app: "a", minutes: 5, now: Self.nine, timeZone: Self.berlin, store: Self.store))
        guard case .startMonitoringSchedule(let activity, let schedule, _)? = Self.monitoring(effects) else {
            Issue.record("no schedule: \(effects)")
            return
        }
        #expect(activity == "grant.a", "H2: one activity per app")
        #expect(schedule.repeats == false)
        // H1 + H5: 15 minutes (Apple's minimum) ending a minute after the grant, already running.
        #expect(schedule.intervalStart.hour == 8 && schedule.intervalStart.minute == 51)
        #expect(schedule.intervalEnd.hour == 9 && schedule.intervalEnd.minute == 6)
        #expect(schedule.warningTime == DateComponents(hour: 0, minute: 1, second: 0), "the warning falls on the grant's end")
        // H9: pinned to its instant: the components carry the zone they were made in.
        #expect(schedule.intervalStart.timeZone == Self.berlin && schedule.intervalEnd.timeZone == Self.berlin)
        // A long grant starts now and ends a minute after it.
        var long = EnforcementHost(variant: .hardened)
        guard case .startMonitoringSchedule(_, let s30, _)? = Self.monitoring(
            long.handle(.createGrant(app: "a", minutes: 30, now: Self.nine, timeZone: Self.berlin, store: Self.store)))
        else { return }
        #expect(s30.intervalStart.hour == 9 && s30.intervalStart.minute == 0 && s30.intervalEnd.minute == 31)
    }

    @Test func theForegroundReconcilesInBothVariantsAndOnlyHardenedRemirrorsAtLaunch() {
        for v in EnforcementVariant.allCases {
            var host = EnforcementHost(variant: v)
            #expect(host.handle(.becameActive(now: Self.nine, timeZone: Self.berlin, store: Self.store)).contains(.setShield(ShieldWrite(applications: .set(["a", "b"])))))
            let launch = host.handle(.launched(now: Self.nine, timeZone: Self.berlin, store: Self.store))
            #expect(launch.contains(.startTimer(EnforcementHost.mirrorTimer, .after(seconds: 0))) == (v == .hardened))
        }
    }

    @Test func hardenedSchedulesEveryRunningGrantAgainAtLaunch() {
        var store = Self.store
        store[EnforcementKeys.grants] = Rules.encode([
            Grant(id: "g1", app: "a", startTs: Self.nine - 60, endsTs: Self.nine + 240), Grant(id: "g0", app: "b", startTs: Self.nine - 900, endsTs: Self.nine - 1),
        ])
        var hardened = EnforcementHost(variant: .hardened)
        let schedules = hardened.handle(.launched(now: Self.nine, timeZone: Self.berlin, store: store)).compactMap { e -> String? in
            if case .startMonitoringSchedule(let activity, _, _) = e { return activity }
            return nil
        }
        #expect(schedules == ["mode.focus", "mode.focus.again", "grant.a"], "H6 + H8: every mode's two; H4: the running grant only")
        var asWritten = EnforcementHost(variant: .asWritten)
        #expect(asWritten.handle(.launched(now: Self.nine, timeZone: Self.berlin, store: store)).isEmpty)
    }

    /// H8: hardened registers each mode twice, the second schedule a minute behind the first (its
    /// end wrapping past midnight), so a boundary whose callback iOS loses is reconciled a minute
    /// later; as-written registers the one daily schedule the spec names.
    @Test func hardenedGivesEveryModeBoundaryASecondChanceAMinuteLater() {
        let mode = Mode(id: "late", name: "Late", apps: ["a"], startMinute: 22 * 60, endMinute: 23 * 60 + 59, precedence: 1)
        func schedules(_ v: EnforcementVariant) -> [(String, MonitoringSchedule)] {
            var host = EnforcementHost(variant: v)
            return host.handle(.enableMode(mode, now: Self.nine, timeZone: Self.berlin, store: Self.store)).compactMap { e in
                if case .startMonitoringSchedule(let activity, let schedule, _) = e { return (activity, schedule) }
                return nil
            }
        }
        #expect(schedules(.asWritten).map(\.0) == ["mode.late"])
        let hardened = schedules(.hardened)
        #expect(hardened.map(\.0) == ["mode.late", "mode.late.again"])
        #expect(hardened.last?.1.intervalStart == DateComponents(hour: 22, minute: 1))
        #expect(hardened.last?.1.intervalEnd == DateComponents(hour: 0, minute: 0), "23:59 + 1 minute wraps to midnight")
        #expect(hardened.last?.1.repeats == true)
    }

    @Test func anOverrideIsWrittenThenAppliedAtOnceAndOnlyHardenedSchedulesItsEnd() throws {
        for v in EnforcementVariant.allCases {
            var host = EnforcementHost(variant: v)
            let effects = host.handle(.setOverride(mode: "focus", on: false, minutes: 10, now: Self.nine + 0.5, timeZone: Self.berlin, store: Self.store))
            let o = Override(id: "\(Int(Self.nine))-focus", mode: "focus", on: false, startTs: Self.nine + 0.5, endsTs: Self.nine + 601)
            #expect(effects.first == .setDefaults([.set(EnforcementKeys.overrides, Rules.encode([o]))], atomic: true), "one atomic write, first")
            // "When a mode becomes active (or overrides change), update …": focus is off, nothing shielded.
            #expect(effects.contains(.setShield(ShieldWrite(applications: .set([])))))
            guard v == .hardened else {
                #expect(Self.monitoring(effects) == nil, "as-written: the spec schedules nothing at an override's end")
                continue
            }
            guard case .startMonitoringSchedule(let activity, let schedule, _)? = Self.monitoring(effects) else {
                Issue.record("H7: no schedule at the override's end: \(effects)")
                continue
            }
            #expect(activity == "override.focus", "one activity per mode")
            // As H1 + H5: 15 minutes ending a minute after the override (9:10:01 -> 9:11:01), the warning on its end.
            #expect(schedule.repeats == false)
            #expect(schedule.intervalEnd.hour == 9 && schedule.intervalEnd.minute == 11 && schedule.intervalEnd.second == 1)
            #expect(schedule.intervalStart.hour == 8 && schedule.intervalStart.minute == 56)
            #expect(schedule.warningTime == DateComponents(hour: 0, minute: 1, second: 0))
        }
        // The latest override of a mode replaces its earlier one in the App Group.
        var store = Self.store
        store[EnforcementKeys.overrides] = Rules.encode([Override(id: "old", mode: "focus", on: true, startTs: 0, endsTs: Self.nine + 9_000)])
        var host = EnforcementHost(variant: .asWritten)
        guard case .setDefaults(let writes, true)? = host.handle(
            .setOverride(mode: "focus", on: false, minutes: 10, now: Self.nine, timeZone: Self.berlin, store: store)).first,
            let value = writes.first?.value
        else { return }
        #expect(Rules(store: [EnforcementKeys.overrides: value]).overrides.map(\.id) == ["\(Int(Self.nine))-focus"])
    }

    @Test func hardenedSchedulesEveryRunningOverridesEndAgainAtLaunch() {
        var store = Self.store
        store[EnforcementKeys.overrides] = Rules.encode([
            Override(id: "o1", mode: "focus", on: false, startTs: Self.nine - 60, endsTs: Self.nine + 240),
            Override(id: "o0", mode: "deep", on: true, startTs: Self.nine - 900, endsTs: Self.nine - 1),
        ])
        var hardened = EnforcementHost(variant: .hardened)
        let schedules = hardened.handle(.launched(now: Self.nine, timeZone: Self.berlin, store: store)).compactMap { e -> String? in
            if case .startMonitoringSchedule(let activity, _, _) = e { return activity }
            return nil
        }
        #expect(schedules == ["mode.focus", "mode.focus.again", "override.focus"], "H7: the running override only")
        var asWritten = EnforcementHost(variant: .asWritten)
        #expect(asWritten.handle(.launched(now: Self.nine, timeZone: Self.berlin, store: store)).isEmpty)
    }

    @Test func theMonitorReadsTheOverridesAtTheOverridesEnd() {
        var store = Self.store
        store[EnforcementKeys.overrides] = Rules.encode([Override(id: "o", mode: "focus", on: false, startTs: Self.nine, endsTs: Self.nine + 600)])
        let during = EnforcementMonitor.handle(
            callback: "intervalDidStart", activity: "override.focus", now: Self.nine + 1, timeZone: Self.berlin, store: store, variant: .hardened)
        #expect(during.contains(.setShield(ShieldWrite(applications: .set([])))))
        let atEnd = EnforcementMonitor.handle(
            callback: "intervalWillEndWarning", activity: "override.focus", now: Self.nine + 600, timeZone: Self.berlin, store: store, variant: .hardened)
        #expect(atEnd.contains(.setShield(ShieldWrite(applications: .set(["a", "b"])))))
    }

    @Test func theSelectionGoesToTheAppGroupAndThenToTheMirror() {
        var host = EnforcementHost(variant: .asWritten)
        let effects = host.handle(.selectApps(["b", "a", "b"]))
        #expect(effects.first == .setDefaults([.set(EnforcementKeys.selection, Rules.encode(["a", "b"]))], atomic: true))
        #expect(effects.last == .startTimer(EnforcementHost.mirrorTimer, .after(seconds: 0)))
        #expect(!host.mirrorRequested)
        _ = host.handle(.mirrorDue)
        #expect(host.mirrorRequested)
    }

    @Test func aModeIsSavedAppliedAndMonitoredDaily() {
        var host = EnforcementHost(variant: .asWritten)
        let effects = host.handle(.enableMode(Self.focus, now: Self.nine, timeZone: Self.berlin, store: [EnforcementKeys.selection: Rules.encode(["a"])]))
        #expect(effects.contains(.setShield(ShieldWrite(applications: .set(["a"])))))
        #expect(effects.last == .startMonitoringSchedule(
            activity: "mode.focus",
            schedule: MonitoringSchedule(intervalStart: DateComponents(hour: 8, minute: 0), intervalEnd: DateComponents(hour: 12, minute: 0), repeats: true),
            events: [:]))
    }

    @Test func theMonitorReconcilesAtBoundariesAndHardenedAlsoAtTheWarning() {
        var store = Self.store
        store[EnforcementKeys.grants] = Rules.encode([Grant(id: "g", app: "a", startTs: Self.nine, endsTs: Self.nine + 300)])
        let end = EnforcementMonitor.handle(
            callback: "intervalDidEnd", activity: "grant.g", now: Self.nine + 300, timeZone: Self.berlin, store: store, variant: .asWritten)
        #expect(end.contains(.setShield(ShieldWrite(applications: .set(["a", "b"])))))
        let warning = { (v: EnforcementVariant) in
            EnforcementMonitor.handle(callback: "intervalWillEndWarning", activity: "grant.a", now: Self.nine + 300, timeZone: Self.berlin, store: store, variant: v)
        }
        #expect(!warning(.asWritten).contains { if case .setShield = $0 { return true }; return false })
        #expect(warning(.hardened).contains(.setShield(ShieldWrite(applications: .set(["a", "b"])))))
    }

    @Test func theShieldNamesTheModeAndTheNextStepAndItsButtonCloses() {
        let text = EnforcementShieldConfiguration.text(now: Self.nine, timeZone: Self.berlin, store: Self.store)
        #expect(text.title == "App is blocked" && text.primaryButton == "Close app" && text.secondaryButton == nil)
        #expect(text.subtitle.contains("Blocked by Focus") && text.subtitle.contains("Open Earned Access to unlock"))
        let action = EnforcementShieldAction.handle(action: .primaryButtonPressed, now: Self.nine, timeZone: Self.berlin, store: Self.store)
        #expect(action.last == .respond(.close))
        #expect(action.contains(.setShield(ShieldWrite(applications: .set(["a", "b"])))), "the next shield event reconciles")
    }

    /// H10: a mirror write that failed is retried 1, 2, 4, 8 and 16 s later, then left to the next
    /// foreground (which writes it too) or launch; one that lands starts the count over. As-written
    /// retries nothing.
    @Test func hardenedRetriesAFailedMirrorWriteABoundedNumberOfTimes() {
        var asWritten = EnforcementHost(variant: .asWritten)
        #expect(asWritten.handle(.mirrorFailed).isEmpty)
        var host = EnforcementHost(variant: .hardened)
        var delays: [Double] = []
        for _ in 0..<(EnforcementHost.maxMirrorRetries + 2) {
            for case .startTimer(EnforcementHost.mirrorTimer, .after(let seconds)) in host.handle(.mirrorFailed) { delays.append(seconds) }
        }
        #expect(delays == [1, 2, 4, 8, 16])
        _ = host.handle(.becameActive(now: Self.nine, timeZone: Self.berlin, store: Self.store))
        #expect(host.mirrorRequested, "the next foreground writes the mirror again")
        _ = host.handle(.mirrored)
        _ = host.handle(.becameActive(now: Self.nine, timeZone: Self.berlin, store: Self.store))
        #expect(!host.mirrorRequested)
        #expect(host.handle(.mirrorFailed).contains(.startTimer(EnforcementHost.mirrorTimer, .after(seconds: 1))), "a landed write starts the count over")
    }
}
