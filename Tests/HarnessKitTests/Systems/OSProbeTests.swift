import Foundation
import HarnessKit
import History
import Supervision
import Testing

/// The emulated iOS's rules end to end (EMULATED-IOS.md §10): real processes written against the
/// Apple-named frameworks (OSProbePack), run through `ScenarioRunner` under virtual time. Each
/// test asserts the history lines that show the rule, at their device times.
@Suite(.serialized, .timeLimit(.minutes(3))) struct OSProbeTests {
    static let catalog = SystemCatalog([AnySystemPack(OSProbePack())])
    /// 2026-02-17 08:00:00 UTC = 09:00 in Berlin.
    static let t0 = 1_771_315_200.0

    static func run(_ body: String, duration: String = "1h", os: String = "", file: String = "probe.yaml") throws -> [HistoryEvent] {
        let yaml = """
            name: probe
            system: osprobe
            clock: { timeZone: Europe/Berlin, start: "2026-02-17T08:00:00Z" }
            duration: \(duration)
            settle: 1m
            \(os.isEmpty ? "" : "os: \(os)")
            probe:
            \(body)
            """
        let scenario = try Scenario.parse(yaml: yaml, file: file, systems: catalog)
        let out = NSTemporaryDirectory() + "sth-osprobe-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let runner = ScenarioRunner(options: .init(
            scenario: scenario, scenarioPath: file, variant: .hardened, seed: 1, durationOverride: nil, outputDirectory: out,
            binDirectory: Executables.directory, progress: { _ in }))
        let outcome = runner.run()
        let history = HistoryEvent.parse(jsonl: FileManager.default.contents(atPath: outcome.runDirectory + "/history.jsonl") ?? Data()).events
        #expect(outcome.setupError == nil, "\(outcome.setupError ?? "")")
        let stuck = history.filter { $0.event == "quiescence_timeout" || $0.event == "run_overran" }
        #expect(stuck.isEmpty, "\(stuck.map { $0.fields })")
        return history
    }

    /// The monitor extension's callbacks for `activity`, as "callback @minutes after t0".
    static func callbacks(_ h: [HistoryEvent], _ activity: String) -> [String] {
        h.filter { $0.isLine(of: "monitor", "monitor_callback") && $0["activity"] == activity }
            .map { "\($0["callback"]!)\($0["eventName"].map { " " + $0 } ?? "") @\(minutes($0.t))" }
    }

    static func minutes(_ t: Double) -> String {
        let m = (t - t0) / 60
        return m == m.rounded() ? String(Int(m)) : String(format: "%.2f", m)
    }

    static func lines(_ h: [HistoryEvent], _ process: String, _ event: String, _ match: [String: String] = [:]) -> [HistoryEvent] {
        h.filter { e in e.process == process && e.event == event && match.allSatisfy { k, v in e[k] == v } }
    }

    // MARK: Schedules

    @Test func intervalsStartAndEndAtLocalTimesRepeatAndWarn() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: daily, start: "10:00", end: "10:30", repeats: "true", warningMinutes: 5 }
                - { at: 1m, do: monitor, activity: once, start: "11:00", end: "11:20" }
            """, duration: "48h")
        let day = 24 * 60
        #expect(Self.callbacks(h, "daily") == [
            "intervalWillStartWarning @55", "intervalDidStart @60", "intervalWillEndWarning @85", "intervalDidEnd @90",
            "intervalWillStartWarning @\(day + 55)", "intervalDidStart @\(day + 60)", "intervalWillEndWarning @\(day + 85)",
            "intervalDidEnd @\(day + 90)",
        ])
        // repeats: false ends after its first interval.
        #expect(Self.callbacks(h, "once") == ["intervalDidStart @120", "intervalDidEnd @140"])
        // The extension's own `Date()` is the device's time, not the host's (a day and more away).
        let calls = Self.lines(h, "monitor", "monitor_callback")
        #expect(!calls.isEmpty)
        for c in calls { #expect(abs((c["date"].flatMap(Double.init) ?? 0) - c.t) < 1, "Date() in app code: \(c["date"] ?? "-") at device time \(c.t)") }
    }

    @Test func stoppingAnOngoingIntervalDeliversIntervalDidEnd() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: ongoing, start: "08:00", end: "12:00" }
                - { at: 30m, do: stop, activity: ongoing }
            """)
        #expect(Self.callbacks(h, "ongoing") == ["intervalDidStart @1", "intervalDidEnd @30"])
        #expect(!Self.lines(h, "harness", "callback_delivered", ["activity": "ongoing", "why": "stopMonitoring"]).isEmpty)
    }

    /// An extension takes one call at a time (EMULATED-IOS.md §10.1): three intervals starting at one
    /// instant are three calls of the monitor extension, each started once the one before it has
    /// ended, in the order iOS made them — never two monitor processes at once.
    @Test func callsOfOneExtensionAtOneInstantRunOneAfterTheOther() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: a, start: "09:10", end: "09:40" }
                - { at: 1m, do: monitor, activity: b, start: "09:10", end: "09:50" }
                - { at: 1m, do: monitor, activity: c, start: "09:10", end: "10:00" }
            """)
        for a in ["a", "b", "c"] { #expect(Self.callbacks(h, a).first == "intervalDidStart @10", "\(a)") }
        let starts = h.filter { $0.process == "harness" && $0.event == "callback_delivered" && $0["callback"] == "intervalDidStart" }
        #expect(starts.count == 3)
        let queued = h.filter { $0.process == "harness" && $0.event == "callback_queued" }
        #expect(queued.count == 2, "the second and third wait")
        // At most one monitor call runs at any moment of the history: each delivery's
        // `callback_completed` comes before the next `callback_delivered`.
        var running: String?
        for e in h where e.process == "harness" {
            if e.event == "callback_delivered", e["childPid"] != "-" {
                #expect(running == nil, "delivery \(e["delivery"] ?? "?") started while \(running ?? "") ran")
                running = e["delivery"]
            }
            if ["callback_completed", "callback_failed"].contains(e.event), e["delivery"] == running { running = nil }
        }
        // In the order made: the queued lines name the deliveries that started after.
        #expect(queued.map { $0["delivery"] } == Array(starts.dropFirst()).map { $0["delivery"] })
    }

    @Test func aThresholdCountsCumulativeUseAndFiresOnceWithItsWarning() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: lim, start: "08:00", end: "12:00", eventApp: com.video, thresholdMinutes: 10, warningMinutes: 2 }
                - { at: 5m, do: useApp, app: com.video, seconds: 360 }
                - { at: 20m, do: useApp, app: com.other, seconds: 300 }
                - { at: 30m, do: useApp, app: com.video, seconds: 1800 }
            """)
        // 6 minutes, then 5 of another app (not counted), then 4 more: 8 at 32m (warning), 10 at 34m.
        #expect(Self.callbacks(h, "lim") == ["intervalDidStart @1", "eventWillReachThresholdWarning limit @32", "eventDidReachThreshold limit @34"])
    }

    // MARK: Registration rules and authorization

    @Test func startMonitoringKeepsApplesLimitsAndTheOSRecordsEveryRefusal() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: short, start: "10:00", end: "10:10" }
                - { at: 1m, do: monitor, activity: long, start: "10:00", startDay: 1, end: "10:00", endDay: 15 }
                - { at: 2m, do: monitor_many, activity: many, start: "10:00", end: "11:00", count: 21 }
            """, duration: "10m")
        #expect(Self.lines(h, "host", "monitoring_error", ["activity": "short", "error": "intervalTooShort"]).count == 1)
        #expect(Self.lines(h, "host", "monitoring_error", ["activity": "long", "error": "intervalTooLong"]).count == 1)
        #expect(Self.lines(h, "host", "monitoring_started").count == 20)
        #expect(Self.lines(h, "host", "monitoring_error", ["activity": "many-21", "error": "excessiveActivities"]).count == 1)
        let refused = Self.lines(h, "harness", "monitoring_refused").map { "\($0["activity"]!) \($0["error"]!)" }.sorted()
        #expect(refused == ["long intervalTooLong", "many-21 excessiveActivities", "short intervalTooShort"])
    }

    @Test func authorizationIsRequiredAndRevokingItClearsShieldsAndStopsMonitoring() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: a, start: "10:00", end: "10:30" }
                - { at: 2m, do: authorize }
                - { at: 3m, do: monitor, activity: a, start: "10:00", end: "10:30" }
                - { at: 4m, do: shield, apps: com.video }
                - { at: 2h, do: monitor, activity: b, start: "12:00", end: "12:30" }
            """, duration: "3h", os: "{ authorization: approved, revokeAt: [50m] }")
        #expect(Self.lines(h, "host", "monitoring_error", ["activity": "a", "error": "unauthorized"]).count == 1)
        #expect(Self.lines(h, "harness", "monitoring_refused", ["activity": "a", "error": "unauthorized"]).count == 1)
        #expect(Self.lines(h, "host", "authorization", ["result": "approved"]).count == 1)
        #expect(Self.lines(h, "host", "monitoring_started", ["activity": "a"]).count == 1)
        let revoked = try #require(Self.lines(h, "harness", "authorization", ["status": "denied", "why": "revoked"]).first)
        #expect(Self.minutes(revoked.t) == "50")
        #expect(Self.lines(h, "harness", "monitoring_removed", ["activity": "a", "why": "authorization revoked"]).count == 1)
        // The first line is the state at the start (nothing shielded).
        #expect(Self.lines(h, "harness", "shields").map { "\($0["apps"] ?? "?") @\(Self.minutes($0.t))" } == [" @0", "com.video @4", " @50"])
        #expect(Self.callbacks(h, "a").isEmpty, "no callback after the revocation (10:00 = 60m)")
        #expect(Self.lines(h, "host", "monitoring_error", ["activity": "b", "error": "unauthorized"]).count == 1)
    }

    /// Shields written before approval are ignored and not applied when approval comes — here
    /// written in the input right before the prompt, at the same device instant (EMULATED-IOS.md §10.3).
    @Test func shieldsWrittenBeforeApprovalAreIgnoredAndNotAppliedLater() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: shield, apps: com.video }
                - { at: 1m, do: authorize }
                - { at: 3m, do: useApp, app: com.video, seconds: 60 }
                - { at: 6m, do: shield, apps: com.social }
            """, duration: "10m", os: "{ authorization: approved }")
        let ignored = Self.lines(h, "harness", "shields_ignored")
        #expect(ignored.map { "\($0["apps"] ?? "?") \($0["status"] ?? "?") @\(Self.minutes($0.t))" } == ["com.video notDetermined @1"])
        #expect(Self.lines(h, "host", "authorization", ["result": "approved"]).count == 1)
        #expect(Self.lines(h, "harness", "shields").map { "\($0["apps"] ?? "?") @\(Self.minutes($0.t))" } == [" @0", "com.social @6"])
        #expect(Self.lines(h, "harness", "shield_shown").isEmpty, "com.video was never shielded")
        #expect(Self.lines(h, "harness", "app_in_use", ["app": "com.video"]).count == 1)
        // Shielding and asking in one handler: the OS sees the stores before it answers the prompt.
        let one = try Self.run("""
              steps:
                - { at: 1m, do: authorize, apps: com.video }
                - { at: 3m, do: useApp, app: com.video, seconds: 60 }
            """, duration: "5m", os: "{ authorization: approved }")
        #expect(Self.lines(one, "harness", "shields_ignored", ["apps": "com.video", "status": "notDetermined"]).count == 1)
        #expect(Self.lines(one, "harness", "shield_shown").isEmpty)
    }

    @Test func aDeniedPromptThrowsAuthorizationCanceled() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: authorize }
            """, duration: "5m", os: "{ authorization: denied }")
        #expect(Self.lines(h, "host", "authorization").first?["result"]?.contains("authorizationCanceled") == true)
    }

    // MARK: Shields

    @Test func aShieldedAppShowsTheShieldAndTheButtonsAnswerIsApplied() throws {
        for (response, outcome) in [("close", "shield_closed_app"), ("defer", "shield_redrawn"), ("none", "shield_unchanged")] {
            let h = try Self.run("""
                  shieldResponse: \(response)
                  steps:
                    - { at: 1m, do: shield, apps: com.video }
                    - { at: 2m, do: useApp, app: com.video, seconds: 600 }
                    - { at: 3m, do: press }
                    - { at: 4m, do: press }
                """, duration: "10m")
            #expect(Self.lines(h, "harness", "shield_shown", ["app": "com.video"]).count == 1, "\(response)")
            #expect(Self.lines(h, "config", "shield_configuration", ["title": "Probe", "subtitle": "com.video"]).count >= 1, "\(response)")
            #expect(Self.lines(h, "shield", "responded", ["response": response]).count == (response == "close" ? 1 : 2), "\(response)")
            #expect(Self.lines(h, "harness", outcome, ["app": "com.video", "response": response]).count >= 1, "\(response)")
            // .close: the app is gone, the second press finds no shield; .defer redraws (asks the configuration again).
            #expect(Self.lines(h, "harness", "shield_button_unavailable").count == (response == "close" ? 1 : 0), "\(response)")
            #expect(Self.lines(h, "config", "shield_configuration").count == (response == "defer" ? 3 : 1), "\(response)")
        }
    }

    @Test func theAppsSettingsBeyondTheShieldStopTheUsersDeleteInstallAndBrowsing() throws {
        let h = try Self.run("""
              shieldResponse: close
              steps:
                - { at: 1m, do: restrict, denyAppRemoval: "true", webFilter: "specific:games.example" }
                - { at: 2m, do: deleteApp, app: com.video }
                - { at: 3m, do: visitWebsite, domain: m.games.example }
                - { at: 4m, do: visitWebsite, domain: news.example }
                - { at: 5m, do: restrict, denyAppRemoval: "false", webFilter: none, webShield: news.example }
                - { at: 6m, do: visitWebsite, domain: games.example }
                - { at: 7m, do: visitWebsite, domain: news.example }
                - { at: 8m, do: deleteApp, app: com.video }
                - { at: 9m, do: useApp, app: com.video, seconds: 60 }
                - { at: 10m, do: installApp, app: com.video }
                - { at: 11m, do: useApp, app: com.video, seconds: 60 }
            """, duration: "15m")
        func at(_ event: String, _ match: [String: String] = [:]) -> [String] { Self.lines(h, "harness", event, match).map { Self.minutes($0.t) } }
        // The host's writes reach the OS through its store's file, and the history says what is set.
        #expect(Self.lines(h, "harness", "managed_settings").contains { ($0["application"] ?? "").contains("denyAppRemoval") })
        #expect(at("app_removal_denied", ["app": "com.video"]) == ["2"])
        #expect(at("website_blocked", ["domain": "m.games.example", "by": "webContent"]) == ["3"])
        #expect(at("website_blocked", ["domain": "news.example", "by": "shield"]) == ["7"])
        #expect(at("website_visited") == ["4", "6"])
        #expect(at("app_deleted", ["app": "com.video"]) == ["8"])
        #expect(at("app_not_installed", ["app": "com.video"]) == ["9"])
        #expect(at("app_installed", ["app": "com.video"]) == ["10"])
        #expect(at("app_in_use", ["app": "com.video"]) == ["11"])
    }

    // MARK: The host's lifecycle

    @Test func theHostIsSuspendedInTheBackgroundResumedWhenOpenedAndForceQuitUntilOpened() throws {
        let h = try Self.run("""
              steps:
                - { at: 5m, do: leaveHost }
                - { at: 10m, do: inspectHost }
                - { at: 20m, do: openHost }
                - { at: 21m, do: inspectHost }
                - { at: 30m, do: forceQuitHost }
                - { at: 35m, do: inspectHost }
                - { at: 40m, do: openHost }
            """, duration: "45m")
        let signals = Self.lines(h, "harness", "signal", ["target": "host", "by": "ios"]).map { "\($0["signal"]!) @\(Self.minutes($0.t))" }
        #expect(signals == ["STOP @5.17", "CONT @20", "KILL @30"])
        let inspections = Self.lines(h, "harness", "user_action", ["action": "inspect"])
        let firstPid = Self.lines(h, "harness", "spawn", ["target": "host"]).first?["childPid"]
        #expect(inspections.map { $0["state"]! }.first == "T", "the real process is stopped (/proc state T)")
        #expect(inspections.first?["hostPid"] == firstPid)
        #expect(["S", "R"].contains(inspections.dropFirst().first?["state"] ?? "?"))
        #expect(inspections.last?["state"] == "none", "force quit: not running")
        // No tick while suspended; ticks before and after.
        let ticks = Self.lines(h, "host", "tick").map { $0.t - Self.t0 }
        #expect(!ticks.contains { $0 > 310 && $0 < 1200 }, "\(ticks)")
        #expect(ticks.filter { $0 <= 300 }.count >= 4 && ticks.contains { $0 >= 1200 && $0 < 1800 })
        // Not relaunched until opened.
        let spawns = Self.lines(h, "harness", "spawn", ["target": "host"]).map { Self.minutes($0.t) }
        #expect(spawns == ["0", "40"])
    }

    @Test func aRebootKillsEveryProcessAndRegistrationsPersist() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: daily, start: "10:00", end: "10:30", repeats: "true" }
                - { at: 3h, do: openHost }
            """, duration: "26h", os: "{ reboots: [2h] }")
        #expect(Self.lines(h, "harness", "signal", ["target": "host", "by": "reboot", "signal": "KILL"]).map { Self.minutes($0.t) } == ["120"])
        #expect(Self.lines(h, "harness", "spawn", ["target": "host"]).map { Self.minutes($0.t) } == ["0", "180"])
        #expect(Self.callbacks(h, "daily") == ["intervalDidStart @60", "intervalDidEnd @90", "intervalDidStart @1500", "intervalDidEnd @1530"])
    }

    // MARK: Field faults

    @Test func everyFieldFaultIsVisibleInTheHistory() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: drop, start: "10:00", end: "10:30" }
                - { at: 1m, do: monitor, activity: delay, start: "10:00", end: "10:30" }
                - { at: 1m, do: monitor, activity: dup, start: "10:00", end: "10:30" }
                - { at: 1m, do: monitor, activity: batch, start: "11:00", end: "11:30" }
                - { at: 1m, do: monitor, activity: reorder, start: "10:00", end: "10:00", repeats: "true" }
                - { at: 1m, do: monitor, activity: kill, start: "10:00", end: "10:30" }
            """, duration: "16h", os: """
            
              faults:
                - { kind: drop, activity: drop, callbacks: [intervalDidEnd] }
                - { kind: delay, activity: delay, callbacks: [intervalDidStart], delay: [5m, 5m] }
                - { kind: duplicate, activity: dup, callbacks: [intervalDidStart] }
                - { kind: batch, activity: batch, until: "00:05" }
                - { kind: reorder, activity: reorder }
                - { kind: kill_mid_call, activity: kill, callbacks: [intervalDidStart] }
            """)
        #expect(Self.callbacks(h, "drop") == ["intervalDidStart @60"])
        #expect(Self.lines(h, "harness", "callback_dropped", ["activity": "drop", "callback": "intervalDidEnd"]).count == 1)
        #expect(Self.callbacks(h, "delay") == ["intervalDidStart @65", "intervalDidEnd @90"])
        #expect(Self.callbacks(h, "dup") == ["intervalDidStart @60", "intervalDidStart @60", "intervalDidEnd @90"])
        // Batched until 00:05 local (23:05 UTC), across midnight.
        // (The two calls run as concurrent processes: their traces may interleave; the OS made them in order.)
        #expect(Self.callbacks(h, "batch").sorted() == ["intervalDidEnd @905", "intervalDidStart @905"])
        #expect(Self.lines(h, "harness", "callback_released", ["activity": "batch"]).map { "\($0["callback"]!) @\(Self.minutes($0.t))" }
            == ["intervalDidStart @905", "intervalDidEnd @905"])
        // At 10:00 the ongoing 24 h interval ends and the next starts: delivered start first.
        let reorder = Self.lines(h, "harness", "callback_delivered", ["activity": "reorder"]).filter { $0.t == Self.t0 + 3600 }.map { $0["callback"]! }
        #expect(reorder == ["intervalDidStart", "intervalDidEnd"])
        #expect(Self.lines(h, "harness", "callbacks_reordered", ["activity": "reorder"]).count == 1)
        // Killed before it returned: the call was made and never ran.
        #expect(Self.callbacks(h, "kill") == ["intervalDidEnd @90"])
        #expect(Self.lines(h, "harness", "callback_failed", ["callback": "intervalDidStart", "status": "killed by iOS at launch"]).count == 1)
    }

    /// Through real processes: `os.rules` alternatives and the fault
    /// selectors by device state (`when`) and relation (`following`).
    @Test func osRulesAndFaultSelectorsActThroughRealProcesses() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: now, start: "09:01", end: "09:30" }
                - { at: 1m, do: monitor, activity: lim, start: "08:00", end: "12:00", eventApp: com.video, thresholdMinutes: 30 }
                - { at: 1m, do: monitor, activity: locked, start: "09:45", end: "10:30" }
                - { at: 5m, do: useApp, app: com.other, seconds: 10 }
            """, duration: "2h", os: """

              rules: { startAtRegistration: missed, thresholds: atFirstUse }
              reboots: [40m]
              lockedAfterReboot: 20m
              faults:
                - { kind: drop, when: [beforeFirstUnlock] }
                - { kind: delay, delay: [2m, 2m], callbacks: [intervalDidEnd], following: { event: firstUnlock, within: 40m } }
            """)
        // Registered at 09:01 for 09:01: missed, no callback at all.
        #expect(Self.callbacks(h, "now").isEmpty)
        #expect(Self.lines(h, "harness", "interval_missed", ["activity": "now", "rule": "os.rules.startAtRegistration"]).count == 1)
        // Ten seconds of another app at 5m: the 30-minute threshold at once, once.
        #expect(Self.callbacks(h, "lim") == ["intervalDidStart @1", "eventDidReachThreshold limit @5"])
        // 09:45 falls in the lock (40m-60m): dropped; the end at 90m comes within 40m of the unlock: 2m late.
        #expect(Self.lines(h, "harness", "callback_dropped", ["activity": "locked", "callback": "intervalDidStart", "rule": "os.faults[0]"]).count == 1)
        #expect(Self.callbacks(h, "locked") == ["intervalDidEnd @92"])
        #expect(Self.lines(h, "harness", "run_started").first?["osRules"] == "startAtRegistration=missed,thresholds=atFirstUse")
    }

    @Test func aStaleDefaultsReaderSeesTheOldValueForItsWindow() throws {
        let steps = """
              steps:
                - { at: 1m, do: read }
                - { at: 2m, do: monitor, activity: a, start: "09:05", end: "10:00" }
                - { at: 7m, do: read }
                - { at: 20m, do: read }
            """
        let stale = try Self.run(steps, duration: "30m", os: "{ faults: [{ kind: stale_defaults, stale: 10m, roles: [host] }] }")
        #expect(Self.callbacks(stale, "a") == ["intervalDidStart @5"])
        #expect(Self.lines(stale, "host", "read").map { $0["lastCallback"]! } == ["-", "-", "intervalDidStart a"])
        #expect(Self.lines(stale, "host", "defaults_fault", ["kind": "stale_read"]).map { Self.minutes($0.t) } == ["7"])
        #expect(Self.lines(stale, "harness", "defaults_fault_armed", ["target": "host"]).count == 1)
        let fresh = try Self.run(steps, duration: "30m")
        #expect(Self.lines(fresh, "host", "read").map { $0["lastCallback"]! } == ["-", "intervalDidStart a", "intervalDidStart a"])
    }

    @Test func aTornWriteLandsTheFirstKeyAndKillsTheWriter() throws {
        let h = try Self.run("""
              steps:
                - { at: 2m, do: write_pair, n: 1 }
                - { at: 10m, do: write_pair, n: 2 }
            """, duration: "20m", os: "{ faults: [{ kind: torn_write, roles: [host], window: [5m, 1h] }] }")
        #expect(Self.lines(h, "host", "defaults_fault", ["kind": "torn_write", "landed": "pairA", "lost": "pairB"]).count == 1)
        #expect(Self.lines(h, "harness", "exit", ["target": "host"]).first?["status"]?.contains("9") == true)
        // Relaunched, it finds the half-written pair.
        #expect(Self.lines(h, "host", "launch_read").map { "\($0["pairA"]!) \($0["pairB"]!)" } == ["- -", "2 1"])
        // The user's tap died with the writer: tapped again once it is back (EMULATED-IOS.md §7.7),
        // the pair is written whole (the fault tears only the first write of its window).
        #expect(Self.lines(h, "harness", "user_retry").map { $0["n"]! } == ["2"])
        #expect(Self.lines(h, "host", "pair_written").map { $0["n"]! } == ["1", "2"])
    }

    /// The same tap the writer died in, with a user who does not tap again (`user.retry: never`):
    /// the tap is lost, the history says why, and the half-written pair is what the relaunched
    /// app has — nothing redoes it for the app.
    @Test func aUserWhoDoesNotTapAgainLosesTheTapAndTheHistorySaysWhy() throws {
        let h = try Self.run("""
              steps:
                - { at: 2m, do: write_pair, n: 1 }
                - { at: 10m, do: write_pair, n: 2 }
            """, duration: "20m", os: "{ faults: [{ kind: torn_write, roles: [host], window: [5m, 1h] }] }\nuser: { retry: never }")
        #expect(h.first { $0.event == "run_started" }?["userRetry"] == "never")
        #expect(Self.lines(h, "harness", "user_retry").isEmpty)
        let lost = Self.lines(h, "harness", "user_tap_lost")
        #expect(lost.map { $0["n"]! } == ["2"])
        #expect(lost.first?["why"] == "the user does not tap again (user.retry: never)")
        #expect(Self.lines(h, "host", "launch_read").map { "\($0["pairA"]!) \($0["pairB"]!)" } == ["- -", "2 1"])
        #expect(Self.lines(h, "host", "pair_written").map { $0["n"]! } == ["1"])
    }

    // MARK: Notifications and time

    @Test func notificationsAreShownWhenAuthorizedAndATapReachesTheHost() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: notify_auth }
                - { at: 2m, do: notify, identifier: n1, afterSeconds: 60 }
                - { at: 2m, do: notify, identifier: n2, afterSeconds: 60 }
                - { at: 5m, do: leaveHost }
                - { at: 6m, do: inspectNotifications }
                - { at: 8m, do: tapNotification, identifier: n1 }
                - { at: 9m, do: inspectNotifications }
                - { at: 10m, do: leaveHost }
                - { at: 15m, do: tapNotification, identifier: n2, action: LATER }
                - { at: 20m, do: tapNotification, identifier: n1 }
            """, duration: "25m")
        #expect(Self.lines(h, "host", "notification_authorization", ["granted": "true"]).count == 1)
        #expect(Self.lines(h, "harness", "notification_delivered").map { "\($0["identifier"]!) @\(Self.minutes($0.t))" } == ["n1 @3", "n2 @3"])
        let responses = Self.lines(h, "host", "notification_response").map { "\($0["identifier"]!) \($0["action"]!) @\(Self.minutes($0.t))" }
        #expect(responses == ["n1 com.apple.UNNotificationDefaultActionIdentifier @8", "n2 LATER @15"])
        // The tap on n1 foregrounds the host; LATER (no .foreground) runs it in the background, suspended again after the grace.
        let signals = Self.lines(h, "harness", "signal", ["target": "host", "by": "ios"]).map { "\($0["signal"]!) @\(Self.minutes($0.t))" }
        #expect(signals == ["STOP @5.17", "CONT @8", "STOP @10.17", "CONT @15", "STOP @15.17"])
        #expect(Self.lines(h, "harness", "notification_tap_unavailable", ["identifier": "n1"]).count == 1)
        // What the user sees in Notification Center, oldest first: a tapped one is gone.
        #expect(Self.lines(h, "harness", "user_action", ["action": "notification_center"]).map { $0["identifiers"]! } == ["n1,n2", "n2"])
    }

    @Test func deniedNotificationsAreNeverShown() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: notify_auth }
                - { at: 2m, do: notify, identifier: n1, afterSeconds: 60 }
            """, duration: "10m", os: "{ notifications: denied }")
        #expect(Self.lines(h, "host", "notification_authorization", ["granted": "false"]).count == 1)
        #expect(Self.lines(h, "harness", "notification_not_shown", ["identifier": "n1"]).map { Self.minutes($0.t) } == ["3"])
        #expect(Self.lines(h, "harness", "notification_delivered").isEmpty)
    }

    @Test func aTimeZoneChangeMovesSchedulesAndLocalTimeSteps() throws {
        let h = try Self.run("""
              steps:
                - { at: 1m, do: monitor, activity: a, start: "10:00", end: "10:30" }
                - { at: "09:20", every: day, do: read }
            """, duration: "8h", os: "{ timeZoneChanges: [{ at: 30m, to: America/New_York }] }")
        #expect(Self.lines(h, "harness", "time_zone", ["timeZone": "America/New_York"]).map { Self.minutes($0.t) } == ["30"])
        // 10:00 in New York = 15:00 UTC = t0 + 7 h.
        #expect(Self.callbacks(h, "a") == ["intervalDidStart @420", "intervalDidEnd @450"])
        // 09:20 Berlin (t0 + 20 m), then 09:20 New York (14:20 UTC).
        #expect(Self.lines(h, "harness", "user_action", ["action": "probe", "step": "read"]).map { Self.minutes($0.t) } == ["20", "380"])
    }
}
