import FocusPledge
import Foundation
import History

/// The imperative shell around `SettlementService`: serialises every request (under one lock — a
/// class rather than an actor, so the harness can also call it synchronously when it runs the
/// server inside its own process, `SettlementInProcessServer`), makes each decision durable in the `LedgerJournal` BEFORE answering it, then traces it.
///
/// A journal or trace write that fails leaves the server unable to promise anything: the store
/// refuses every later call (HTTP 503) and calls `onFatal`, which in the executable prints one line
/// and exits 2; a restart replays whatever reached the journal.
public final class SettlementStore: @unchecked Sendable {
    /// Every public operation holds it (they call one another: recursive).
    private let serial = NSRecursiveLock()
    private var ledger: SettlementLedger
    private let journal: LedgerJournal
    private let trace: TraceLog?
    private let now: @Sendable () -> Date
    private let onFatal: @Sendable (String) -> Void
    private var failure: String?
    public nonisolated let recovery: LedgerJournal.Recovery
    /// Stepped virtual time: told after every change, before any answer leaves, what the server
    /// waits for next (its stale-job deadline) and which clock generation it has caught up with.
    private var stepped: (staleAfterSeconds: Double, report: @Sendable (Date?, UInt64) -> Void)?
    private var clockGeneration: UInt64 = 0

    public struct OpenError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(
        journalPath: String,
        tracePath: String?,
        limits: SettlementLimits = .standard,
        maxJournalBytes: Int = LedgerJournal.defaultMaxJournalBytes,
        journalFsync: Bool = true,
        now: @escaping @Sendable () -> Date,
        onFatal: @escaping @Sendable (String) -> Void
    ) throws(OpenError) {
        let startedAt = now()
        let opened: (journal: LedgerJournal, ledger: SettlementLedger, recovery: LedgerJournal.Recovery)
        do {
            opened = try LedgerJournal.open(
                path: journalPath, limits: limits, maxJournalBytes: maxJournalBytes, now: startedAt, syncs: journalFsync)
        } catch { throw OpenError(description: error.description) }
        var trace: TraceLog?
        if let tracePath {
            do {
                let log = try TraceLog(path: tracePath, process: "settlement-server", deviceTime: { now().timeIntervalSince1970 })
                try log.append("started", [
                    "count": String(opened.recovery.recordsReplayed), "ledgerSeq": String(opened.ledger.lastLedgerSeq),
                    "detail": "journal \(journalPath)",
                ], deviceTime: startedAt.timeIntervalSince1970)
                if opened.recovery.compactedRecords > 0 {
                    try log.append("journal-compacted", [
                        "count": String(opened.recovery.compactedRecords), "detail": "overridden heartbeats removed",
                    ], deviceTime: startedAt.timeIntervalSince1970)
                }
                if let copy = opened.recovery.corruptCopyPath {
                    try log.append("journal-tail-dropped", [
                        "count": String(opened.recovery.droppedTailBytes), "detail": copy,
                    ], deviceTime: startedAt.timeIntervalSince1970)
                }
                trace = log
            } catch { throw OpenError(description: "\(error)") }
        }
        self.ledger = opened.ledger
        self.journal = opened.journal
        self.recovery = opened.recovery
        self.trace = trace
        self.now = now
        self.onFatal = onFatal
    }

    // MARK: - Operations

    /// One HTTP request: routed by `SettlementService`, journaled, traced, answered.
    public func handle(method: String, path: String, body: Data?) -> SettlementService.Reply {
        serial.lock()
        defer { serial.unlock() }
        if let failure { return Self.unavailable(failure) }
        let t = now()
        let step = SettlementService.handle(method: method, path: path, body: body, ledger: &ledger, now: t)
        if let problem = persist(step.records, step.trace, at: t) { return Self.unavailable(problem) }
        reportIdle()
        return step.reply
    }

    /// Takes part in stepped virtual time (PROTOCOL.md §9); reports at once.
    public func participate(staleAfterSeconds: Double, clockGeneration: UInt64, report: @escaping @Sendable (Date?, UInt64) -> Void) {
        serial.lock()
        defer { serial.unlock() }
        stepped = (staleAfterSeconds, report)
        self.clockGeneration = clockGeneration
        // A participant never reports a deadline that has passed: a restarted server catches up
        // with whatever went stale while it was down before it says it is idle.
        if failure == nil { expireStale(staleAfterSeconds: staleAfterSeconds) }
        reportIdle()
    }

