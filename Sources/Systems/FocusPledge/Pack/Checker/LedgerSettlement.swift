import HarnessKit
import History

extension FocusPledgeChecker {
    /// One settlement from the settlement server's durable journal (the harness's `ledger` lines,
    /// written after the run: the authority), joined with the server's live `settled` trace line,
    /// which is the only place that says *when* it happened.
    struct LedgerSettlement: Sendable {
        static let staleJobOrigin = "staleJob"
        static let staleReason = "no_heartbeat"

        var ledger: HistoryEvent
        /// Nil if the server was killed between journalling and tracing: the time is then unknown.
        var serverSettled: HistoryEvent?

        var sessionId: String? { ledger.sessionIdField }
        var resolution: String? { ledger["resolution"] }
        var reason: String? { ledger["reason"] }
        var origin: String? { ledger["origin"] }
        var ledgerSeq: Int { ledger["ledgerSeq"].flatMap { Int($0) } ?? .max }

        /// When the server settled, by CLOCK_MONOTONIC; nil when unknown.
        var mono: Int64? { serverSettled?.mono }

        /// When the server settled, in device time (the journal's `settledAtUnixMillis`; the
        /// server runs on the device clock): the fallback when the live line is missing.
        var deviceT: Double? { ledger["settledAtUnixMillis"].flatMap { Double($0) }.map { $0 / 1000 } }

        /// True if `event` happened before this settlement: by `mono` when known, else by device
        /// time, else (never timed) assumed so.
        func isAfter(_ event: HistoryEvent) -> Bool {
            if let mono { return event.mono < mono }
            if let deviceT { return event.t < deviceT }
            return true
        }

        var isFailure: Bool { resolution == "FAILURE" }
        var isSuccess: Bool { resolution == "SUCCESS" }
        var isStaleJobFailure: Bool { isFailure && origin == Self.staleJobOrigin && reason == Self.staleReason }

        var summary: String {
            "#\(ledger["ledgerSeq"] ?? "?") \(resolution ?? "?") reason=\(reason ?? "?") origin=\(origin ?? "?") "
                + "key=\(ledger["idempotencyKey"] ?? "?") previousStatus=\(ledger["previousStatus"] ?? "?")"
        }

        /// Settlements by session id, each list in journal order (`ledgerSeq`).
        static func bySession(in events: [HistoryEvent]) -> [String: [LedgerSettlement]] {
            var settledBySeq: [String: HistoryEvent] = [:]
            for event in events where event.process == HistoryEvent.serverProcessName && event.event == "settled" {
                if let seq = event["ledgerSeq"] { settledBySeq[seq] = settledBySeq[seq] ?? event }
            }
            var result: [String: [LedgerSettlement]] = [:]
            for event in events where event.isHarnessLine("ledger") {
                guard let sid = event.sessionIdField else { continue }
                let live = event["ledgerSeq"].flatMap { settledBySeq[$0] }.flatMap { $0.sessionIdField == sid ? $0 : nil }
                result[sid, default: []].append(LedgerSettlement(ledger: event, serverSettled: live))
            }
            return result.mapValues { $0.sorted { $0.ledgerSeq < $1.ledgerSeq } }
        }
    }
}
