import HarnessKit
import SystemKit
import Testing

@Suite struct EmulatedOSTests {
    typealias R = EmulatedOS.Registration

    @Test func shieldsAreRecordedOnlyWhenTheyChange() {
        var os = EmulatedOS()
        #expect(os.observe(shielded: ["b", "a"], registrations: [], now: 0) == [.record("shields", ["apps": "a,b"])])
        #expect(os.observe(shielded: ["a", "b"], registrations: [], now: 1).isEmpty)
        #expect(os.observe(shielded: [], registrations: [], now: 2) == [.record("shields", ["apps": ""])])
    }

    @Test func intervalCallbacksComeOnceAtTheirTimes() {
        var os = EmulatedOS()
        let r = R(activity: "a", start: 100, end: 200)
        _ = os.observe(shielded: [], registrations: [r], now: 50)
        #expect(!os.isMonitored("a", now: 50))
        #expect(os.observe(shielded: [], registrations: [r], now: 100) == [
            .deliver(.monitor(.intervalDidStart, activity: "a", event: nil), label: ["activity": "a"]),
        ])
        #expect(os.isMonitored("a", now: 150))
        #expect(os.observe(shielded: [], registrations: [r], now: 150).isEmpty)
        #expect(os.observe(shielded: [], registrations: [r], now: 250) == [
            .deliver(.monitor(.intervalDidEnd, activity: "a", event: nil), label: ["activity": "a"]),
        ])
        #expect(os.observe(shielded: [], registrations: [r], now: 300).isEmpty)
        #expect(!os.isMonitored("a", now: 250))
    }

    @Test func stoppingAnOngoingIntervalDeliversIntervalDidEndAndAFinishedOneNothing() {
        var os = EmulatedOS()
        _ = os.observe(shielded: [], registrations: [R(activity: "a", start: 0, end: 100), R(activity: "b", start: 500, end: 600)], now: 10)
        #expect(os.observe(shielded: [], registrations: [], now: 20) == [
            .deliver(.monitor(.intervalDidEnd, activity: "a", event: nil), label: ["activity": "a", "why": "stopMonitoring"]),
        ])
    }

    @Test func aRescheduledRegistrationStartsOver() {
        var os = EmulatedOS()
        _ = os.observe(shielded: [], registrations: [R(activity: "a", start: 0, end: 100)], now: 10)
        let steps = os.observe(shielded: [], registrations: [R(activity: "a", start: 200, end: 300)], now: 210)
        #expect(steps == [.deliver(.monitor(.intervalDidStart, activity: "a", event: nil), label: ["activity": "a"])])
    }
}
