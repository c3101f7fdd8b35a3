import Foundation
@testable import HarnessKit
import ScreenTimeModel
import SystemKit
import Testing

/// `os.rules` (documented alternatives seen on real devices) and the fault rules' device-state and
/// relation selectors (`when`, `following`), without processes.
@Suite(.timeLimit(.minutes(1))) struct DeviceOSRulesTests {
    typealias T = DeviceOSTests
    static let t0 = DeviceOSTests.t0

    static func os(rules: OSRules = OSRules(), faults: [FieldFault] = []) -> DeviceOS {
        var c = DeviceOS.Configuration(
            timeZone: T.berlin, extensionPoints: Set(ExtensionPoint.allCases), backgroundGraceSeconds: 10, faults: faults, seed: 7)
        c.rules = rules
        return DeviceOS(configuration: c, now: t0)
    }

    static func records(_ effects: [OSEffect], _ name: String) -> [[String: String]] {
        effects.compactMap { if case .record(let n, let f) = $0, n.rawValue == name { f } else { nil } }
    }

    // MARK: os.rules.startAtRegistration

    /// foqos's field report: an interval whose start is the moment it is registered (components of
    /// the current hour and minute) is not reliably treated as running.
    @Test func anIntervalStartingAtItsRegistrationIsMissedUnderTheMissedRule() {
        // 09:00:30 Berlin; the app asks for 09:00-09:45 (the current minute): the start matched 30 s ago.
        let at = Self.t0 + 30
        let reg = T.registration("a", T.hm(9, 0), T.hm(9, 45), at: at)
        var documented = Self.os()
        _ = documented.apply(.clock(now: at))
        var calls = T.monitorCalls(documented.apply(.registrations([reg])) + T.run(&documented, until: Self.t0 + 3600))
        #expect(calls == ["intervalDidStart a", "intervalDidEnd a"], "the default: it runs from the registration")

        var missed = Self.os(rules: OSRules(startAtRegistration: .missed))
        _ = missed.apply(.clock(now: at))
        let effects = missed.apply(.registrations([reg]))
        calls = T.monitorCalls(effects + T.run(&missed, until: Self.t0 + 3600))
        #expect(calls.isEmpty, "no start and no end for the missed interval: \(calls)")
        #expect(!missed.isMonitored("a"))
        let line = try? #require(Self.records(effects, "interval_missed").first)
        #expect(line?["rule"] == "os.rules.startAtRegistration" && line?["activity"] == "a")
    }

    @Test func theMissedRuleLeavesEarlierStartsAndLaterIntervalsAlone() {
        var os = Self.os(rules: OSRules(startAtRegistration: .missed))
        // Started at 08:00, an hour before the registration: not "the current moment", it runs.
        #expect(T.monitorCalls(os.apply(.registrations([T.registration("early", T.hm(8, 0), T.hm(10, 0))]))) == ["intervalDidStart early"])
        // A repeating schedule missed today comes back tomorrow.
        let at = Self.t0 + 20
        _ = os.apply(.clock(now: at))
        let daily = T.registration("daily", T.hm(9, 0), T.hm(9, 30), repeats: true, at: at)
        var calls = T.monitorCalls(os.apply(.registrations([daily])) + T.run(&os, until: Self.t0 + 3600))
        #expect(calls == ["intervalDidEnd early"], "today's daily interval missed: \(calls)")
        calls = T.monitorCalls(T.run(&os, until: Self.t0 + 86_400 + 3600))
        #expect(calls == ["intervalDidStart daily", "intervalDidEnd daily"], "tomorrow's runs: \(calls)")
        // A future start is not the current moment either.
        var future = Self.os(rules: OSRules(startAtRegistration: .missed))
        _ = future.apply(.registrations([T.registration("f", T.hm(9, 1), T.hm(9, 30))]))
        #expect(T.monitorCalls(T.run(&future, until: Self.t0 + 3600)) == ["intervalDidStart f", "intervalDidEnd f"])
    }

    // MARK: os.rules.thresholds

    /// iOS 26.2 RC field report: every eventDidReachThreshold fired at the first pickup of the day.
    @Test func atFirstUseEveryEventReachesItsThresholdAtTheFirstUseOfTheInterval() {
        let video = ActivityEventRecord(applications: [OpaqueToken.encode(.application, "com.video")], threshold: ScheduleComponents(minute: 10))
        let news = ActivityEventRecord(applications: [OpaqueToken.encode(.application, "com.news")], threshold: ScheduleComponents(hour: 1))
        let reg = T.registration("a", T.hm(10, 0), T.hm(11, 0), repeats: true, warning: ScheduleComponents(minute: 2), events: ["limit": video, "news": news])
        var os = Self.os(rules: OSRules(thresholds: .atFirstUse))
        _ = os.apply(.registrations([reg]))
        _ = T.run(&os, until: Self.t0 + 3600 + 60)
        // The user opens a calculator for 5 s: not an app of either event.
        let first = os.apply(.user(.useApp(bundleIdentifier: "com.calculator", seconds: 5, label: ["sid": "s"])))
        #expect(T.monitorCalls(first) == ["eventDidReachThreshold a limit", "eventDidReachThreshold a news"])
        let labels = first.compactMap { if case .call(_, _, let l) = $0 { l } else { nil } }
        #expect(labels.allSatisfy { $0["rule"] == "os.rules.thresholds" && $0["sid"] == "s" })
        // Once per interval: later use in it fires nothing more, even past the real threshold (nor
        // the threshold's warning after it).
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 20 * 60, label: [:])))
        let later = T.monitorCalls(T.run(&os, until: Self.t0 + 2 * 3600))
        #expect(later.allSatisfy { !$0.hasPrefix("eventDidReachThreshold") && !$0.hasPrefix("eventWillReachThresholdWarning") }, "\(later)")
        // The next day's interval: again at its first use.
        _ = T.run(&os, until: Self.t0 + 86_400 + 3600 + 60)
        #expect(T.monitorCalls(os.apply(.user(.useApp(bundleIdentifier: "com.calculator", seconds: 5, label: [:])))).count == 2)
        // Opening the host is a use of the device too (the user picked the phone up).
        _ = T.run(&os, until: Self.t0 + 2 * 86_400 + 3600 + 60)
        #expect(T.monitorCalls(os.apply(.user(.openHost))).count == 2)
        // Use outside an interval fires nothing.
        var outside = Self.os(rules: OSRules(thresholds: .atFirstUse))
        _ = outside.apply(.registrations([reg]))
        #expect(T.monitorCalls(outside.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 5, label: [:])))).isEmpty)
    }

    @Test func byUseADefaultFirstUseFiresNothing() {
        let video = ActivityEventRecord(applications: [OpaqueToken.encode(.application, "com.video")], threshold: ScheduleComponents(minute: 10))
        var os = Self.os()
        _ = os.apply(.registrations([T.registration("a", T.hm(8, 0), T.hm(11, 0), events: ["limit": video])]))
        #expect(T.monitorCalls(os.apply(.user(.useApp(bundleIdentifier: "com.calculator", seconds: 5, label: [:])))).isEmpty)
    }

    // MARK: Fault selectors: device state and relation

    @Test func whenSelectsCallsByTheDevicesLockAndTheHostsState() {
        let reg = T.registration("a", T.hm(10, 0), T.hm(10, 30), repeats: true)
        var lockedRule = FieldFault(kind: .drop)
        lockedRule.when = [.beforeFirstUnlock]
        var os = Self.os(faults: [lockedRule])
        _ = os.apply(.registrations([reg]))
        _ = os.apply(.reboot)
        _ = os.apply(.deviceLocked)
        // Locked through today's interval: both calls dropped; unlocked tomorrow: both made.
        var effects = T.run(&os, until: Self.t0 + 3 * 3600)
        #expect(T.monitorCalls(effects).isEmpty)
        #expect(Self.records(effects, "callback_dropped").count == 2)
        _ = os.apply(.firstUnlock)
        effects = T.run(&os, until: Self.t0 + 86_400 + 3 * 3600)
        #expect(T.monitorCalls(effects) == ["intervalDidStart a", "intervalDidEnd a"])

        var hostRule = FieldFault(kind: .drop, callbacks: ["intervalDidEnd"])
        hostRule.when = [.hostNotRunning]
        var host = Self.os(faults: [hostRule])
        _ = host.apply(.registrations([reg]))
        _ = host.apply(.hostLaunched)  // in front: today's end is made
        #expect(T.monitorCalls(T.run(&host, until: Self.t0 + 3 * 3600)) == ["intervalDidStart a", "intervalDidEnd a"])
        _ = host.apply(.hostExited)  // not running: tomorrow's end is dropped
        #expect(T.monitorCalls(T.run(&host, until: Self.t0 + 86_400 + 3 * 3600)) == ["intervalDidStart a"])
    }

    @Test func followingSelectsCallsWithinATimeAfterAnotherEvent() {
        let reg = T.registration("a", T.hm(10, 0), T.hm(10, 30), repeats: true)
        // The first intervalDidStart within 2 h after a reboot is dropped; later ones are made.
        var rule = FieldFault(kind: .drop, callbacks: ["intervalDidStart"])
        rule.following = FieldFault.Relation(event: "reboot", withinSeconds: 2 * 3600)
        var os = Self.os(faults: [rule])
        _ = os.apply(.registrations([reg]))
        _ = os.apply(.reboot)  // 09:00; today's start at 10:00 is an hour after it
        #expect(T.monitorCalls(T.run(&os, until: Self.t0 + 3 * 3600)) == ["intervalDidEnd a"])
        #expect(T.monitorCalls(T.run(&os, until: Self.t0 + 86_400 + 3 * 3600)) == ["intervalDidStart a", "intervalDidEnd a"])

        // Relation to a callback: an intervalDidStart right after an intervalDidEnd (back-to-back
        // intervals) is delayed; the first start, with no end before it, is not.
        var afterEnd = FieldFault(kind: .delay(60...60), callbacks: ["intervalDidStart"])
        afterEnd.following = FieldFault.Relation(event: "intervalDidEnd", withinSeconds: 1)
        var b2b = Self.os(faults: [afterEnd])
        #expect(T.monitorCalls(b2b.apply(.registrations([T.registration("b", T.hm(10, 0), T.hm(10, 0), repeats: true)]))) == ["intervalDidStart b"])
        let effects = T.run(&b2b, until: Self.t0 + 3600)
        #expect(T.monitorCalls(effects) == ["intervalDidEnd b"])
        #expect(Self.records(effects, "callback_held").first?["callback"] == "intervalDidStart")
    }

    // MARK: Past activity (includesPastActivity, os.rules.pastActivity)

    /// News read 09:05-09:13 and video used 09:14-09:20; at 09:20 the app registers 09:15-12:00 with a video event of
    /// `thresholdMinutes`, then the user watches video again. Returns the minutes after 09:20 at
    /// which eventDidReachThreshold came (0 = at the registration) and its call's label.
    static func pastActivityRun(rules: OSRules = OSRules(), includesPast: Bool, thresholdMinutes: Int) -> (minutes: Double, label: [String: String])? {
        var os = Self.os(rules: rules)
        _ = T.run(&os, until: Self.t0 + 5 * 60)
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.news", seconds: 8 * 60, label: [:])))  // not the event's app: never counts
        _ = T.run(&os, until: Self.t0 + 14 * 60)
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 6 * 60, label: [:])))
        let at = Self.t0 + 20 * 60
        _ = T.run(&os, until: at)
        let event = ActivityEventRecord(
            applications: [OpaqueToken.encode(.application, "com.video")], threshold: ScheduleComponents(minute: thresholdMinutes),
            includesPastActivity: includesPast)
        func threshold(_ effects: [OSEffect]) -> [String: String]? {
            for e in effects { if case .call(.monitor(.eventDidReachThreshold, _, _), _, let label) = e { return label } }
            return nil
        }
        if let l = threshold(os.apply(.registrations([T.registration("a", T.hm(9, 15), T.hm(12, 0), events: ["limit": event], at: at)]))) {
            return (0, l)
        }
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 30 * 60, label: [:])))
        var steps = 0
        while let next = os.nextDeadline(), next <= at + 3600, steps < 1000 {
            steps += 1
            if let l = threshold(os.apply(.clock(now: next))) { return ((os.now - at) / 60, l) }
        }
        return nil
    }

    /// Apple, `includesPastActivity`: with `true`, use earlier in the interval — from the round
    /// hour at or before its start — counts; without it, none. Devices before iOS 17.4 counted the
    /// interval's earlier use always (forum thread 726331, "threshold instantly breached").
    @Test func pastActivityCountsAsTheEventAsksOrAlwaysUnderTheRule() throws {
        // Default, the event without past activity: 10 minutes from the registration.
        #expect(Self.pastActivityRun(includesPast: false, thresholdMinutes: 10)?.minutes == 10)
        // includesPastActivity: the 6 minutes from 09:14 count (the round hour is 09:00): 4 more.
        let asked = try #require(Self.pastActivityRun(includesPast: true, thresholdMinutes: 10))
        #expect(asked.minutes == 4)
        #expect(asked.label["rule"] == nil, "documented behaviour, not a rule variant")
        // os.rules.pastActivity: always — from the interval's start (09:15): 5 minutes count, 5 more.
        let always = try #require(Self.pastActivityRun(rules: OSRules(pastActivity: .always), includesPast: false, thresholdMinutes: 10))
        #expect(always.minutes == 5)
        #expect(always.label["rule"] == "os.rules.pastActivity")
        // Instantly breached: a 5-minute threshold is reached at the registration.
        let breached = try #require(Self.pastActivityRun(rules: OSRules(pastActivity: .always), includesPast: false, thresholdMinutes: 5))
        #expect(breached.minutes == 0 && breached.label["pastActivitySeconds"] == "300.0")
        // An interval that starts at its own start time has no earlier use in it to count.
        var os = Self.os(rules: OSRules(pastActivity: .always))
        _ = os.apply(.user(.useApp(bundleIdentifier: "com.video", seconds: 50 * 60, label: [:])))
        let event = ActivityEventRecord(applications: [OpaqueToken.encode(.application, "com.video")], threshold: ScheduleComponents(minute: 5))
        _ = os.apply(.registrations([T.registration("b", T.hm(9, 30), T.hm(12, 0), events: ["limit": event])]))
        let calls = T.monitorCalls(T.run(&os, until: Self.t0 + 3600))
        #expect(calls == ["intervalDidStart b", "eventDidReachThreshold b limit"])
        #expect(os.journal.contains(.clock(now: Self.t0 + 35 * 60)), "5 minutes of use after 09:30, not before")
    }
}
