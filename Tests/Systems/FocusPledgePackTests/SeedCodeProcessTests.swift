@testable import FocusPledgePack
import Foundation
import HarnessKit
import History
import Supervision
import Testing

/// FocusPledge as real processes where the seed gives the Swift:
/// as-written's extensions are the seed's own classes and its authorization the seed's own
/// MethodChannel methods; the history shows what that code did, and the checker judges from it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SeedCodeProcessTests {
    /// The run tests' scratch directory (HarnessRunProcessTests), with `run()` below.
    typealias Dir = HarnessRunProcessTests.Dir

    func harness(_ args: [String]) throws -> (ChildProcess.ExitStatus?, String) {
        let p = try ChildProcess.spawn(try Executables.path(of: "harness"), args)
        var out: [String] = []
        while let l = p.readLine(timeout: .seconds(120)) { out.append(l) }
        return (p.wait(timeout: .seconds(30)) ?? p.killAndReap(), out.joined(separator: "\n"))
    }

    static func invariants(_ report: [String: Any], _ key: String) -> Set<String> {
        Set(((report[key] as? [[String: Any]]) ?? []).compactMap { $0["invariant"] as? String })
    }

    /// Every violation pressed on a shield: the shield-action extension runs.
    static let pressScenario = """
        name: press
        system: focuspledge
        variants: [as-written, hardened]
        clock: { rate: 900, start: "2026-02-17T08:00:00Z", timeZone: "UTC" }
        duration: 40m
        workload:
          blockedApps: [com.social.feed]
          sessions: { durationMinutes: [20, 20], gapMinutes: [2, 2] }
          violations: { probability: 1.0, kinds: [press_shield_button], maxPerSession: 1 }
        nemesis: { enabled: false }
        server: { staleAfterMinutes: 15 }
        """

    /// As-written's shield-action extension is the seed's class: its App Group writes are
    /// `markSessionFailed`'s one `set` per key in the seed's order, with no trace line of its own;
    /// the checker still measures the violation from those writes.
    @Test func asWrittenShieldActionRunsTheSeedsMarkSessionFailed() throws {
        let d = try Dir()
        let scenario = try d.write("press.yaml", Self.pressScenario)
        _ = try harness(["run", scenario, "--variant", "as-written", "--seed", "1", "--out", d.path + "/out"])
        let (history, report) = try d.run()
        let ext = history.filter { $0.process == "shield-action-extension" }
        let writes = ext.filter { $0.event == "defaults_set" }
        #expect(writes.count >= 3, "\(ext.map(\.event))")
        #expect(Array(writes.prefix(3).map { $0["keys"] }) == ["focuspledge_session_failed", "focuspledge_failure_reason", "focuspledge_failure_timestamp"])
        #expect(writes.first?["v.focuspledge_session_failed"] == "true")
        #expect(writes.dropFirst().first?["v.focuspledge_failure_reason"] == "app_opened")
        #expect(!ext.contains { $0.event == "failure_recorded" })  // the seed traces nothing of its own
        #expect(ext.contains { $0.event == "responded" && $0["response"] == "none" })
        // The host's poll reads it: the latency series has a sample.
        let latencies = (report["latencies"] as? [[String: Any]]) ?? []
        let series = try #require(latencies.first { $0["name"] as? String == "violation-to-host" })
        #expect((series["count"] as? Int ?? 0) >= 1, "\(series)")
        // The seed asked for Screen Time before the picker, through its own methods.
        let results = history.filter { $0.process == "host-app" && $0.event == "method_result" }
        #expect(results.map { $0["method"] } == ["getAuthorizationStatus", "requestAuthorization"])
        #expect(results.last?["authorized"] == "true")
    }

    static func deniedScenarioPath() -> String {
        repositoryRoot().appendingPathComponent("Sources/Systems/FocusPledge/scenarios/focuspledge-denied.yaml").path
    }

    /// The bundled denied scenario: as-written asks, is told no, starts anyway and swallows the
    /// monitoring error; the checker says so.
    @Test func deniedAuthorizationBreaksAsWritten() throws {
        let d = try Dir()
        let (status, out) = try harness(["run", Self.deniedScenarioPath(), "--variant", "as-written", "--seed", "1", "--out", d.path + "/out"])
        #expect(status == .exited(1), "harness said:\n\(out)")
        let (history, report) = try d.run()
        #expect(history.contains { $0.process == "host-app" && $0.event == "method_result" && $0["authorized"] == "false" })
        #expect(history.contains { $0.process == "harness" && $0.event == "authorization" && $0["status"] == "denied" && $0["request"] != nil })
        let failed = Self.invariants(report, "violations")
        #expect(failed.isSuperset(of: ["start-enforced", "error-reported"]), "\(failed)")
    }

    /// hardened asks, refuses every start, and passes — with each refused start listed, so the
    /// pass does not read as "every pledge was enforced".
    @Test func deniedAuthorizationIsRefusedAndListedByHardened() throws {
        let d = try Dir()
        let (status, out) = try harness(["run", Self.deniedScenarioPath(), "--variant", "hardened", "--seed", "1", "--out", d.path + "/out"])
        #expect(status == .exited(0), "harness said:\n\(out)")
        let (history, report) = try d.run()
        let starts = history.filter { $0.isUserAction("start_session") }.count
        let refused = history.filter { $0.process == "host-app" && $0.event == "start_rejected" && $0["reason"] == "not_authorized" }.count
        #expect(starts >= 1 && refused == starts, "\(starts) starts, \(refused) refused")
        let listed = (report["lostByOS"] as? [[String: Any]]) ?? []
        #expect(listed.filter { $0["invariant"] as? String == "start-not-authorized" }.count == starts)
        #expect(!history.contains { $0.event == "shields" && !($0["apps"] ?? "").isEmpty })
    }
}

extension HarnessRunProcessTests.Dir {
    /// The one run directory under `out`, its history and report.
    func run() throws -> (history: [HistoryEvent], report: [String: Any]) {
        let runs = ((try? FileManager.default.contentsOfDirectory(atPath: path + "/out")) ?? []).sorted()
        let run = try #require(runs.first.map { path + "/out/" + $0 })
        let history = HistoryEvent.parse(jsonl: try Data(contentsOf: URL(fileURLWithPath: run + "/history.jsonl"))).events
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/report.json"))) as? [String: Any])
        return (history, report)
    }
}