    /// The stepped clock moved (generation `clockGeneration`): run the stale job at the new time.
    public func clockMoved(clockGeneration: UInt64) {
        serial.lock()
        defer { serial.unlock() }
        if let stepped, failure == nil { expireStale(staleAfterSeconds: stepped.staleAfterSeconds) }
        self.clockGeneration = max(self.clockGeneration, clockGeneration)
        reportIdle()
    }

    private func reportIdle() {
        guard let stepped else { return }
        stepped.report(ledger.nextStaleDeadline(staleAfterSeconds: stepped.staleAfterSeconds), clockGeneration)
    }

    /// One tick of the seed's server-side scheduled job; returns how many sessions it settled.
    @discardableResult
    public func expireStale(staleAfterSeconds: Double) -> Int {
        serial.lock()
        defer { serial.unlock() }
        guard failure == nil else { return 0 }
        let t = now()
        let step = SettlementService.expireStale(ledger: &ledger, now: t, staleAfterSeconds: staleAfterSeconds)
        _ = persist(step.records, step.trace, at: t)
        return step.records.count
    }

    /// Creates every planned pledge the ledger does not hold yet, as of its planned start
    /// (`PlannedPledges`), counting from `origin` (nil = now) unless the ledger already says where
    /// the plan starts; returns how many it created. Journaled before anyone can ask.
    @discardableResult
    public func preCreate(_ plan: PlannedPledges, origin: Date? = nil) -> Int {
        serial.lock()
        defer { serial.unlock() }
        guard failure == nil else { return 0 }
        let t = now()
        let base = plan.clockStart(ledger: ledger, now: origin ?? t)
        var records: [JournalRecord] = []
        var events: [ServerTraceEvent] = []
        for p in plan.pledges where ledger.session(p.sessionId) == nil {
            let createdAt = base.addingTimeInterval(p.startOffsetSeconds)
            let step = ledger.createSession(sessionId: p.sessionId, durationMinutes: p.durationMinutes, now: createdAt)
            guard case .created = step.outcome else { continue }
            records += step.records
            events.append(ServerTraceEvent("created", [
                "sessionId": p.sessionId, "durationMinutes": String(p.durationMinutes), "origin": "plan",
                "createdAtUnixMillis": String(UnixMillis.from(createdAt)), "sessionStatus": "active",
            ]))
        }
        _ = persist(records, events, at: t)
        return records.count
    }

    /// Traces the server's clean stop (SIGTERM).
    public func traceStopped() {
        serial.lock()
        defer { serial.unlock() }
        guard failure == nil, let trace else { return }
        try? trace.append("stopped", [:], deviceTime: now().timeIntervalSince1970)
    }

    // MARK: - Queries

    /// The ledger between two operations: under the lock, so a reader never sees a decision that
    /// is not yet journaled and traced (nor a struct half-written by another thread).
    public func currentLedger() -> SettlementLedger {
        serial.lock()
        defer { serial.unlock() }
        return ledger
    }

    // MARK: - Durability

    /// Journals, then traces; the first failure is fatal for this process. Nil on success.
    private func persist(_ records: [JournalRecord], _ events: [ServerTraceEvent], at t: Date) -> String? {
        serial.lock()
        defer { serial.unlock() }
        do {
            if !records.isEmpty { try journal.append(records) }
        } catch { return fail(error.description) }
        guard let trace else { return nil }
        for event in events {
            do { try trace.append(event.event, event.fields, deviceTime: t.timeIntervalSince1970) } catch { return fail("\(error)") }
        }
        return nil
    }

    private func fail(_ message: String) -> String {
        failure = message
        onFatal(message)
        return message
    }

    static func unavailable(_ problem: String) -> SettlementService.Reply {
        SettlementService.error(503, "unavailable", "the settlement journal failed: \(problem.split(whereSeparator: \.isNewline).joined(separator: " "))")
    }
}
