import FocusPledge
import Foundation

/// The settlement server's whole decision logic: seed 000's `resolveSession` Cloud Function plus
/// its server-side stale-session job, as a pure state machine.
///
/// No I/O and no clock reads: every operation takes `now` and returns its outcome together with
/// the journal records that make it durable. The state changes only through `apply(_:)`, which is
/// also what journal replay calls, so a replayed ledger equals the one that wrote the journal.
///
/// Rules (see the brief in docs and seed 000, "Replay protection" and "No Heartbeat"):
/// - an idempotency key names its FIRST settlement forever: repeating it returns that outcome and
///   records nothing, whatever else the repeat says;
/// - a new key on an ACTIVE session settles it;
/// - a new key on a settled session is refused (`alreadyResolved`) when `ifActive` is true, and is
///   APPLIED as another settlement when `ifActive` is false — the seed's function knows only
///   idempotency keys, and its client makes a fresh key per call, so it can double-settle; the
///   ledger keeps both settlements so checkers can see it;
/// - the stale job settles every ACTIVE session not heard from for `staleAfterSeconds` as
///   FAILURE `no_heartbeat` under the key `server_stale_<sessionId>`.
public struct SettlementLedger: Sendable, Equatable {
    public let limits: SettlementLimits
    public private(set) var sessions: [String: SessionRecord] = [:]
    /// Idempotency key → the settlement it first produced.
    public private(set) var settlementsByKey: [String: SettlementRecord] = [:]
    /// The ledgerSeq of the latest settlement; 0 when there is none.
    public private(set) var lastLedgerSeq: UInt64 = 0
    /// Kept beside `sessions` so the stale job, which runs every 100 ms, touches only live sessions.
    private var activeSessionIds: Set<String> = []

    public static let staleReason = "no_heartbeat"
    public static func staleIdempotencyKey(sessionId: String) -> String { "server_stale_\(sessionId)" }

    public init(limits: SettlementLimits = .standard) {
        self.limits = limits
    }

    /// An outcome and the records that must be durable before anyone is told about it.
    public struct Step<Outcome> {
        public var outcome: Outcome
        public var records: [JournalRecord]
    }

    // MARK: - createSession

    public enum CreateOutcome: Sendable, Equatable {
        case created(SessionRecord)
        /// Same id and same duration as an existing session: nothing changes.
        case existing(SessionRecord)
        /// Same id, different duration: refused, the existing session is unchanged.
        case conflict(existing: SessionRecord)
        case invalid(String)
    }

    public mutating func createSession(sessionId: String, durationMinutes: Int, now: Date) -> Step<CreateOutcome> {
        if let problem = validateIdentifier(sessionId, name: "sessionId") {
            return Step(outcome: .invalid(problem), records: [])
        }
        guard durationMinutes > 0, durationMinutes <= limits.maxDurationMinutes else {
            return Step(
                outcome: .invalid("durationMinutes must be in 1...\(limits.maxDurationMinutes), got \(durationMinutes)"),
                records: [])
        }
        if let existing = sessions[sessionId] {
            let outcome: CreateOutcome =
                existing.durationMinutes == durationMinutes ? .existing(existing) : .conflict(existing: existing)
            return Step(outcome: outcome, records: [])
        }
        guard sessions.count < limits.maxSessions else {
            return Step(outcome: .invalid("the ledger holds its maximum of \(limits.maxSessions) sessions"), records: [])
        }
        let record = JournalRecord.created(
            sessionId: sessionId, durationMinutes: durationMinutes, atUnixMillis: UnixMillis.from(now))
        applyKnownGood(record)
        return Step(outcome: .created(sessions[sessionId]!), records: [record])
    }

    // MARK: - heartbeat

    public enum HeartbeatOutcome: Sendable, Equatable {
        case recorded(SessionRecord)
        case unknownSession
    }

    /// The host's poll: sets `lastCheckedAt`. Recorded on settled sessions too (the host keeps
    /// polling until it notices), where it has no effect on the stale job.
    public mutating func heartbeat(sessionId: String, now: Date) -> Step<HeartbeatOutcome> {
        guard sessions[sessionId] != nil else { return Step(outcome: .unknownSession, records: []) }
        let record = JournalRecord.heartbeat(sessionId: sessionId, atUnixMillis: UnixMillis.from(now))
        applyKnownGood(record)
        return Step(outcome: .recorded(sessions[sessionId]!), records: [record])
    }

