import Foundation
import Testing
@testable import FocusPledgeServer
import FocusPledge

/// The rules of seed 000's `resolveSession` and its stale job, on the pure ledger (no I/O).
@Suite(.timeLimit(.minutes(1))) struct SettlementLedgerTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    func request(
        _ sessionId: String = "s1", _ resolution: Resolution = .failure, key: String,
        reason: String = "app_opened", ifActive: Bool = false
    ) -> ResolveSessionRequest {
        .init(sessionId: sessionId, resolution: resolution, idempotencyKey: key, reason: reason, ifActive: ifActive)
    }

    func request(
        _ resolution: Resolution, key: String, reason: String = "app_opened", ifActive: Bool = false
    ) -> ResolveSessionRequest {
        request("s1", resolution, key: key, reason: reason, ifActive: ifActive)
    }

    func ledgerWithSession(_ sessionId: String = "s1") -> SettlementLedger {
        var ledger = SettlementLedger()
        _ = ledger.createSession(sessionId: sessionId, durationMinutes: 60, now: t0)
        return ledger
    }

    @Test func createSessionIsIdempotentForSameParametersAndRefusesDifferentOnes() {
        var ledger = SettlementLedger()
        let first = ledger.createSession(sessionId: "s1", durationMinutes: 60, now: t0)
        guard case .created(let session) = first.outcome else { Issue.record("\(first.outcome)"); return }
        #expect(session.status == .active)
        #expect(session.createdAtUnixMillis == 1_700_000_000_000)
        #expect(first.records == [.created(sessionId: "s1", durationMinutes: 60, atUnixMillis: 1_700_000_000_000)])

        let again = ledger.createSession(sessionId: "s1", durationMinutes: 60, now: at(5))
        #expect(again.outcome == .existing(session))
        #expect(again.records.isEmpty)

        let conflicting = ledger.createSession(sessionId: "s1", durationMinutes: 30, now: at(6))
        #expect(conflicting.outcome == .conflict(existing: session))
        #expect(conflicting.records.isEmpty)
        #expect(ledger.session("s1") == session)
    }

    @Test func createSessionRejectsOutOfBoundInput() {
        var ledger = SettlementLedger()
        for (id, minutes) in [("", 60), ("s1", 0), ("s1", -5), ("s1", 7 * 24 * 60 + 1), (String(repeating: "x", count: 257), 60)] {
            let step = ledger.createSession(sessionId: id, durationMinutes: minutes, now: t0)
            guard case .invalid = step.outcome else { Issue.record("accepted \(id.prefix(8)) \(minutes)"); continue }
            #expect(step.records.isEmpty)
        }
        #expect(ledger.sessions.isEmpty)
    }

    @Test func heartbeatSetsLastCheckedAtAndRefusesUnknownSessions() {
        var ledger = ledgerWithSession()
        #expect(ledger.session("s1")?.lastCheckedAtUnixMillis == nil)
        let step = ledger.heartbeat(sessionId: "s1", now: at(5.5))
        #expect(step.records == [.heartbeat(sessionId: "s1", atUnixMillis: 1_700_000_005_500)])
        #expect(ledger.session("s1")?.lastCheckedAtUnixMillis == 1_700_000_005_500)

        let unknown = ledger.heartbeat(sessionId: "nope", now: at(6))
        #expect(unknown.outcome == .unknownSession)
        #expect(unknown.records.isEmpty)
    }

    @Test func newKeyOnActiveSessionSettlesItWithTheNextLedgerSeq() {
        var ledger = ledgerWithSession("a")
        _ = ledger.createSession(sessionId: "b", durationMinutes: 30, now: t0)
        let first = ledger.resolve(request("a", .failure, key: "k1"), now: at(10))
        let second = ledger.resolve(request("b", .success, key: "k2", reason: "completed"), now: at(11))
        guard case .settled(let s1) = first.outcome, case .settled(let s2) = second.outcome else {
            Issue.record("\(first.outcome) \(second.outcome)"); return
        }
        #expect(s1.ledgerSeq == 1)
        #expect(s2.ledgerSeq == 2)
        #expect(s1.previousStatus == .active)
        #expect(first.records == [.settled(s1)])
        #expect(ledger.session("a")?.status == .failure)
        #expect(ledger.session("b")?.status == .success)
        #expect(ledger.session("a")?.resolutions == [s1])
        #expect(ledger.lastLedgerSeq == 2)
    }

    @Test func repeatedKeyReturnsTheFirstOutcomeUnchangedAndRecordsNothing() {
        var ledger = ledgerWithSession()
        guard case .settled(let first) = ledger.resolve(request(.failure, key: "k1"), now: at(10)).outcome else {
            Issue.record("not settled"); return
        }
        let before = ledger
        // Same key, different resolution, reason and flag, much later: still the first outcome.
        let repeatStep = ledger.resolve(
            request(.success, key: "k1", reason: "completed", ifActive: true), now: at(500))
        #expect(repeatStep.outcome == .duplicate(first))
        #expect(repeatStep.records.isEmpty)
        #expect(ledger == before)
    }

    @Test func ifActiveRefusesASettledSessionAndCarriesTheExistingResolution() {
        var ledger = ledgerWithSession()
        guard case .settled(let first) = ledger.resolve(request(.failure, key: "k1"), now: at(10)).outcome else {
            Issue.record("not settled"); return
        }
        let before = ledger
        let step = ledger.resolve(request(.success, key: "k2", reason: "completed", ifActive: true), now: at(20))
        #expect(step.outcome == .alreadyResolved(existing: first))
        #expect(step.records.isEmpty)
        #expect(ledger == before)
        #expect(ledger.settlementsByKey["k2"] == nil)
    }

    @Test func withoutIfActiveANewKeySettlesASettledSessionAgainAndBothAreKept() {
        // The as-written client: key flutter_<id>_<now ms>, a fresh key on every call.
        var ledger = ledgerWithSession()
        let failure = ledger.resolve(request(.failure, key: "flutter_s1_1700000010000"), now: at(10))
        let success = ledger.resolve(
            request(.success, key: "flutter_s1_1700000020000", reason: "completed"), now: at(20))
        guard case .settled(let s1) = failure.outcome, case .settled(let s2) = success.outcome else {
            Issue.record("\(failure.outcome) \(success.outcome)"); return
        }
        #expect(s2.ledgerSeq == s1.ledgerSeq + 1)
        #expect(s2.previousStatus == .failure)
        #expect(success.records == [.settled(s2)])
        #expect(ledger.session("s1")?.status == .success)  // overwritten, as the seed's function does
        #expect(ledger.session("s1")?.resolutions == [s1, s2])
        #expect(ledger.allSettlements == [s1, s2])
    }

    @Test func unknownSessionIsNotCreatedImplicitly() {
        var ledger = SettlementLedger()
        let step = ledger.resolve(request("ghost", key: "k1"), now: t0)
        #expect(step.outcome == .unknownSession)
        #expect(step.records.isEmpty)
        #expect(ledger.sessions.isEmpty)
        #expect(ledger.settlementsByKey.isEmpty)
    }

    @Test func resolveRejectsOversizedInput() {
        var ledger = ledgerWithSession()
        let longKey = request(key: String(repeating: "k", count: 257))
        let longReason = request(key: "k1", reason: String(repeating: "r", count: 257))
        var tooMuchEvidence = request(key: "k2")
        tooMuchEvidence.nativeEvidence = Dictionary(uniqueKeysWithValues: (0..<17).map { ("k\($0)", "v") })
        for bad in [longKey, longReason, tooMuchEvidence, request(key: "")] {
            guard case .invalid = ledger.resolve(bad, now: t0).outcome else { Issue.record("accepted"); continue }
        }
        #expect(ledger.lastLedgerSeq == 0)
    }

    @Test func settlementsPerSessionAreBounded() {
        var ledger = SettlementLedger(limits: SettlementLimits(maxSettlementsPerSession: 2))
        _ = ledger.createSession(sessionId: "s1", durationMinutes: 60, now: t0)
        _ = ledger.resolve(request(key: "k1"), now: at(1))
        _ = ledger.resolve(request(key: "k2"), now: at(2))
        guard case .invalid(let message) = ledger.resolve(request(key: "k3"), now: at(3)).outcome else {
            Issue.record("third settlement accepted"); return
        }
        #expect(message.contains("maximum of 2"))
        #expect(ledger.session("s1")?.resolutions.count == 2)
    }

    @Test func staleJobSettlesSilentActiveSessionsOnly() throws {
        var ledger = SettlementLedger()
        _ = ledger.createSession(sessionId: "never-checked", durationMinutes: 60, now: t0)
        _ = ledger.createSession(sessionId: "checked", durationMinutes: 60, now: t0)
        _ = ledger.createSession(sessionId: "settled", durationMinutes: 60, now: t0)
        _ = ledger.heartbeat(sessionId: "checked", now: at(20))
        _ = ledger.resolve(request("settled", .success, key: "k1", reason: "completed"), now: at(5))

        // Exactly staleAfterSeconds old is not yet "older than".
        let atBoundary = ledger.expireStale(now: at(30), staleAfterSeconds: 30)
        #expect(atBoundary.outcome.isEmpty)
        #expect(atBoundary.records.isEmpty)

        let step = ledger.expireStale(now: at(30.001), staleAfterSeconds: 30)
        try #require(step.outcome.map(\.sessionId) == ["never-checked"])
        let stale = step.outcome[0]
        #expect(stale.resolution == .failure)
        #expect(stale.reason == "no_heartbeat")
        #expect(stale.idempotencyKey == "server_stale_never-checked")
        #expect(stale.origin == .staleJob)
        #expect(stale.ledgerSeq == 2)
        #expect(stale.nativeEvidence == ["lastHeardAtUnixMillis": "1700000000000"])
        #expect(step.records == [.settled(stale)])
        #expect(ledger.session("never-checked")?.status == .failure)
        #expect(ledger.session("settled")?.resolutions.count == 1)

        // The heartbeat at 20 s keeps "checked" alive until 50 s.
        #expect(ledger.expireStale(now: at(50), staleAfterSeconds: 30).outcome.isEmpty)
        let later = ledger.expireStale(now: at(50.5), staleAfterSeconds: 30)
        #expect(later.outcome.map(\.sessionId) == ["checked"])
        // Settled sessions are never expired again.
        #expect(ledger.expireStale(now: at(10_000), staleAfterSeconds: 30).outcome.isEmpty)
        #expect(ledger.lastLedgerSeq == 3)
    }

    @Test func staleExpiryThenAsWrittenClientDoubleSettlesButIfActiveDoesNot() {
        var ledger = ledgerWithSession()
        _ = ledger.expireStale(now: at(61), staleAfterSeconds: 60)
        #expect(ledger.session("s1")?.status == .failure)

        let hardened = ledger.resolve(request(.success, key: "hardened_s1", reason: "completed", ifActive: true), now: at(62))
        guard case .alreadyResolved(let existing) = hardened.outcome else { Issue.record("\(hardened.outcome)"); return }
        #expect(existing.idempotencyKey == "server_stale_s1")

        let asWritten = ledger.resolve(request(.success, key: "flutter_s1_1700000063000", reason: "completed"), now: at(63))
        guard case .settled(let second) = asWritten.outcome else { Issue.record("\(asWritten.outcome)"); return }
        #expect(second.previousStatus == .failure)
        #expect(ledger.session("s1")?.resolutions.map(\.idempotencyKey) == ["server_stale_s1", "flutter_s1_1700000063000"])
    }

    @Test func replayingEveryStepsRecordsRebuildsAnEqualLedger() throws {
        var ledger = SettlementLedger()
        var records: [JournalRecord] = []
        records += ledger.createSession(sessionId: "a", durationMinutes: 60, now: at(0.0001)).records
        records += ledger.createSession(sessionId: "b", durationMinutes: 15, now: at(1)).records
        records += ledger.heartbeat(sessionId: "a", now: at(2.123)).records
        records += ledger.resolve(request("a", key: "k1"), now: at(3)).records
        records += ledger.resolve(request("a", .success, key: "k2"), now: at(4)).records
        records += ledger.resolve(request("a", key: "k1"), now: at(5)).records  // duplicate: nothing
        records += ledger.expireStale(now: at(100), staleAfterSeconds: 30).records

        var replayed = SettlementLedger()
        for record in records { try replayed.apply(record) }
        #expect(replayed == ledger)
        #expect(records.count == 6)
    }

    @Test func applyRefusesRecordsTheLedgerCouldNotHaveWritten() {
        var ledger = ledgerWithSession()
        let settlement = SettlementRecord(
            ledgerSeq: 2, sessionId: "s1", resolution: .failure, reason: "r", idempotencyKey: "k",
            nativeEvidence: nil, ifActive: false, origin: .client, previousStatus: .active, settledAtUnixMillis: 0)
        #expect(throws: SettlementLedger.ReplayError.self) { try ledger.apply(.settled(settlement)) }  // seq gap
        var ghost = settlement
        ghost.ledgerSeq = 1
        ghost.sessionId = "ghost"
        #expect(throws: SettlementLedger.ReplayError.self) { try ledger.apply(.settled(ghost)) }
        #expect(throws: SettlementLedger.ReplayError.self) { try ledger.apply(.heartbeat(sessionId: "ghost", atUnixMillis: 0)) }
        #expect(throws: SettlementLedger.ReplayError.self) {
            try ledger.apply(.created(sessionId: "s1", durationMinutes: 60, atUnixMillis: 0))
        }
        #expect(ledger == ledgerWithSession())
    }
}
