@testable import FocusPledgePack
import Foundation
import History

/// Writes synthetic FocusPledge histories the way the harness and stand-ins would: one clock,
/// device time 600x real, ledger lines appended at the end of the run.
struct HistoryBuilder {
    static let deviceTimeRate = 600.0

    private(set) var events: [HistoryEvent] = []
    private var mono: Int64 = 5_000_000_000
    private var t: Double = 1_771_300_000
    private var nextPid: Int32 = 1000
    private var pendingLedger: [HistoryEvent] = []
    private var nextLedgerSeq = 1
    private var nextDelivery = 1
    let harnessPid: Int32 = 1

    init(runStarted: Bool = true) {
        if runStarted {
            harness("run_started", ["scenario": "synthetic", "variant": "hardened", "seed": "1", "staleAfterSeconds": "900", "pollSeconds": "5"])
        }
    }

    /// Moves both clocks on: `microseconds` of real time.
    mutating func wait(microseconds: Int64 = 100) {
        mono += microseconds * 1000
        t += Double(microseconds) / 1_000_000 * Self.deviceTimeRate
    }

    /// Moves both clocks on by `minutes` of device time.
    mutating func wait(deviceMinutes: Double) {
        wait(microseconds: Int64(deviceMinutes * 60 / Self.deviceTimeRate * 1_000_000))
    }

    @discardableResult
    mutating func line(_ process: String, pid: Int32, _ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        wait(microseconds: 1)
        let e = HistoryEvent(mono: mono, t: t, process: process, pid: pid, event: event, fields: fields)
        events.append(e)
        return e
    }

    @discardableResult
    mutating func harness(_ event: String, _ fields: [String: String] = [:]) -> HistoryEvent {
        line("harness", pid: harnessPid, event, fields)
    }

    mutating func newPid() -> Int32 {
        nextPid += 1
        return nextPid
    }

    // MARK: processes

    /// A process `target` started by the harness; its first line is `firstEvent`.
    mutating func spawn(_ target: String, firstEvent: String) -> Int32 {
        let pid = newPid()
        harness("spawn", ["target": target, "childPid": String(pid)])
        line(target, pid: pid, firstEvent)
        return pid
    }

    /// The nemesis SIGKILLs `target`'s process `pid`.
    mutating func kill(_ target: String, _ pid: Int32) {
        harness("signal", ["target": target, "childPid": String(pid), "signal": "KILL", "by": "nemesis"])
        harness("exit", ["target": target, "childPid": String(pid), "status": "signal 9"])
    }

    mutating func spawnHost() -> Int32 { spawn("host-app", firstEvent: "launched") }
    mutating func killHost(_ pid: Int32) { kill("host-app", pid) }
    mutating func spawnServer() -> Int32 { spawn("settlement-server", firstEvent: "started") }
    mutating func killServer(_ pid: Int32) { kill("settlement-server", pid) }

    mutating func signalHost(_ pid: Int32, _ signal: String) {
        harness("signal", ["target": "host-app", "childPid": String(pid), "signal": signal, "by": "nemesis"])
    }

    // MARK: the user and the OS

    mutating func startSession(_ sid: String, host: Int32, minutes: Int = 60, apps: String = "com.example.game") {
        harness("user_action", ["action": "start_session", "sid": sid, "durationMinutes": String(minutes)])
        shields(apps)
        line("host-app", pid: host, "session_started", ["sessionId": sid, "durationMinutes": String(minutes)])
        harness("monitoring_registered", ["activity": "focuspledge_\(sid)", "repeats": "false"])
    }

    mutating func shields(_ apps: String) {
        harness("shields", ["apps": apps])
    }

    enum CallbackEnd { case completed, failed, none }

    /// How an extension's failure write looks in `defaults_set` (traced App Group writes).
    enum FailureWrite {
        /// The seed's `markSessionFailed`: `focuspledge_session_failed` first, one key per write.
        case seed
        /// hardened's one-key record `focuspledge_failure` (H5).
        case record
    }

