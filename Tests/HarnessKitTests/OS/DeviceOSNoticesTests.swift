import Foundation
@testable import HarnessKit
import SystemKit
import Testing

/// What the emulated iOS tells the host besides taps (`AppNotices`): its lifecycle, the URLs of
/// its schemes, significant time changes — only what the host's role declares it hears.
@Suite(.timeLimit(.minutes(1))) struct DeviceOSNoticesTests {
    /// 2026-02-17 08:00:00 UTC = 09:00 in Berlin.
    static let t0 = 1_771_315_200.0

    static func os(_ notices: AppNotices) -> DeviceOS {
        var c = DeviceOS.Configuration(timeZone: "Europe/Berlin", extensionPoints: Set(ExtensionPoint.allCases), backgroundGraceSeconds: 10, seed: 7)
        c.hostNotices = notices
        return DeviceOS(configuration: c, now: t0)
    }

    static func told(_ effects: [OSEffect]) -> [String] {
        effects.compactMap {
            guard case .tellHost(let action, let fields) = $0 else { return nil }
            return ([action] + fields.keys.sorted().map { "\($0)=\(fields[$0]!)" }).joined(separator: " ")
        }
    }

    @Test func aHostThatObservesItsLifecycleIsToldOfEachChangeOnce() {
        var os = Self.os(AppNotices(lifecycle: true))
        let open = os.apply(.user(.openHost))
        #expect(open.first == .launchHost)
        #expect(Self.told(open) == ["app_state state=active"])
        #expect(Self.told(os.apply(.user(.openHost))).isEmpty, "already in the foreground")
        #expect(Self.told(os.apply(.user(.leaveHost))) == ["app_state state=background"])
        let later = os.apply(.clock(now: Self.t0 + 60))
        #expect(later.contains(.suspendHost))
        #expect(Self.told(later).isEmpty)
        let back = os.apply(.user(.openHost))
        #expect(back.first == .resumeHost)
        #expect(Self.told(back) == ["app_state state=active"], "told after it is continued")
    }

    @Test func aHostThatDoesNotObserveItHearsNothing() {
        var os = Self.os(.none)
        let effects = os.apply(.user(.openHost)) + os.apply(.user(.leaveHost)) + os.apply(.clock(now: Self.t0 + 86_400))
        #expect(Self.told(effects).isEmpty)
    }

    @Test func aURLOfARegisteredSchemeOpensTheHostAndAnyOtherIsNotHandled() {
        var os = Self.os(AppNotices(lifecycle: true, urlSchemes: ["pushin"]))
        let cold = os.apply(.user(.openURL("pushin://workout")))
        #expect(cold.first == .launchHost)
        #expect(Self.told(cold) == ["app_state state=active", "open_url url=pushin://workout"])
        _ = os.apply(.user(.leaveHost))
        let other = os.apply(.user(.openURL("https://example.com")))
        #expect(Self.told(other).isEmpty)
        #expect(other.contains(.record(.urlNotHandled, ["url": "https://example.com"])))
        #expect(Self.told(os.apply(.user(.openURL("PUSHIN://workout")))).last == "open_url url=PUSHIN://workout", "schemes are case-insensitive")
    }

    @Test func midnightAndATimeZoneChangeAreSignificantTimeChangesForARunningHost() {
        var os = Self.os(AppNotices(significantTimeChange: true))
        #expect(Self.told(os.apply(.clock(now: Self.t0 + 20 * 3600))).isEmpty, "the host is not running: it hears nothing")
        _ = os.apply(.user(.openHost))
        // Berlin midnight after 2026-02-18 04:00 local is 2026-02-19 00:00 local = 2026-02-18 23:00 UTC.
        let midnight = 1_771_455_600.0
        #expect(os.nextDeadline() == midnight, "the clock stops at local midnight")
        #expect(Self.told(os.apply(.clock(now: midnight - 1))).isEmpty)
        #expect(Self.told(os.apply(.clock(now: midnight))) == ["significant_time_change"])
        #expect(Self.told(os.apply(.timeZone("America/New_York"))) == ["significant_time_change"])
    }
}