    // MARK: - resolve

    public enum ResolveOutcome: Sendable, Equatable {
        /// A new settlement was recorded. `previousStatus != .active` means a double settlement.
        case settled(SettlementRecord)
        /// The key was seen before: its first settlement, unchanged. Nothing recorded.
        case duplicate(SettlementRecord)
        /// `ifActive` and the session is already settled: its latest settlement. Nothing recorded.
        case alreadyResolved(existing: SettlementRecord)
        case unknownSession
        case invalid(String)
    }

    public mutating func resolve(_ request: ResolveSessionRequest, now: Date) -> Step<ResolveOutcome> {
        if let problem = validate(request) { return Step(outcome: .invalid(problem), records: []) }
        if let first = settlementsByKey[request.idempotencyKey] {
            return Step(outcome: .duplicate(first), records: [])
        }
        guard let session = sessions[request.sessionId] else {
            return Step(outcome: .unknownSession, records: [])
        }
        if session.status != .active, request.ifActive, let latest = session.resolutions.last {
            return Step(outcome: .alreadyResolved(existing: latest), records: [])
        }
        if let problem = roomForSettlement(session) { return Step(outcome: .invalid(problem), records: []) }
        let settlement = SettlementRecord(
            ledgerSeq: lastLedgerSeq + 1, sessionId: request.sessionId, resolution: request.resolution,
            reason: request.reason, idempotencyKey: request.idempotencyKey,
            nativeEvidence: request.nativeEvidence, ifActive: request.ifActive, origin: .client,
            previousStatus: session.status, settledAtUnixMillis: UnixMillis.from(now))
        applyKnownGood(.settled(settlement))
        return Step(outcome: .settled(settlement), records: [.settled(settlement)])
    }

    // MARK: - expireStale

    /// The seed's server-side scheduled job. Returns the settlements it made, in sessionId order.
    /// A session is stale when `now - (lastCheckedAt ?? createdAt) > staleAfterSeconds`.
    public mutating func expireStale(now: Date, staleAfterSeconds: Double) -> Step<[SettlementRecord]> {
        let nowMillis = UnixMillis.from(now)
        let staleAfterMillis = Int64((staleAfterSeconds * 1000).rounded())
        var stale: [String] = []
        for sessionId in activeSessionIds {
            let session = sessions[sessionId]!
            let lastHeardMillis = session.lastCheckedAtUnixMillis ?? session.createdAtUnixMillis
            if nowMillis - lastHeardMillis > staleAfterMillis { stale.append(sessionId) }
        }
        var settlements: [SettlementRecord] = []
        for sessionId in stale.sorted() {
            let session = sessions[sessionId]!
            let key = Self.staleIdempotencyKey(sessionId: sessionId)
            // A client could have used this key itself; the key's first outcome stands.
            guard settlementsByKey[key] == nil, roomForSettlement(session) == nil else { continue }
            let lastHeardMillis = session.lastCheckedAtUnixMillis ?? session.createdAtUnixMillis
            let settlement = SettlementRecord(
                ledgerSeq: lastLedgerSeq + 1, sessionId: sessionId, resolution: .failure,
                reason: Self.staleReason, idempotencyKey: key,
                nativeEvidence: ["lastHeardAtUnixMillis": String(lastHeardMillis)], ifActive: true,
                origin: .staleJob, previousStatus: session.status, settledAtUnixMillis: nowMillis)
            applyKnownGood(.settled(settlement))
            settlements.append(settlement)
        }
        return Step(outcome: settlements, records: settlements.map { .settled($0) })
    }

    // MARK: - Queries

    /// The earliest device time at which `expireStale(now:staleAfterSeconds:)` would settle
    /// something, or nil when no session is active: the server's next deadline in stepped time.
    public func nextStaleDeadline(staleAfterSeconds: Double) -> Date? {
        let staleAfterMillis = Int64((staleAfterSeconds * 1000).rounded())
        let earliest = activeSessionIds.compactMap { sessions[$0] }.map { $0.lastCheckedAtUnixMillis ?? $0.createdAtUnixMillis }.min()
        // Stale means strictly older than the threshold: one millisecond past it.
        return earliest.map { UnixMillis.date($0 + staleAfterMillis + 1) }
    }

    public func session(_ sessionId: String) -> SessionRecord? { sessions[sessionId] }

    /// Every settlement in ledger order.
    public var allSettlements: [SettlementRecord] {
        settlementsByKey.values.sorted { $0.ledgerSeq < $1.ledgerSeq }
    }

