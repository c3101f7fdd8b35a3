import AppGroup
import Foundation
@testable import HarnessKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The harness is the clock file's only writer: it keeps its own time and reports, in words,
/// anyone else's change to the file — never a touch with the same bytes.
@Suite(.timeLimit(.minutes(1))) struct HarnessClockTests {
    final class Root {
        let path: String
        let root: DeviceRoot
        init() throws {
            path = NSTemporaryDirectory() + "sth-clock-\(getpid())-\(UUID().uuidString.prefix(8))"
            root = try DeviceRoot(path: path)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var clock: String { path + "/" + DeviceClock.fileName }
    }

    static let stepped = DeviceClock.Configuration(epochUnixSeconds: 1_771_315_200, rate: 1, offsetSeconds: 90, mode: DeviceClock.Configuration.steppedMode)

    @Test func itsTimeIsWhatItWroteNotWhatTheFileSays() throws {
        let r = try Root()
        let clock = HarnessClock()
        try clock.write(Self.stepped, to: r.root)
        #expect(clock.nowUnixSeconds() == 1_771_315_290)
        #expect(clock.tamper() == nil)
        // Someone else moves the file's time: the harness's time stays, the change is reported.
        var other = Self.stepped
        other.offsetSeconds = 86_400
        try DeviceClock.write(other, to: r.root)
        #expect(clock.nowUnixSeconds() == 1_771_315_290)
        let what = try #require(clock.tamper())
        #expect(what.contains("overwritten by another process"), "\(what)")
        #expect(what.contains("2026-02-18T08:00:00Z") && what.contains("2026-02-17T08:01:30Z"), "names both times: \(what)")
    }

    @Test func aTouchWithTheSameBytesIsNoChangeButRemovalAndGarbageAre() throws {
        let r = try Root()
        let clock = HarnessClock()
        try clock.write(Self.stepped, to: r.root)
        // The same bytes again (a new inode, new stamps): not a change of time.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: r.clock))
        try bytes.write(to: URL(fileURLWithPath: r.clock + ".t"))
        #expect(rename(r.clock + ".t", r.clock) == 0)
        #expect(clock.tamper() == nil)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: r.clock))
        #expect(clock.tamper()?.contains("not a clock") == true)
        #expect(unlink(r.clock) == 0)
        #expect(clock.tamper()?.contains("removed") == true)
    }

    /// A change made just before the harness's own next write is not hidden by that write.
    @Test func aChangeBeforeTheHarnesssNextWriteIsStillReported() throws {
        let r = try Root()
        let clock = HarnessClock()
        try clock.write(Self.stepped, to: r.root)
        var other = Self.stepped
        other.offsetSeconds = 7
        try DeviceClock.write(other, to: r.root)
        var next = Self.stepped
        next.offsetSeconds = 120
        try clock.write(next, to: r.root)
        #expect(clock.nowUnixSeconds() == 1_771_315_320)
        #expect(clock.tamper()?.contains("overwritten by another process") == true)
    }
}
