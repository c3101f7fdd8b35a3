import Foundation

/// The imperative shell around `SettlementLedger`: serialises every operation (it is an actor),
/// makes each decision durable in the `LedgerJournal` BEFORE returning it, then traces it.
///
/// A journal or trace write that fails leaves the server unable to promise anything: the store
/// refuses every later call (`StoreUnavailable`, HTTP 503) and calls `onFatal`, which in the
/// executable prints one line and exits 2; a restart replays whatever reached the journal.
public actor SettlementStore {
    private var ledger: SettlementLedger
    private let journal: LedgerJournal
    private let trace: TraceWriter?
    private let now: @Sendable () -> Date
    private let onFatal: @Sendable (String) -> Void
    private var failure: String?
    public nonisolated let recovery: LedgerJournal.Recovery

    public struct StoreUnavailable: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public struct OpenError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(
        journalPath: String,
        tracePath: String?,
        limits: SettlementLimits = .standard,
        maxJournalBytes: Int = LedgerJournal.defaultMaxJournalBytes,
        now: @escaping @Sendable () -> Date,
        onFatal: @escaping @Sendable (String) -> Void
    ) throws(OpenError) {
        let startedAt = now()
        let opened: (journal: LedgerJournal, ledger: SettlementLedger, recovery: LedgerJournal.Recovery)
        do { opened = try LedgerJournal.open(path: journalPath, limits: limits, maxJournalBytes: maxJournalBytes, now: startedAt) }
        catch { throw OpenError(description: error.description) }
        var trace: TraceWriter?
        if let tracePath {
            do {
                let writer = try TraceWriter(path: tracePath)
                var started = TraceEvent(event: "started")
                started.count = opened.recovery.recordsReplayed
                started.ledgerSeq = opened.ledger.lastLedgerSeq
                started.detail = "journal \(journalPath)"
                try writer.emit(started, at: startedAt)
                if let copy = opened.recovery.corruptCopyPath {
                    var dropped = TraceEvent(event: "journal-tail-dropped")
                    dropped.count = opened.recovery.droppedTailBytes
                    dropped.detail = copy
                    try writer.emit(dropped, at: startedAt)
                }
                trace = writer
            } catch { throw OpenError(description: error.description) }
        }
        self.ledger = opened.ledger
        self.journal = opened.journal
        self.recovery = opened.recovery
        self.trace = trace
        self.now = now
        self.onFatal = onFatal
    }

    // MARK: - Operations

    public func createSession(sessionId: String, durationMinutes: Int) throws(StoreUnavailable) -> SettlementLedger.CreateOutcome {
        let t = try beginOperation()
        let step = ledger.createSession(sessionId: sessionId, durationMinutes: durationMinutes, now: t)
        try persist(step.records)
        var event: TraceEvent
        switch step.outcome {
        case .created(let session):
            event = TraceEvent(event: "created")
            event.sessionStatus = session.status.rawValue
        case .existing(let session):
            event = TraceEvent(event: "duplicate")
            event.sessionStatus = session.status.rawValue
        case .conflict(let existing):
            event = rejection("conflict", detail: "session exists with durationMinutes \(existing.durationMinutes)")
        case .invalid(let problem):
            event = rejection("invalid", detail: problem)
        }
        event.sessionId = sessionId
        event.durationMinutes = durationMinutes
        try emit(event, at: t)
        return step.outcome
    }

    public func heartbeat(sessionId: String) throws(StoreUnavailable) -> SettlementLedger.HeartbeatOutcome {
        let t = try beginOperation()
        let step = ledger.heartbeat(sessionId: sessionId, now: t)
        try persist(step.records)
        var event: TraceEvent
        switch step.outcome {
        case .recorded(let session):
            event = TraceEvent(event: "heartbeat")
            event.lastCheckedAtUnixMillis = session.lastCheckedAtUnixMillis
            event.sessionStatus = session.status.rawValue
        case .unknownSession:
            event = rejection("unknownSession", detail: "heartbeat")
        }
        event.sessionId = sessionId
        try emit(event, at: t)
        return step.outcome
    }

    public func resolve(_ request: SettlementLedger.ResolveRequest) throws(StoreUnavailable) -> SettlementLedger.ResolveOutcome {
        let t = try beginOperation()
        let step = ledger.resolve(request, now: t)
        try persist(step.records)
        var event: TraceEvent
        switch step.outcome {
        case .settled(let settlement):
            event = .settlement("settled", settlement, sessionStatus: ledger.session(settlement.sessionId)?.status)
        case .duplicate(let first):
            // The first outcome, as the client is told; the repeat's own resolution goes in detail.
            event = .settlement("duplicate", first, sessionStatus: ledger.session(first.sessionId)?.status)
            event.detail = "repeat asked \(request.resolution.rawValue) for session \(request.sessionId)"
        case .alreadyResolved(let existing):
            event = requestEvent(request, why: "alreadyResolved")
            event.ledgerSeq = existing.ledgerSeq
            event.sessionStatus = ledger.session(request.sessionId)?.status.rawValue
            event.detail = "settled \(existing.resolution.rawValue) (\(existing.reason)) at ledgerSeq \(existing.ledgerSeq)"
        case .unknownSession:
            event = requestEvent(request, why: "unknownSession")
        case .invalid(let problem):
            event = requestEvent(request, why: "invalid")
            event.detail = problem
        }
        try emit(event, at: t)
        return step.outcome
    }

    /// One tick of the seed's server-side scheduled job.
    @discardableResult
    public func expireStale(staleAfterSeconds: Double) throws(StoreUnavailable) -> [SettlementRecord] {
        let t = try beginOperation()
        let step = ledger.expireStale(now: t, staleAfterSeconds: staleAfterSeconds)
        try persist(step.records)
        for settlement in step.outcome {
            try emit(.settlement("stale-expired", settlement, sessionStatus: ledger.session(settlement.sessionId)?.status), at: t)
        }
        return step.outcome
    }

    /// Traces the server's clean stop (SIGTERM).
    public func traceStopped() {
        guard failure == nil else { return }
        try? emit(TraceEvent(event: "stopped"), at: now())
    }

    // MARK: - Queries

    public func session(_ sessionId: String) -> SessionRecord? { ledger.session(sessionId) }
    public func allSettlements() -> [SettlementRecord] { ledger.allSettlements }
    public func lastLedgerSeq() -> UInt64 { ledger.lastLedgerSeq }
    public func sessionCount() -> Int { ledger.sessions.count }
    public func currentLedger() -> SettlementLedger { ledger }

    // MARK: - Durability

    private func beginOperation() throws(StoreUnavailable) -> Date {
        if let failure { throw StoreUnavailable(description: failure) }
        return now()
    }

    private func persist(_ records: [JournalRecord]) throws(StoreUnavailable) {
        guard !records.isEmpty else { return }
        do { try journal.append(records) } catch { try fail(error.description) }
    }

    private func emit(_ event: TraceEvent, at t: Date) throws(StoreUnavailable) {
        guard let trace else { return }
        do { try trace.emit(event, at: t) } catch { try fail(error.description) }
    }

    private func fail(_ message: String) throws(StoreUnavailable) -> Never {
        failure = message
        onFatal(message)
        throw StoreUnavailable(description: message)
    }

    private func rejection(_ why: String, detail: String) -> TraceEvent {
        var event = TraceEvent(event: "rejected")
        event.why = why
        event.detail = detail
        return event
    }

    private func requestEvent(_ request: SettlementLedger.ResolveRequest, why: String) -> TraceEvent {
        var event = TraceEvent(event: "rejected")
        event.why = why
        event.sessionId = request.sessionId
        event.resolution = request.resolution.rawValue
        event.reason = request.reason
        event.idempotencyKey = request.idempotencyKey
        event.ifActive = request.ifActive
        event.nativeEvidence = request.nativeEvidence
        return event
    }
}
