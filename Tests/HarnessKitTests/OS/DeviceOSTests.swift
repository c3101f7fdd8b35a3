import Foundation
@testable import HarnessKit
import ScreenTimeModel
import SystemKit
import Testing

/// The emulated iOS's rules, one test each, without processes: events in, effects out.
@Suite(.timeLimit(.minutes(1))) struct DeviceOSTests {
    /// 2026-02-17 08:00:00 UTC = 09:00 in Berlin.
    static let t0 = 1_771_315_200.0
    static let berlin = "Europe/Berlin"

    static func os(_ points: Set<ExtensionPoint> = Set(ExtensionPoint.allCases), faults: [FieldFault] = [], lifecycle: Bool = true) -> DeviceOS {
        DeviceOS(configuration: .init(timeZone: berlin, extensionPoints: points, backgroundGraceSeconds: 10, hostLifecycle: lifecycle, faults: faults, seed: 7), now: t0)
    }

    static func hm(_ h: Int, _ m: Int) -> ScheduleComponents { ScheduleComponents(hour: h, minute: m) }

    static func registration(
        _ name: String, _ start: ScheduleComponents, _ end: ScheduleComponents, repeats: Bool = false, warning: ScheduleComponents? = nil,
        events: [String: ActivityEventRecord] = [:], at: Double = t0
    ) -> ActivityRegistrationRecord {
        ActivityRegistrationRecord(
            activity: name, schedule: ScheduleSpec(intervalStart: start, intervalEnd: end, repeats: repeats, warningTime: warning),
            events: events, registeredAt: Date(timeIntervalSince1970: at), timeZone: berlin,
            registeredBy: WriterRecord(pid: 1, process: "host-app"), firstInterval: IntervalRecord(start: Date(), end: Date()))
    }

    static func shieldUnion(_ apps: [String]) -> ShieldUnion {
        ShieldUnion([ShieldSettingsRecord(applications: apps.map { OpaqueToken.encode(.application, $0) })])
    }

    /// The monitor callbacks among `effects`, as "callback activity".
    static func monitorCalls(_ effects: [OSEffect]) -> [String] {
        effects.compactMap {
            guard case .call(.monitor(let cb, let activity, let event), _, _) = $0 else { return nil }
            return "\(cb.rawValue) \(activity)" + (event.map { " \($0)" } ?? "")
        }
    }

    /// Runs the OS from its time to `until`, stepping to each deadline, collecting effects.
    static func run(_ os: inout DeviceOS, until: Double) -> [OSEffect] {
        var out: [OSEffect] = []
        var steps = 0
        while let next = os.nextDeadline(), next <= until, steps < 10_000 {
            out += os.apply(.clock(now: next))
            steps += 1
        }
        out += os.apply(.clock(now: until))
        return out
    }

    // MARK: Schedules (DateComponents in the device's time zone)

    @Test func anIntervalStartsAndEndsAtItsLocalTimesOnce() {
        var os = Self.os()
        _ = os.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(10, 30))]))
        let effects = Self.run(&os, until: Self.t0 + 3 * 3600)
        #expect(Self.monitorCalls(effects) == ["intervalDidStart a", "intervalDidEnd a"])
        // 10:00 Berlin = 09:00 UTC.
        #expect(os.journal.contains(.clock(now: Self.t0 + 3600)))
        #expect(os.journal.contains(.clock(now: Self.t0 + 5400)))
    }

    @Test func registeringInsideAnIntervalStartsItAtOnce() {
        var os = Self.os()
        let effects = os.apply(.registrations([Self.registration("a", Self.hm(8, 0), Self.hm(10, 0))]))
        #expect(Self.monitorCalls(effects) == ["intervalDidStart a"])
        #expect(os.isMonitored("a"))
    }

    @Test func repeatsFalseEndsAfterItsFirstIntervalAndRepeatsTrueComesBackDaily() {
        var once = Self.os()
        var daily = Self.os()
        _ = once.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(11, 0))]))
        _ = daily.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(11, 0), repeats: true)]))
        let threeDays = Self.t0 + 3 * 86_400
        #expect(Self.monitorCalls(Self.run(&once, until: threeDays)).count == 2)
        #expect(Self.monitorCalls(Self.run(&daily, until: threeDays)).count == 6)
    }

    @Test func anEndBeforeTheStartWrapsPastMidnight() {
        var os = Self.os()
        _ = os.apply(.registrations([Self.registration("night", Self.hm(23, 0), Self.hm(1, 0))]))
        _ = Self.run(&os, until: Self.t0 + 86_400)
        // 23:00 Berlin = 22:00 UTC on the 17th, 01:00 = 00:00 UTC on the 18th.
        #expect(os.journal.contains(.clock(now: Self.t0 + 14 * 3600)))
        #expect(os.journal.contains(.clock(now: Self.t0 + 16 * 3600)))
    }

    @Test func warningTimesComeBeforeTheStartAndTheEnd() {
        var os = Self.os()
        _ = os.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(11, 0), warning: ScheduleComponents(minute: 5))]))
        let calls = Self.monitorCalls(Self.run(&os, until: Self.t0 + 4 * 3600))
        #expect(calls == ["intervalWillStartWarning a", "intervalDidStart a", "intervalWillEndWarning a", "intervalDidEnd a"])
    }

    @Test func stoppingAnOngoingIntervalDeliversIntervalDidEndAndAFutureOneNothing() {
        var os = Self.os()
        _ = os.apply(.registrations([Self.registration("now", Self.hm(8, 0), Self.hm(10, 0)), Self.registration("later", Self.hm(20, 0), Self.hm(21, 0))]))
        let effects = os.apply(.registrations([]))
        #expect(Self.monitorCalls(effects) == ["intervalDidEnd now"])
    }

    @Test func anEndedIntervalIsOverAndStoppingItLaterEndsNothing() {
        var os = Self.os()
        _ = os.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(10, 30))]))
        #expect(Self.monitorCalls(Self.run(&os, until: Self.t0 + 2 * 3600)) == ["intervalDidStart a", "intervalDidEnd a"])
        #expect(!os.isMonitored("a"))
        #expect(Self.monitorCalls(os.apply(.registrations([]))).isEmpty, "its interval ended already: no second intervalDidEnd")
    }

    /// The registrations directory is read again whenever any activity changes: an unchanged
    /// registration keeps its state (its past boundaries are not called again).
    @Test func anUnchangedRegistrationReadAgainIsLeftAlone() {
        var os = Self.os()
        let a = Self.registration("a", Self.hm(10, 0), Self.hm(10, 30), repeats: true)
        _ = os.apply(.registrations([a]))
        #expect(Self.monitorCalls(Self.run(&os, until: Self.t0 + 2 * 3600)) == ["intervalDidStart a", "intervalDidEnd a"])
        let b = Self.registration("b", Self.hm(20, 0), Self.hm(21, 0), at: os.now)
        let effects = os.apply(.registrations([a, b]))
        #expect(Self.monitorCalls(effects).isEmpty, "\(effects)")
        #expect(effects.filter { if case .record(.monitoringRegistered, _) = $0 { true } else { false } } == [
            .record(.monitoringRegistered, ["activity": "b", "repeats": "false"]),
        ])
    }

    @Test func aTimeZoneChangeMovesLocalTimes() {
        var os = Self.os()
        _ = os.apply(.timeZone("America/New_York"))
        _ = os.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(11, 0), at: Self.t0)]))
        _ = Self.run(&os, until: Self.t0 + 86_400)
        // 10:00 in New York = 15:00 UTC.
        #expect(os.journal.contains(.clock(now: Self.t0 + 7 * 3600)))
    }

    /// A one-off interval that ended is done: a move west afterwards, which puts its local times
    /// 30 minutes later (still to come), brings no second interval. A repeating one's next interval
    /// moves with the zone and runs.
    @Test func aOneOffIntervalThatEndedIsNotRunAgainAfterATimeZoneChange() {
        for repeats in [false, true] {
            var os = DeviceOS(
                configuration: .init(timeZone: "Asia/Kolkata", extensionPoints: Set(ExtensionPoint.allCases), backgroundGraceSeconds: 10, hostLifecycle: true, faults: [], seed: 7),
                now: Self.t0)
            // 08:00 UTC is 13:30 in Kolkata: 13:35-13:40, ended by 13:45 (08:15 UTC).
            var r = Self.registration("a", Self.hm(13, 35), Self.hm(13, 40), repeats: repeats)
            r.timeZone = "Asia/Kolkata"
            _ = os.apply(.registrations([r]))
            var calls = Self.monitorCalls(Self.run(&os, until: Self.t0 + 15 * 60))
            #expect(calls == ["intervalDidStart a", "intervalDidEnd a"])
            // Karachi is 30 minutes behind: 08:15 UTC is 13:15 there, and 13:35 is 20 minutes on.
            _ = os.apply(.timeZone("Asia/Karachi"))
            calls = Self.monitorCalls(Self.run(&os, until: Self.t0 + 3600))
            #expect(calls == (repeats ? ["intervalDidStart a", "intervalDidEnd a"] : []), "repeats: \(repeats)")
        }
    }

    // MARK: Event thresholds (cumulative frontmost use within the interval, once)

    @Test func aThresholdFiresOnceWhenTheCumulativeUseReachesIt() {
        var os = Self.os()
        let event = ActivityEventRecord(applications: [OpaqueToken.encode(.application, "com.video")], threshold: ScheduleComponents(minute: 10))
        _ = os.apply(.registrations([Self.registration("a", Self.hm(8, 0), Self.hm(12, 0), events: ["limit": event])]))
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 6 * 60, label: [:])))
        var calls = Self.monitorCalls(Self.run(&os, until: Self.t0 + 1800))
        #expect(!calls.contains { $0.hasPrefix("eventDidReachThreshold") }, "6 of 10 minutes")
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.other", seconds: 600, label: [:])))
        _ = Self.run(&os, until: Self.t0 + 2400)
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 30 * 60, label: [:])))
        let start = os.now
        calls = Self.monitorCalls(Self.run(&os, until: Self.t0 + 2 * 3600))
        #expect(calls == ["eventDidReachThreshold a limit"], "once, though 30 minutes were used")
        #expect(os.journal.contains(.clock(now: start + 4 * 60)), "fires when the 10th minute is reached")
    }

    @Test func useCountsTowardAnEventFromZeroInEachInterval() {
        var os = Self.os()
        let event = ActivityEventRecord(applications: [OpaqueToken.encode(.application, "com.video")], threshold: ScheduleComponents(minute: 10))
        _ = os.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(11, 0), repeats: true, events: ["limit": event])]))
        // 10:00 Berlin today: 6 minutes; 10:00 tomorrow: 6 minutes more, in a new interval.
        _ = Self.run(&os, until: Self.t0 + 3600)
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 6 * 60, label: [:])))
        let tomorrow = Self.t0 + 86_400 + 3600
        _ = Self.run(&os, until: tomorrow)
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 6 * 60, label: [:])))
        var calls = Self.monitorCalls(Self.run(&os, until: tomorrow + 8 * 60))
        #expect(!calls.contains { $0.hasPrefix("eventDidReachThreshold") }, "6 + 6 minutes in two intervals are not 10 in one: \(calls)")
        // 5 minutes more in this interval make 11: it fires.
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 5 * 60, label: [:])))
        calls = Self.monitorCalls(Self.run(&os, until: tomorrow + 20 * 60))
        #expect(calls == ["eventDidReachThreshold a limit"])
    }

    @Test func anAppShieldedThroughItsCategoryShowsTheShield() {
        var os = DeviceOS(
            configuration: .init(
                timeZone: Self.berlin, extensionPoints: Set(ExtensionPoint.allCases), appCategories: ["com.video": "entertainment", "com.maps": "travel"],
                seed: 7),
            now: Self.t0)
        let policy = CategoryPolicyRecord(policy: .specific, categories: [OpaqueToken.encode(.category, "entertainment")])
        _ = os.apply(.shields(ShieldUnion([ShieldSettingsRecord(applicationCategories: policy)])))
        #expect(os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 60, label: [:]))).contains(.record(.shieldShown, ["app": "com.video"])))
        let other = os.apply(.user(.useApp(bundleIdentifier: "com.maps", seconds: 60, label: [:])))
        #expect(other.contains { if case .record(.appInUse, let f) = $0 { f["app"] == "com.maps" } else { false } }, "another category opens")
    }

    @Test func useOfAShieldedAppShowsTheShieldAndCountsNothing() {
        var os = Self.os()
        let event = ActivityEventRecord(applications: [OpaqueToken.encode(.application, "com.video")], threshold: ScheduleComponents(second: 1))
        _ = os.apply(.registrations([Self.registration("a", Self.hm(8, 0), Self.hm(12, 0), events: ["open": event])]))
        _ = os.apply(.shields(Self.shieldUnion(["com.video"])))
        let effects = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 600, label: ["sid": "s1"])))
        #expect(effects.contains(.record(.shieldShown, ["app": "com.video", "sid": "s1"])))
        #expect(effects.contains { if case .call(.shieldConfiguration(application: "com.video"), _, _) = $0 { return true } else { return false } })
        #expect(!Self.monitorCalls(Self.run(&os, until: Self.t0 + 3600)).contains { $0.hasPrefix("eventDidReachThreshold") })
    }

    // MARK: Shields and their buttons

    @Test func aButtonPressRunsTheShieldActionAndItsAnswerIsApplied() {
        for (response, line) in [(ShieldActionResponse.close, HarnessLine.shieldClosedApp), (.defer, .shieldRedrawn), (.none, .shieldUnchanged)] {
            var os = Self.os()
            _ = os.apply(.shields(Self.shieldUnion(["com.video"])))
            _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 60, label: [:])))
            let press = os.apply(.user(.pressShieldButton(.primaryButtonPressed, label: ["sid": "s1"])))
            guard case .call(.shieldAction(.primaryButtonPressed, application: "com.video"), let delivery, let label)? = press.last else {
                Issue.record("no shield-action call: \(press)")
                continue
            }
            #expect(label["sid"] == "s1")
            let after = os.apply(.callEnded(delivery: delivery, completed: true, response: response))
            #expect(after.contains { if case .record(line, _) = $0 { return true } else { return false } }, "\(response)")
            // .close: the app is gone, a second press finds no shield; .defer asks the configuration again.
            let again = os.apply(.user(.pressShieldButton(.primaryButtonPressed, label: [:])))
            #expect(again.contains { if case .record(.shieldButtonUnavailable, _) = $0 { return true } else { return false } } == (response == .close))
            if response == .defer { #expect(after.contains { if case .call(.shieldConfiguration, _, _) = $0 { return true } else { return false } }) }
        }
    }

    @Test func anAppInUseThatBecomesShieldedIsCoveredAtOnce() {
        var os = Self.os()
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 600, label: [:])))
        let effects = os.apply(.shields(Self.shieldUnion(["com.video"])))
        #expect(effects.contains(.record(.shieldShown, ["app": "com.video"])))
    }

    @Test func aShieldOnScreenGoesWhenItsAppIsNoLongerShielded() {
        var os = Self.os()
        _ = os.apply(.shields(Self.shieldUnion(["com.video"])))
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 60, label: [:])))
        #expect(os.apply(.shields(Self.shieldUnion([]))).contains(.record(.shieldLifted, ["app": "com.video"])))
        // Nothing is on screen any more: a press finds no shield and runs no extension.
        let press = os.apply(.user(.pressShieldButton(.primaryButtonPressed, label: [:])))
        #expect(press.contains { if case .record(.shieldButtonUnavailable, _) = $0 { true } else { false } }, "\(press)")
        #expect(!press.contains { if case .call(.shieldAction, _, _) = $0 { true } else { false } })
    }

    // MARK: The host's lifecycle

    @Test func theHostIsSuspendedAGracePeriodAfterTheUserLeavesAndResumedWhenOpened() {
        var os = Self.os()
        #expect(os.apply(.user(.openHost)).first == .launchHost)
        _ = os.apply(.user(.leaveHost))
        #expect(os.nextDeadline() == Self.t0 + 10)
        let suspend = os.apply(.clock(now: Self.t0 + 10))
        #expect(suspend.contains(.suspendHost))
        #expect(os.host == .suspended)
        #expect(os.apply(.user(.openHost)).first == .resumeHost)
        #expect(os.host == .foreground)
        #expect(os.apply(.user(.forceQuitHost)).first == .terminateHost)
        #expect(os.host == .notRunning)
        // Using another app sends the host to the background too.
        _ = os.apply(.user(.openHost))
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.x", seconds: 60, label: [:])))
        #expect(os.host == .background(since: os.now))
    }

    /// A host killed while suspended (the nemesis, a crash) and brought back comes back in the
    /// background — a shield the user is looking at keeps the screen — and is suspended after the
    /// grace; one killed in the foreground comes back in front, as the user reopening it.
    @Test func aHostKilledInTheBackgroundComesBackInTheBackground() {
        var os = Self.os()
        _ = os.apply(.user(.openHost))
        _ = os.apply(.hostLaunched)
        _ = os.apply(.user(.leaveHost))
        _ = os.apply(.clock(now: Self.t0 + 10))
        #expect(os.host == .suspended)
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.x", seconds: 600, label: [:])))
        _ = os.apply(.hostExited)
        _ = os.apply(.clock(now: Self.t0 + 60))
        let back = os.apply(.hostLaunched)
        #expect(os.host == .background(since: Self.t0 + 60))
        #expect(back.contains(.record(.hostState, ["state": "background", "why": "relaunched after a kill in the background"])))
        #expect(!back.contains(.record(.hostState, ["state": "foreground"])))
        #expect(os.frontmost == .app("com.x", until: Self.t0 + 610, label: [:]), "the app in use keeps the screen")
        #expect(os.nextDeadline() == Self.t0 + 70)
        #expect(os.apply(.clock(now: Self.t0 + 70)).contains(.suspendHost))
        // Killed in the foreground: back in front.
        _ = os.apply(.user(.openHost))
        _ = os.apply(.hostExited)
        _ = os.apply(.hostLaunched)
        #expect(os.host == .foreground && os.frontmost == .host)
    }

    @Test func withoutTheLifecycleTheHostIsNeverSuspended() {
        var os = Self.os(lifecycle: false)
        _ = os.apply(.user(.openHost))
        _ = os.apply(.user(.leaveHost))
        #expect(!Self.run(&os, until: Self.t0 + 3600).contains(.suspendHost))
    }

    @Test func aRebootLosesHeldCallsAndKeepsRegistrations() {
        var os = Self.os(faults: [FieldFault(kind: .delay(600...600))])
        _ = os.apply(.registrations([Self.registration("a", Self.hm(8, 0), Self.hm(10, 0))]))
        _ = os.apply(.reboot)
        #expect(os.isMonitored("a"))
        #expect(Self.monitorCalls(Self.run(&os, until: Self.t0 + 3 * 3600)) == ["intervalDidEnd a"])
    }

    // MARK: Field faults

    @Test func dropDelayDuplicateAndBatchDoWhatTheySay() throws {
        let reg = Self.registration("a", Self.hm(10, 0), Self.hm(10, 30))
        var drop = Self.os(faults: [FieldFault(kind: .drop, callbacks: ["intervalDidEnd"])])
        _ = drop.apply(.registrations([reg]))
        #expect(Self.monitorCalls(Self.run(&drop, until: Self.t0 + 7200)) == ["intervalDidStart a"])

        var delay = Self.os(faults: [FieldFault(kind: .delay(300...300), callbacks: ["intervalDidStart"])])
        _ = delay.apply(.registrations([reg]))
        _ = Self.run(&delay, until: Self.t0 + 3600 + 299)
        #expect(!delay.isMonitored("a") || true)
        let late = Self.monitorCalls(Self.run(&delay, until: Self.t0 + 7200))
        #expect(late == ["intervalDidStart a", "intervalDidEnd a"])
        #expect(delay.journal.contains(.clock(now: Self.t0 + 3600 + 300)))

        // Duplicate: the second copy once the first has returned (never two at once).
        var dup = Self.os(faults: [FieldFault(kind: .duplicate, callbacks: ["intervalDidStart"], maxCount: 1)])
        _ = dup.apply(.registrations([reg]))
        let firstCopy = Self.run(&dup, until: Self.t0 + 3600)
        #expect(Self.monitorCalls(firstCopy) == ["intervalDidStart a"])
        let delivery = try #require(firstCopy.compactMap { if case .call(_, let d, _) = $0 { d } else { nil } }.first)
        #expect(Self.monitorCalls(dup.apply(.callEnded(delivery: delivery + 1, completed: true, response: nil))).isEmpty, "another call's end")
        #expect(Self.monitorCalls(dup.apply(.callEnded(delivery: delivery, completed: false, response: nil))) == ["intervalDidStart a"])
        #expect(Self.monitorCalls(Self.run(&dup, until: Self.t0 + 7200)) == ["intervalDidEnd a"])

        // Batch: both callbacks held and made together at the next 00:05 local (23:05 UTC), across midnight.
        var batch = Self.os(faults: [FieldFault(kind: .batchUntil(hour: 0, minute: 5))])
        _ = batch.apply(.registrations([reg]))
        let batched = Self.run(&batch, until: Self.t0 + 86_400)
        #expect(Self.monitorCalls(batched) == ["intervalDidStart a", "intervalDidEnd a"])
        #expect(batch.journal.contains(.clock(now: Self.t0 + 15 * 3600 + 300)))
    }

    @Test func aReorderSwapsAnEndAndTheNextStartAtOneInstant() {
        // Back-to-back daily intervals 10:00-10:00 (24 h): registered at 09:00 inside one, which
        // starts at once; at 10:00 it ends and the next starts together, and the fault swaps them.
        var os = Self.os(faults: [FieldFault(kind: .reorderAtBoundary)])
        #expect(Self.monitorCalls(os.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(10, 0), repeats: true)]))) == ["intervalDidStart a"])
        let effects = Self.run(&os, until: Self.t0 + 3600 + 1)
        #expect(Self.monitorCalls(effects) == ["intervalDidStart a", "intervalDidEnd a"])
        #expect(effects.contains(.record(.callbacksReordered, ["activity": "a", "fault": "reorder", "rule": "os.faults[0]"])))
        var plain = Self.os()
        _ = plain.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(10, 0), repeats: true)]))
        #expect(Self.monitorCalls(Self.run(&plain, until: Self.t0 + 3600 + 1)) == ["intervalDidEnd a", "intervalDidStart a"])
    }

    @Test func killMidCallMakesTheCallAndKillsIt() {
        var os = Self.os(faults: [FieldFault(kind: .killMidCall, callbacks: ["shieldAction"])])
        _ = os.apply(.shields(Self.shieldUnion(["com.video"])))
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 60, label: [:])))
        let effects = os.apply(.user(.pressShieldButton(.primaryButtonPressed, label: [:])))
        guard case .call(_, let delivery, _)? = effects.dropLast().last else {
            Issue.record("\(effects)")
            return
        }
        #expect(effects.last == .killCall(delivery: delivery))
        #expect(os.apply(.callEnded(delivery: delivery, completed: false, response: nil)).contains {
            if case .record(.shieldActionLost, _) = $0 { return true } else { return false }
        })
    }

    @Test func faultsAreSelectedByCallbackActivityWindowChanceAndCount() {
        let call = ExtensionCall.monitor(.intervalDidEnd, activity: "focuspledge_s-1-2", event: nil)
        #expect(FieldFault(kind: .drop, callbacks: ["intervalDidEnd"]).selects(call, now: 0))
        #expect(!FieldFault(kind: .drop, callbacks: ["intervalDidStart"]).selects(call, now: 0))
        #expect(FieldFault(kind: .drop, activityPattern: "focuspledge_*").selects(call, now: 0))
        #expect(!FieldFault(kind: .drop, activityPattern: "other_*").selects(call, now: 0))
        #expect(!FieldFault(kind: .drop, window: 10...20).selects(call, now: 5))
        #expect(FieldFault.matches("a-b-c", "a*c") && FieldFault.matches("abc", "*") && !FieldFault.matches("abc", "a*d"))
        // Defaults faults act inside the processes (App Group level), never on an extension call,
        // whatever their filters say (a torn_write that also dropped calls would hide its own effect).
        #expect(!FieldFault(kind: .tornWrite).selects(call, now: 0))
        #expect(!FieldFault(kind: .staleDefaults(seconds: 300), callbacks: ["intervalDidEnd"]).selects(call, now: 0))
        // Chance 0 never, count 1 once; the same seed makes the same choices.
        var never = Self.os(faults: [FieldFault(kind: .drop, probability: 0)])
        _ = never.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(10, 30), repeats: true)]))
        #expect(Self.monitorCalls(Self.run(&never, until: Self.t0 + 3 * 86_400)).count == 6)
        var once = Self.os(faults: [FieldFault(kind: .drop, maxCount: 1)])
        _ = once.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(10, 30), repeats: true)]))
        #expect(Self.monitorCalls(Self.run(&once, until: Self.t0 + 3 * 86_400)).count == 5)
        func half() -> [String] {
            var os = Self.os(faults: [FieldFault(kind: .drop, probability: 0.5)])
            _ = os.apply(.registrations([Self.registration("a", Self.hm(10, 0), Self.hm(10, 30), repeats: true)]))
            return Self.monitorCalls(Self.run(&os, until: Self.t0 + 20 * 86_400))
        }
        #expect(half() == half())
        #expect((10...30).contains(half().count))
    }

    /// Budgets: `after` lets the first N selected calls through, `per: day` counts
    /// afresh each local day, `maxCount` bounds acts per period.
    @Test func faultBudgetsCountPerRunOrPerLocalDay() {
        let daily = Self.registration("a", Self.hm(10, 0), Self.hm(10, 30), repeats: true)
        func calls(_ rule: FieldFault) -> [String] {
            var os = Self.os(faults: [rule])
            _ = os.apply(.registrations([daily]))
            return Self.monitorCalls(Self.run(&os, until: Self.t0 + 3 * 86_400))
        }
        var afterOneRun = FieldFault(kind: .drop)
        afterOneRun.after = 1
        #expect(calls(afterOneRun) == ["intervalDidStart a"], "the first call of the run passes, every later one is dropped")
        var afterOnePerDay = afterOneRun
        afterOnePerDay.per = .day
        #expect(calls(afterOnePerDay) == Array(repeating: "intervalDidStart a", count: 3), "each day's first call passes")
        var oncePerDay = FieldFault(kind: .drop, maxCount: 1)
        oncePerDay.per = .day
        #expect(calls(oncePerDay) == Array(repeating: "intervalDidEnd a", count: 3), "one drop a day: each day's first call")
        #expect(calls(FieldFault(kind: .drop, maxCount: 1)).count == 5, "per run: one drop in all")
    }

    @Test func aMissingExtensionIsRecordedNotCalled() {
        var os = Self.os([.deviceActivityMonitor])
        _ = os.apply(.shields(Self.shieldUnion(["com.video"])))
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 60, label: [:])))
        let effects = os.apply(.user(.pressShieldButton(.primaryButtonPressed, label: [:])))
        #expect(effects.contains(.record(.shieldClosedApp, ["app": "com.video", "why": "no shield-action extension"])))
    }

    @Test func theBoundaryCacheNeverChangesAnAnswer() {
        let tz = TimeZone(identifier: Self.berlin)!
        let records = [
            Self.registration("a", Self.hm(10, 0), Self.hm(10, 0), repeats: true),
            Self.registration("b", Self.hm(23, 30), Self.hm(1, 15), repeats: true, warning: ScheduleComponents(minute: 5)),
            Self.registration("c", Self.hm(9, 30), Self.hm(11, 0)),
        ]
        for record in records {
            var state = ActivityState(record: record)
            var t = Self.t0 - 3600
            // Over five weeks (the cache is refilled several times), in uneven steps, each query
            // starting at the last boundary the previous one returned (a boundary is never twice).
            var queries = 0
            while t < Self.t0 + 35 * 86_400 {
                let step = Double((queries % 7 + 1) * 3 * 3600)
                let direct = state.boundaries(after: t, through: t + step, timeZone: tz)
                #expect(state.cachedBoundaries(after: t, through: t + step, timeZone: tz) == direct, "\(record.activity) at \(t)")
                t = direct.last?.at ?? t + step
                queries += 1
            }
        }
    }
}
