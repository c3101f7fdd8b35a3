@testable import AppGroup
@testable import DeviceProtocol
@testable import FaultInjection
import Testing

/// The temp-name format is written by `SafeDirectory.tempName` and read back by observers
/// (`DarwinNotificationCenter` learns a post's generation from it). A parser that drifted from the
/// writer would not break any notify test — observers would silently fall back to reading the
/// file — so the round trip is pinned here.
@Suite(.timeLimit(.minutes(1))) struct TempNameTests {
    @Test(arguments: ["plain", "com.focuspledge.failure", "a.b.c.d.e", "system.inbox.host-app"])
    func tagRoundTrips(name: String) {
        let t = SafeDirectory.tempName(for: name, tag: "g42")
        #expect(t.hasPrefix(".tmp."))
        #expect(SafeDirectory.tag(ofTempName: t, finalName: name) == "g42")
        #expect(DarwinNotificationCenter.generation(fromTempName: t, name: name) == 42)
    }

    @Test func untaggedForeignOrTruncatedNamesHaveNoTag() {
        #expect(SafeDirectory.tag(ofTempName: SafeDirectory.tempName(for: "x.plist"), finalName: "x.plist") == nil)
        #expect(SafeDirectory.tag(ofTempName: SafeDirectory.tempName(for: "other", tag: "g1"), finalName: "name") == nil)
        #expect(SafeDirectory.tag(ofTempName: ".tmp.abc.1.g1.name", finalName: "name") == nil)
        #expect(DarwinNotificationCenter.generation(fromTempName: SafeDirectory.tempName(for: "n", tag: "s7"), name: "n") == nil)
        let long = String(repeating: "x", count: 250)  // truncated to fit 255 bytes with the prefix
        #expect(SafeDirectory.tag(ofTempName: SafeDirectory.tempName(for: long, tag: "g1"), finalName: long) == nil)
    }
}
