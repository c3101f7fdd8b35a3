import Foundation
import HarnessKit
import Testing

/// The `os:` section's new keys, and their errors (one line, file:line, what to fix).
@Suite(.timeLimit(.minutes(1))) struct ScenarioOSTests {
    static func parse(_ os: String, probe: String = "  steps: [{ at: 1m, do: read }]", duration: String = "1h") throws(ScenarioError) -> Scenario {
        try Scenario.parse(yaml: """
            name: t
            system: osprobe
            duration: \(duration)
            os: \(os)
            probe:
            \(probe)
            """, file: "t.yaml", systems: OSProbeTests.catalog)
    }

    @Test func authorizationRevocationsNotificationsTimeZonesAndDefaultsFaultsParse() throws {
        let s = try Self.parse("""
            { authorization: denied, revokeAt: [2h, 1h], notifications: provisional, timeZoneChanges: [{ at: 3h, to: Asia/Tokyo }],
                  faults: [{ kind: stale_defaults, stale: 5m, roles: [host] }, { kind: torn_write, window: [1m, 2m] }] }
            """, duration: "3h")
        #expect(s.os.authorization == "denied" && s.os.revokeAt == [3600, 7200] && s.os.notifications == "provisional")
        #expect(s.os.timeZoneChanges == [Scenario.TimeZoneChange(atSeconds: 10_800, timeZone: "Asia/Tokyo")])
        #expect(s.os.faults.map(\.name) == ["stale_defaults", "torn_write"])
        #expect(s.os.faults[0].kind == .staleDefaults(seconds: 300) && s.os.faults[0].roles == ["host"])
        #expect(s.os.faults[1].maxCount == 1)
    }

    @Test func badInputIsOneLineNamingFileLineAndTheFix() {
        let cases: [(String, String)] = [
            ("{ authorization: maybe }", "os.authorization: expected approved or denied, got 'maybe'"),
            ("{ notifications: yes please }", "os.notifications: expected authorized, denied or provisional"),
            ("{ timeZoneChanges: [{ at: 1h, to: Mars/Olympus }] }", "unknown time zone 'Mars/Olympus'"),
            ("{ faults: [{ kind: stale_defaults }] }", "missing required key 'stale'"),
            ("{ faults: [{ kind: torn_write, roles: [server] }] }", "unknown role 'server'; this system's device roles: host, monitor, shield, config"),
            ("{ faults: [{ kind: torn_write, callbacks: [intervalDidStart] }] }", "torn_write acts on the App Group, not on callbacks"),
            ("{ faults: [{ kind: drop, roles: [host] }] }", "roles: only for stale_defaults and torn_write"),
            ("{ faults: [{ kind: drop, stale: 1m }] }", "stale: only for kind stale_defaults"),
            // Issue 27: an offset past the run's end (1h + the default 45m settle) never happens.
            ("{ reboots: [100h] }", "os.reboots: 360000s after clock.start is after the run ends (duration 3600s + settle 2700s = 6300s)"),
            ("{ revokeAt: [2h] }", "os.revokeAt: 7200s after clock.start is after the run ends"),
            ("{ timeZoneChanges: [{ at: 2h, to: Asia/Tokyo }] }", "os.timeZoneChanges: 7200s after clock.start is after the run ends"),
        ]
        for (os, message) in cases {
            let e = #expect(throws: ScenarioError.self) { try Self.parse(os) }
            #expect(e?.description.hasPrefix("t.yaml:4:") == true, "\(e?.description ?? "")")
            #expect(e?.description.contains(message) == true, "\(e?.description ?? "") lacks \(message)")
            #expect(e?.description.contains("\n") == false)
        }
        let local = #expect(throws: ScenarioError.self) { try Self.parse("{}", probe: "  steps: [{ at: \"25:00\", do: read }]") }
        #expect(local?.description.contains("expected a local time \"HH:MM\"") == true, "\(local?.description ?? "")")
    }
}