    // MARK: - Applying records

    public struct ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Applies one journal record. Refuses records that this ledger could never have produced
    /// (unknown session, a seq that is not the next one, a key used twice, …): on replay that is
    /// corruption, and must stop the server rather than be guessed around.
    public mutating func apply(_ record: JournalRecord) throws(ReplayError) {
        switch record {
        case .created(let sessionId, let durationMinutes, let atUnixMillis):
            guard sessions[sessionId] == nil else {
                throw ReplayError(description: "session \"\(sessionId)\" is created twice")
            }
            guard durationMinutes > 0 else {
                throw ReplayError(description: "session \"\(sessionId)\" has durationMinutes \(durationMinutes)")
            }
            sessions[sessionId] = SessionRecord(
                sessionId: sessionId, durationMinutes: durationMinutes, createdAtUnixMillis: atUnixMillis)
            activeSessionIds.insert(sessionId)
        case .heartbeat(let sessionId, let atUnixMillis):
            guard sessions[sessionId] != nil else {
                throw ReplayError(description: "heartbeat for unknown session \"\(sessionId)\"")
            }
            sessions[sessionId]!.lastCheckedAtUnixMillis = atUnixMillis
        case .settled(let settlement):
            guard let session = sessions[settlement.sessionId] else {
                throw ReplayError(description: "settlement \(settlement.ledgerSeq) of unknown session \"\(settlement.sessionId)\"")
            }
            guard settlement.ledgerSeq == lastLedgerSeq + 1 else {
                throw ReplayError(description: "settlement has ledgerSeq \(settlement.ledgerSeq), expected \(lastLedgerSeq + 1)")
            }
            guard settlementsByKey[settlement.idempotencyKey] == nil else {
                throw ReplayError(description: "idempotency key \"\(settlement.idempotencyKey)\" settles twice")
            }
            guard settlement.previousStatus == session.status else {
                throw ReplayError(description: "settlement \(settlement.ledgerSeq) says the session was \(settlement.previousStatus.rawValue), it was \(session.status.rawValue)")
            }
            sessions[settlement.sessionId]!.status = settlement.resolution.status
            sessions[settlement.sessionId]!.resolutions.append(settlement)
            settlementsByKey[settlement.idempotencyKey] = settlement
            lastLedgerSeq = settlement.ledgerSeq
            activeSessionIds.remove(settlement.sessionId)
        }
    }

    /// For records this ledger just decided on: failing here is a bug in this file.
    private mutating func applyKnownGood(_ record: JournalRecord) {
        do { try apply(record) } catch { preconditionFailure("ledger produced an inapplicable record: \(error)") }
    }

    // MARK: - Validation

    private func validateIdentifier(_ value: String, name: String) -> String? {
        if value.isEmpty { return "\(name) must not be empty" }
        if value.utf8.count > limits.maxIdentifierBytes {
            return "\(name) is longer than \(limits.maxIdentifierBytes) bytes"
        }
        return nil
    }

    private func validate(_ request: ResolveSessionRequest) -> String? {
        if let problem = validateIdentifier(request.sessionId, name: "sessionId") { return problem }
        if let problem = validateIdentifier(request.idempotencyKey, name: "idempotencyKey") { return problem }
        if request.reason.utf8.count > limits.maxReasonBytes {
            return "reason is longer than \(limits.maxReasonBytes) bytes"
        }
        if let evidence = request.nativeEvidence {
            if evidence.count > limits.maxEvidenceEntries {
                return "nativeEvidence has more than \(limits.maxEvidenceEntries) entries"
            }
            for (key, value) in evidence
            where key.utf8.count > limits.maxEvidenceValueBytes || value.utf8.count > limits.maxEvidenceValueBytes {
                return "nativeEvidence entry \"\(key.prefix(32))\" is longer than \(limits.maxEvidenceValueBytes) bytes"
            }
        }
        return nil
    }

    private func roomForSettlement(_ session: SessionRecord) -> String? {
        if session.resolutions.count >= limits.maxSettlementsPerSession {
            return "session \"\(session.sessionId)\" has its maximum of \(limits.maxSettlementsPerSession) settlements"
        }
        if settlementsByKey.count >= limits.maxSettlementsTotal {
            return "the ledger holds its maximum of \(limits.maxSettlementsTotal) settlements"
        }
        return nil
    }
}
