@_spi(ScreenTimeHarness) import DeviceActivity
import Foundation
@_spi(ScreenTimeHarness) import ManagedSettings
import ScreenTimeModel
import ScreenTimeOS
import OSFiles
import Testing

@Suite(.timeLimit(.minutes(3))) struct DeviceActivityTests {
    typealias MonitoringError = DeviceActivity.DeviceActivityCenter.MonitoringError

    func schedule(_ h1: Int, _ m1: Int, _ h2: Int, _ m2: Int, repeats: Bool = true) -> DeviceActivity.DeviceActivitySchedule {
        DeviceActivity.DeviceActivitySchedule(
            intervalStart: DateComponents(hour: h1, minute: m1), intervalEnd: DateComponents(hour: h2, minute: m2), repeats: repeats)
    }

    @Test func startMonitoringRejectsFourteenMinutesAndEightDaysAndWritesNothing() throws {
        let t = try TestDevice()
        let center = DeviceActivity.DeviceActivityCenter(device: t.device)
        #expect(throws: MonitoringError.intervalTooShort) { try center.startMonitoring(DeviceActivityName("short"), during: schedule(9, 0, 9, 14)) }
        let eightDays = DeviceActivity.DeviceActivitySchedule(
            intervalStart: DateComponents(year: 2026, month: 3, day: 2, hour: 9), intervalEnd: DateComponents(year: 2026, month: 3, day: 10, hour: 9),
            repeats: false)
        #expect(throws: MonitoringError.intervalTooLong) { try center.startMonitoring(DeviceActivityName("long"), during: eightDays) }
        #expect(center.activities.isEmpty)
        try center.startMonitoring(DeviceActivityName("ok"), during: schedule(9, 0, 9, 15))
        #expect(center.activities == [DeviceActivityName("ok")])
    }

    /// On iOS the OS refuses and so knows; here the framework files each refusal for the OS
    /// (`system/deviceactivity-refused/`), which the run records.
    @Test func aRefusedStartMonitoringIsFiledForTheOS() throws {
        let t = try TestDevice()
        let center = DeviceActivity.DeviceActivityCenter(device: t.device)
        #expect(throws: MonitoringError.intervalTooShort) { try center.startMonitoring(DeviceActivityName("short"), during: schedule(9, 0, 9, 14)) }
        let filed = try t.device.area(OSPaths.deviceActivityRefusals).readAll(MonitoringRefusalRecord.self)
        #expect(filed.errors.isEmpty)
        #expect(filed.records.map(\.record.activity) == ["short"])
        #expect(filed.records.first?.record.error == "intervalTooShort")
    }

    @Test func aTwentyFirstActivityIsRefused() throws {
        let t = try TestDevice()
        let center = DeviceActivity.DeviceActivityCenter(device: t.device)
        for i in 1...20 { try center.startMonitoring(DeviceActivityName("a\(i)"), during: schedule(9, 0, 10, 0)) }
        let fromExtension = DeviceActivity.DeviceActivityCenter(device: try t.otherProcess("monitor-extension"))
        #expect(throws: MonitoringError.excessiveActivities) { try fromExtension.startMonitoring(DeviceActivityName("a21"), during: schedule(9, 0, 10, 0)) }
        try fromExtension.startMonitoring(DeviceActivityName("a20"), during: schedule(11, 0, 12, 0))  // replacing is fine
        center.stopMonitoring([DeviceActivityName("a1")])
        try fromExtension.startMonitoring(DeviceActivityName("a21"), during: schedule(9, 0, 10, 0))
        #expect(center.activities.count == 20)
        center.stopMonitoring()
        #expect(center.activities.isEmpty)
    }

    @Test func aRegistrationRoundTripsItsDateComponentsAndEvents() throws {
        let t = try TestDevice(timeZone: "Europe/Berlin")
        let center = DeviceActivity.DeviceActivityCenter(device: t.device)
        let s = DeviceActivity.DeviceActivitySchedule(
            intervalStart: DateComponents(calendar: Calendar(identifier: .gregorian), hour: 22, minute: 30),
            intervalEnd: DateComponents(hour: 6, minute: 0, weekday: 2), repeats: true, warningTime: DateComponents(minute: 5))
        let event = DeviceActivityEvent(applications: [ApplicationToken(bundleIdentifier: "com.social.feed")], threshold: DateComponents(minute: 30))
        try center.startMonitoring(DeviceActivityName("night/1"), during: s, events: [DeviceActivityEvent.Name("social"): event])
        #expect(center.schedule(for: DeviceActivityName("night/1")) == s)
        #expect(center.events(for: DeviceActivityName("night/1")) == [DeviceActivityEvent.Name("social"): event])
        let regs = DeviceActivityReader.registrations(on: t.device)
        #expect(regs.errors.isEmpty)
        let r = try #require(regs.records.first)
        #expect(r.activity == "night/1")
        #expect(r.timeZone == "Europe/Berlin")
        #expect(r.registeredBy.process == "test-app")
        #expect(r.schedule.intervalStart == ScheduleComponents(calendar: "gregorian", hour: 22, minute: 30))
        #expect(r.events["social"]?.applications == [OpaqueToken.encode(.application, "com.social.feed")])
        #expect(t.exists("system/deviceactivity/night%2F1.json"))
        // The OS's reader gets the same registration, first interval included.
        let read = try #require(DeviceActivityReader.registrations(on: t.device).records.first)
        #expect(read.firstInterval == r.firstInterval)
    }

    @Test func monitoringIsRefusedWhenTheOSSaysUnauthorized() throws {
        let t = try TestDevice()
        let center = DeviceActivity.DeviceActivityCenter(device: t.device)
        // Only an approved status allows monitoring: not yet asked is not approved either.
        try FamilyControlsAuthority.setStatus("notDetermined", on: t.device)
        #expect(throws: MonitoringError.unauthorized) { try center.startMonitoring(DeviceActivityName("x"), during: schedule(9, 0, 10, 0)) }
        try FamilyControlsAuthority.setStatus("denied", on: t.device)
        #expect(throws: MonitoringError.unauthorized) { try center.startMonitoring(DeviceActivityName("x"), during: schedule(9, 0, 10, 0)) }
        try FamilyControlsAuthority.setStatus("approved", on: t.device)
        try center.startMonitoring(DeviceActivityName("x"), during: schedule(9, 0, 10, 0))
    }

    @Test func errorsReadLikeApplesAndSuggestAFix() {
        let e: any Error = MonitoringError.intervalTooShort
        #expect(e.localizedDescription.contains("intervalTooShort"))
        #expect(MonitoringError.intervalTooShort.recoverySuggestion?.contains("warningTime") == true)
    }
}