    /// A violation callback: the extension writes the failure (`defaults_set`), then ends as `end` says.
    @discardableResult
    mutating func violation(_ sid: String, callback: String = "shieldAction", end: CallbackEnd = .completed, write: FailureWrite = .seed) -> Int32 {
        let pid = newPid()
        let delivery = "d\(nextDelivery)"
        nextDelivery += 1
        let process = callback == "shieldAction" ? "shield-action-extension" : "monitor-extension"
        harness("callback_delivered", ["callback": callback, "delivery": delivery, "sid": sid, "activity": "focuspledge_\(sid)", "app": "com.example.game", "childPid": String(pid)])
        switch write {
        case .seed:
            line(process, pid: pid, "defaults_set", ["suite": "group.com.focuspledge.shared", "keys": "focuspledge_session_failed", "v.focuspledge_session_failed": "true"])
            line(process, pid: pid, "defaults_set", ["suite": "group.com.focuspledge.shared", "keys": "focuspledge_failure_reason", "v.focuspledge_failure_reason": "app_opened"])
        case .record:
            line(process, pid: pid, "defaults_set", [
                "suite": "group.com.focuspledge.shared", "keys": "focuspledge_failure",
                "v.focuspledge_failure": "{\"reason\":\"app_opened\",\"sessionId\":\"\(sid)\",\"timestamp\":1}",
            ])
        }
        switch end {
        case .completed: harness("callback_completed", ["callback": callback, "delivery": delivery, "childPid": String(pid)])
        case .failed: harness("callback_failed", ["callback": callback, "delivery": delivery, "childPid": String(pid), "status": "signal 9"])
        case .none: break
        }
        return pid
    }

    mutating func hostSeesFailure(_ sid: String, host: Int32, afterMicroseconds latency: Int64) {
        let recorded = events.last { $0.event == "defaults_set" && ($0["v.focuspledge_session_failed"] == "true" || $0["v.focuspledge_failure"] != nil) }!
        let now = mono
        mono = recorded.mono + latency * 1000 - 1000  // line() adds the last microsecond
        line("host-app", pid: host, "failure_seen", ["sessionId": sid, "reason": "app_opened"])
        mono = max(mono, now)
    }

    // MARK: settlement

    /// The server settles now (live `settled` line); the journal's `ledger` line comes at `finish()`.
    mutating func settle(_ sid: String, _ resolution: String, reason: String? = nil, origin: String = "client", traced: Bool = true) {
        let fields = [
            "sessionId": sid, "resolution": resolution,
            "reason": reason ?? (resolution == "SUCCESS" ? "completed" : "app_opened"),
            "idempotencyKey": "\(sid)_\(resolution.lowercased())_\(nextLedgerSeq)", "ledgerSeq": String(nextLedgerSeq),
            "origin": origin, "previousStatus": pendingLedger.contains { $0["sessionId"] == sid } ? "SUCCESS" : "active",
            "settledAtUnixMillis": String(Int64(t * 1000)),
        ]
        nextLedgerSeq += 1
        if traced { line("settlement-server", pid: 900, "settled", fields) }
        pendingLedger.append(HistoryEvent(mono: 0, t: 0, process: "harness", pid: harnessPid, event: "ledger", fields: fields))
    }

    /// A whole, well-behaved settlement by the host: request, server, result, shields off.
    mutating func hostSettles(_ sid: String, _ resolution: String, host: Int32, reason: String? = nil) {
        line("host-app", pid: host, "settle_requested", ["sessionId": sid, "resolution": resolution, "idempotencyKey": "k", "attempt": "1"])
        settle(sid, resolution, reason: reason)
        line("host-app", pid: host, "settle_result", ["outcome": "settled", "sessionId": sid])
        shields("")
        harness("monitoring_removed", ["activity": "focuspledge_\(sid)"])
    }

    // MARK: run end

    mutating func finish(quiesce: Bool = true, runFinished: Bool = true) -> [HistoryEvent] {
        if quiesce { harness("quiesce") }
        wait(microseconds: 1000)
        for ledger in pendingLedger { harness("ledger", ledger.fields) }
        pendingLedger = []
        if runFinished { harness("run_finished") }
        // Through the real line format and parser, as the runner's history is: a field that does
        // not survive serialisation (e.g. one named like a fixed key) must not pass here either.
        let jsonl = events.map { $0.jsonLine() }.joined(separator: "\n")
        return HistoryEvent.parse(jsonl: Data(jsonl.utf8)).events
    }
}
