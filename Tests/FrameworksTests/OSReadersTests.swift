import AppGroup
import Foundation
import ScreenTimeModel
import ScreenTimeOS
import StandInKit
import StandInRuntime
import SystemKit
import Testing

/// What the emulated iOS reads back from the frameworks' files, and how a stand-in's device
/// (`LiveDevice`) writes them: every store counts toward the shield, a file that does not decode is
/// reported (never dropped), a write leaves the properties it does not name, an empty stop list
/// stops nothing, and an absolute interval covers its whole last second.
@Suite(.timeLimit(.minutes(1))) struct OSReadersTests {
    /// A host stand-in's device on `t`, and its run directory (for the caller to remove).
    static func live(_ t: TestDevice) throws -> (LiveDevice, String) {
        let (ctx, run) = try EffectVocabularyTests.context(t)
        return (LiveDevice(context: ctx), run)
    }

    @Test func theShieldIsTheUnionOfEveryStore() throws {
        let t = try TestDevice()
        let (live, run) = try Self.live(t)
        defer { try? FileManager.default.removeItem(atPath: run) }
        EffectInterpreter.perform([
            .setShield(ShieldWrite(applications: .set(["com.social.feed"]))),
            .setShield(ShieldWrite(store: "focus", applications: .set(["com.video"]))),
            .setShield(ShieldWrite(store: "night", webDomains: .set(["news.example"]))),
        ], on: live)
        let (union, errors) = ManagedSettingsReader.shieldUnion(on: t.device)
        #expect(errors.isEmpty)
        #expect(union.isShielded(application: "com.social.feed", category: nil))
        #expect(union.isShielded(application: "com.video", category: nil), "the named store's shield counts too")
        #expect(!union.isShielded(application: "com.other", category: nil))
        #expect(union.webDomains == ["news.example"])
    }

    @Test func aRegistrationThatDoesNotDecodeIsReportedWithItsPathAndTheOthersAreRead() throws {
        let t = try TestDevice()
        let (live, run) = try Self.live(t)
        defer { try? FileManager.default.removeItem(atPath: run) }
        let start = Date(timeIntervalSince1970: 1_772_442_000)
        try live.startMonitoring(activity: "good", start: start, end: start.addingTimeInterval(1800), repeats: false)
        try Data("{\"version\":1,\"activity\":".utf8).write(to: URL(fileURLWithPath: t.path + "/" + OSPaths.deviceActivity + "/bad.json"))
        let read = DeviceActivityReader.registrations(on: t.device)
        #expect(read.records.map(\.activity) == ["good"])
        #expect(read.errors.count == 1)
        #expect(read.errors.first?.contains("bad.json") == true, "\(read.errors)")
    }

    @Test func aShieldWriteLeavesThePropertiesItDoesNotName() throws {
        let t = try TestDevice()
        let (live, run) = try Self.live(t)
        defer { try? FileManager.default.removeItem(atPath: run) }
        try live.writeShield(ShieldWrite(store: "focus", webDomains: .set(["news.example"])))
        try live.writeShield(ShieldWrite(store: "focus", applications: .set(["com.video"])))
        var focus = try #require(ManagedSettingsReader.stores(on: t.device).records.first { $0.store == "focus" })
        #expect(focus.shield.webDomains?.isEmpty == false, "writing the apps put the domains back to nil")
        #expect(focus.shield.applications == [OpaqueToken.encode(.application, "com.video")])
        try live.writeShield(ShieldWrite(store: "focus", webDomains: .cleared))
        focus = try #require(ManagedSettingsReader.stores(on: t.device).records.first { $0.store == "focus" })
        #expect(focus.shield.webDomains == nil)
        #expect(focus.shield.applications == [OpaqueToken.encode(.application, "com.video")])
    }

    @Test func anEmptyStopListStopsNoActivity() throws {
        let t = try TestDevice()
        let (live, run) = try Self.live(t)
        defer { try? FileManager.default.removeItem(atPath: run) }
        let start = Date(timeIntervalSince1970: 1_772_442_000)
        for name in ["a", "b"] { try live.startMonitoring(activity: name, start: start, end: start.addingTimeInterval(1800), repeats: false) }
        // Apple's stopMonitoring() with no names stops every activity; the effect's empty list means none.
        EffectInterpreter.perform([.stopMonitoring([])], on: live)
        #expect(DeviceActivityReader.registrations(on: t.device).records.map(\.activity) == ["a", "b"])
        EffectInterpreter.perform([.stopMonitoring(["a"])], on: live)
        #expect(DeviceActivityReader.registrations(on: t.device).records.map(\.activity) == ["b"])
    }

    @Test func anAbsoluteIntervalStartsOnItsSecondAndCoversItsLastOne() throws {
        let t = try TestDevice()
        let (live, run) = try Self.live(t)
        defer { try? FileManager.default.removeItem(atPath: run) }
        // 09:00:10.4 to 09:15:20.2 UTC: the registration says 09:00:10 to 09:15:21.
        let start = Date(timeIntervalSince1970: 1_772_442_010.4)
        try live.startMonitoring(activity: "x", start: start, end: start.addingTimeInterval(909.8), repeats: false)
        let r = try #require(DeviceActivityReader.registrations(on: t.device).records.first)
        #expect([r.schedule.intervalStart.hour, r.schedule.intervalStart.minute, r.schedule.intervalStart.second] == [9, 0, 10])
        #expect([r.schedule.intervalEnd.hour, r.schedule.intervalEnd.minute, r.schedule.intervalEnd.second] == [9, 15, 21])
    }
}
