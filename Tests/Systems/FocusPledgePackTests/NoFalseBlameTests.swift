import Foundation
import HarnessKit
import History
import Supervision
import Testing

/// A checker must never blame an app for the harness's own lag. A callback that iOS
/// delivers late (`os.faults` delay) lands at a later instant; the host reacts at once (removes
/// its shields, stops monitoring), and the harness must record the OS's view of that reaction at
/// the same instant — before the clock moves — not at the next one, minutes later, where
/// `no-shield-after-settlement` read it as the app's fault (14 false violations in 5 seeds).
@Suite(.serialized, .timeLimit(.minutes(3))) struct NoFalseBlameTests {
    static let scenario = """
        name: late-callbacks
        system: focuspledge
        clock: { rate: 900, start: "2026-02-17T08:00:00Z", timeZone: "Europe/Berlin" }
        duration: 3h
        workload:
          blockedApps: [com.social.feed]
          sessions: { durationMinutes: [15, 45], gapMinutes: [2, 10] }
          violations: { probability: 0.5, kinds: [open_blocked_app, press_shield_button], maxPerSession: 1 }
          stopSessionProbability: 0.1
        os:
          faults:
            - kind: delay
              callbacks: [intervalDidEnd, shieldAction]
              delay: [30s, 5m]
              probability: 0.5
        nemesis: { enabled: false }
        """

    /// The as-written host's poll period (seed: `Timer.periodic(Duration(seconds: 5), ...)`).
    static let pollSeconds = 5.0

    /// Seeds 1 and 3 each gave a false `no-shield-after-settlement` before the fix.
    @Test(arguments: [1, 3])
    func aLateCallbacksReactionIsRecordedAtItsOwnInstant(seed: Int) throws {
        let dir = NSTemporaryDirectory() + "sth-nofalseblame-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = dir + "/late.yaml"
        try Self.scenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        let out = dir + "/out"
        let p = try ChildProcess.spawn(
            try Executables.path(of: "harness"), ["run", scenario, "--variant", "as-written", "--seed", String(seed), "--out", out],
            captureStdout: true, stderrTo: -1)
        while p.readLine(timeout: .seconds(120)) != nil {}
        let status = p.wait(timeout: .seconds(60)) ?? p.killAndReap()
        guard case .exited(let code)? = status else { Issue.record("harness did not exit: \(String(describing: status))"); return }
        #expect(code == 0 || code == 1, "decided (exit \(code))")
        let run = out + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: out).first))

        // The checkers that read the OS's view after a settlement hold.
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/report.json"))) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        for rule in ["no-shield-after-settlement", "monitoring-stopped-after-settlement"] {
            let r = try #require(results.first { $0["name"] as? String == rule }, "\(rule) in report.json")
            #expect(r["passed"] as? Bool == true, "\(rule) blamed the app (seed \(seed))")
            #expect((r["checkedCount"] as? Int ?? 0) > 0, "\(rule) judged something")
        }

        // The recorder itself: every activity the host stops monitoring is removed in the OS's
        // record at the same device instant.
        let events = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: run + "/history.jsonl"))).events
        var monitored = Set<String>()
        var reactionsToLateCallbacks = 0
        var lateCallbackInstants = Set<Double>()
        for (i, e) in events.enumerated() {
            if e.process == "harness", e.event == "callback_released" { lateCallbackInstants.insert(e.t) }
            if e.process == "harness", e.event == "monitoring_registered", let a = e["activity"] { monitored.insert(a) }
            if e.process == "harness", e.event == "monitoring_removed", let a = e["activity"] { monitored.remove(a) }
            guard e.process == "host-app", e.event == "monitoring_stopped" else { continue }
            // As-written's extensions are the seed's Swift, which posts no Darwin notification: its
            // host reacts to a late callback at its next 5 s poll, not at the callback's instant.
            if lateCallbackInstants.contains(where: { e.t >= $0 && e.t <= $0 + Self.pollSeconds }) { reactionsToLateCallbacks += 1 }
            for activity in (e["activities"] ?? "").split(separator: ",").map(String.init) where monitored.contains(activity) {
                let removal = events[(i + 1)...].first { $0.process == "harness" && $0.event == "monitoring_removed" && $0["activity"] == activity }
                #expect(removal?.t == e.t, "\(activity): the host stopped monitoring at t=\(e.t), the OS recorded it at t=\(removal.map { String($0.t) } ?? "never")")
            }
        }
        #expect(reactionsToLateCallbacks > 0, "the scenario exercised the path: a host reaction to a late callback")
    }
}
