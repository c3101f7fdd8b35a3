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
        #expect(try Self.parse("{ reboots: [10m], lockedAfterReboot: 30m }").os.lockedAfterReboot == 1_800)
        #expect(try Self.parse("{ reboots: [10m] }").os.lockedAfterReboot == nil)
        let budget = try Self.parse("{ faults: [{ kind: drop, callbacks: [eventDidReachThreshold], after: 3, per: day }] }")
        #expect(budget.os.faults.first?.after == 3 && budget.os.faults.first?.per == .day)
        // Rule variants, device-state and relation selectors.
        #expect(try Self.parse("{}").os.rules == OSRules())
        let rules = try Self.parse("{ rules: { startAtRegistration: missed, thresholds: atFirstUse } }").os.rules
        #expect(rules == OSRules(startAtRegistration: .missed, thresholds: .atFirstUse))
        #expect(rules.changed == ["startAtRegistration=missed", "thresholds=atFirstUse"])
        #expect(try Self.parse("{ rules: { pastActivity: always } }").os.rules == OSRules(pastActivity: .always))
        let selectors = try Self.parse("""
            { reboots: [10m], lockedAfterReboot: 5m,
              faults: [{ kind: drop, when: [beforeFirstUnlock, hostSuspended] }, { kind: drop, following: { event: reboot, within: 10m } },
                       { kind: delay, delay: [1m, 1m], following: { event: intervalDidEnd, within: 1s } }] }
            """)
        #expect(selectors.os.faults[0].when == [.beforeFirstUnlock, .hostSuspended])
        #expect(selectors.os.faults[1].following == FieldFault.Relation(event: "reboot", withinSeconds: 600))
        #expect(selectors.os.faults[2].following == FieldFault.Relation(event: "intervalDidEnd", withinSeconds: 1))
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
            // An offset past the run's end (1h + the default 45m settle) never happens.
            ("{ reboots: [100h] }", "os.reboots: 360000s after clock.start is after the run ends (duration 3600s + settle 2700s = 6300s)"),
            ("{ revokeAt: [2h] }", "os.revokeAt: 7200s after clock.start is after the run ends"),
            ("{ lockedAfterReboot: 30m }", "os.lockedAfterReboot: there is no reboot to lock the device after; add os.reboots or remove this key"),
            ("{ reboots: [10m], lockedAfterReboot: 0s }", "os.lockedAfterReboot: must be longer than 0 seconds"),
            ("{ timeZoneChanges: [{ at: 2h, to: Asia/Tokyo }] }", "os.timeZoneChanges: 7200s after clock.start is after the run ends"),
            // A fault rule that cannot fire in the scenario is an error, not a silent pass.
            ("{ faults: [{ kind: delay, delay: [1m, 2m], window: [2h, 3h] }] }",
             "os.faults[0].window: starts 7200s after clock.start, when the 3600s workload is over"),
            ("{ faults: [{ kind: drop, callbacks: [shieldAction, shieldConfiguration], activity: \"s-*\" }] }",
             "os.faults[0].activity: shieldAction, shieldConfiguration carry no activity, so this rule can never fire"),
            ("{ faults: [{ kind: batch, until: \"00:05\", callbacks: [intervalDidEnd, shieldConfiguration] }] }",
             "os.faults[0].callbacks: batch holds DeviceActivity callbacks only; shieldConfiguration cannot be batched"),
            ("{ faults: [{ kind: drop, per: week, maxCount: 1 }] }", "os.faults[0].per: expected run or day, got 'week'"),
            ("{ faults: [{ kind: drop, per: day }] }", "os.faults[0].per: counts maxCount or after; give one of them"),
            ("{ faults: [{ kind: torn_write, after: 2 }] }", "os.faults[0].after: only for faults on callbacks"),
            // Rule variants and selectors.
            ("{ rules: { thresholds: sometimes } }", "os.rules.thresholds: expected byUse or atFirstUse, got 'sometimes'"),
            ("{ rules: { pastActivity: never } }", "os.rules.pastActivity: expected asRequested or always, got 'never'"),
            ("{ rules: { midnight: clamps } }", "unknown key 'os.rules.midnight'"),
            ("{ faults: [{ kind: drop, when: [asleep] }] }", "os.faults[0].when: unknown device state 'asleep'; known: beforeFirstUnlock, unlocked"),
            ("{ faults: [{ kind: drop, when: [beforeFirstUnlock] }] }",
             "os.faults[0].when: the device is never locked before a first unlock in this scenario (no os.lockedAfterReboot), so this rule can never fire"),
            ("{ faults: [{ kind: drop, following: { event: reboot, within: 1h } }] }",
             "os.faults[0].following.event: this scenario has no reboot (no os.reboots), so this rule can never fire"),
            ("{ faults: [{ kind: drop, following: { event: lunch, within: 1h } }] }", "os.faults[0].following.event: unknown event 'lunch'"),
            ("{ faults: [{ kind: drop, following: { event: hostExit } }] }", "missing required key 'within'"),
            ("{ faults: [{ kind: drop, following: { event: hostExit, within: 0s } }] }", "os.faults[0].following.within: must be longer than 0 seconds"),
            ("{ faults: [{ kind: torn_write, when: [unlocked] }] }", "os.faults[0].when: only for faults on callbacks"),
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
