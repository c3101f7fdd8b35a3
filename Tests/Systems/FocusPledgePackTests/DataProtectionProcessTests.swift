import Foundation
import History
import Supervision
import Testing

/// `os.lockedAfterReboot` with real processes: the phone reboots during a
/// session and stays locked; the session's end comes while the App Group cannot be read.
@Suite(.serialized, .timeLimit(.minutes(3))) struct DataProtectionProcessTests {
    static let scenario = """
        name: locked
        system: focuspledge
        clock: { start: "2026-02-17T08:00:00Z", timeZone: "Europe/Berlin" }
        duration: 2h
        workload:
          blockedApps: [com.social.feed]
          sessions: { durationMinutes: [40, 40], gapMinutes: [1, 1] }
          violations: { probability: 0.0, kinds: [open_blocked_app], maxPerSession: 1 }
        os:
          reboots: [38m]
          lockedAfterReboot: 30m
        """

    @Test func anExtensionLaunchedBeforeTheFirstUnlockReadsAnEmptyAppGroupAndNothingLands() throws {
        let d = try HarnessRunProcessTests.Dir()
        let file = try d.write("locked.yaml", Self.scenario)
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), ["run", file, "--variant", "hardened", "--seed", "1", "--out", d.path + "/out"])
        var out: [String] = []
        while let l = p.readLine(timeout: .seconds(120)) { out.append(l) }
        let status = p.wait(timeout: .seconds(30)) ?? p.killAndReap()
        #expect(status == .exited(0) || status == .exited(1), "\(out.joined(separator: "\n"))")
        let run = try #require(d.runDirectories().first)
        let events = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: run + "/history.jsonl"))).events
        let locked = try #require(events.firstIndex { $0.isHarnessLine("device_locked") })
        let unlocked = try #require(events.firstIndex { $0.isHarnessLine("first_unlock") })
        let until: Double = 1_771_315_200 + 68 * 60
        #expect(events[locked]["until"] == String(until))
        #expect(locked < unlocked && events[unlocked]["by"] == "user", "the user's next action unlocks it first")
        let window = events[locked..<unlocked]
        // The session's end fell inside: the monitor read the App Group and saw nothing.
        #expect(window.contains { $0.isHarnessLine("callback_delivered") && $0["callback"] == "intervalDidEnd" })
        #expect(window.contains { $0.process == "monitor-extension" && $0.event == "defaults_fault" && $0["kind"] == "locked_read" })
        #expect(!window.contains { $0.event == "defaults_set" }, "nothing can land while locked")
        #expect(!events[..<locked].contains { $0.event == "defaults_fault" }, "unlocked before the reboot")
    }
}
