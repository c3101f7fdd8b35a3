import Foundation
import Testing
@testable import FocusPledgeServer
import FocusPledge

/// Durability and replay of the settlement journal, including what a SIGKILL mid-write leaves.
@Suite(.timeLimit(.minutes(3))) struct LedgerJournalTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// Writes a small history through the journal and returns the ledger that wrote it.
    func writeHistory(to path: String) throws -> SettlementLedger {
        let (journal, replayed, _) = try LedgerJournal.open(path: path, now: t0)
        var ledger = replayed
        try journal.append(ledger.createSession(sessionId: "s1", durationMinutes: 60, now: t0).records)
        try journal.append(ledger.heartbeat(sessionId: "s1", now: t0.addingTimeInterval(5)).records)
        try journal.append(ledger.resolve(
            .init(sessionId: "s1", resolution: .failure, idempotencyKey: "k1", reason: "app_opened",
                  nativeEvidence: ["appBundleId": "com.example.game"]),
            now: t0.addingTimeInterval(6)).records)
        try journal.append(ledger.resolve(
            .init(sessionId: "s1", resolution: .success, idempotencyKey: "k2", reason: "completed"),
            now: t0.addingTimeInterval(7)).records)
        return ledger
    }

    @Test func appendedRecordsReplayIntoAnEqualLedger() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let written = try writeHistory(to: dir.file("journal.jsonl"))

        let (_, replayed, recovery) = try LedgerJournal.open(path: dir.file("journal.jsonl"), now: t0)
        #expect(replayed == written)
        #expect(replayed.session("s1")?.resolutions.count == 2)
        #expect(recovery == .init(recordsReplayed: 4, droppedTailBytes: 0, corruptCopyPath: nil))
        let lines = try dir.bytes("journal.jsonl").split(separator: 0x0A)
        #expect(lines.count == 4)
    }

    @Test func tornLastLineIsDroppedSavedAndTruncatedAway() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        let written = try writeHistory(to: path)
        let goodBytes = try dir.bytes("journal.jsonl")
        let torn = #"{"settlement":{"idempotencyKey":"k3","ledgerSeq":3,"#
        try dir.append(torn, to: "journal.jsonl")

        var ledger: SettlementLedger
        do {
            let opened = try LedgerJournal.open(path: path, now: Date(timeIntervalSince1970: 1_700_000_123.456))
            #expect(opened.ledger == written)
            #expect(opened.recovery.recordsReplayed == 4)
            #expect(opened.recovery.droppedTailBytes == torn.utf8.count)
            #expect(opened.recovery.corruptCopyPath == path + ".corrupt-1700000123456")
            #expect(try dir.bytes("journal.jsonl.corrupt-1700000123456") == Array(torn.utf8))
            #expect(try dir.bytes("journal.jsonl") == goodBytes)

            // The journal goes on from the last good newline.
            ledger = opened.ledger
            try opened.journal.append(ledger.createSession(sessionId: "s2", durationMinutes: 15, now: t0).records)
        }  // the journal closes here, releasing its lock

        let after = try LedgerJournal.open(path: path, now: t0)
        #expect(after.ledger == ledger)
        #expect(after.recovery == .init(recordsReplayed: 5, droppedTailBytes: 0, corruptCopyPath: nil))
    }

    @Test func unparseableLastLineWithNewlineIsAlsoDropped() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        let written = try writeHistory(to: path)
        // What a power loss can leave: the file grew but the block is zeros.
        try dir.append(String(repeating: "\0", count: 16) + "\n", to: "journal.jsonl")

        let opened = try LedgerJournal.open(path: path, now: t0)
        #expect(opened.ledger == written)
        #expect(opened.recovery.droppedTailBytes == 17)
        #expect(opened.recovery.corruptCopyPath != nil)
    }

    @Test func corruptMiddleLineIsAHardErrorAndTheFileIsLeftAlone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        _ = try writeHistory(to: path)
        var lines = try dir.bytes("journal.jsonl").split(separator: 0x0A, omittingEmptySubsequences: false)
        lines[1] = ArraySlice(#"{"v":1,"type":"heartb"#.utf8)
        let damaged = Array(lines.joined(separator: [0x0A]))
        try Data(damaged).write(to: URL(fileURLWithPath: path))

        #expect {
            _ = try LedgerJournal.open(path: path, now: t0)
        } throws: { error in
            guard case .corruptLine(_, let lineNumber, _, _) = error as? LedgerJournal.JournalError else { return false }
            return lineNumber == 2 && !String(describing: error).contains("\n")
        }
        #expect(try dir.bytes("journal.jsonl") == damaged)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("corrupt") }
        #expect(leftovers.isEmpty)
    }

    /// Replay decodes all lines at once (`replayBatch`) only when each line is one record: two on
    /// one line, or a blank line, are the line's error, as when each line was decoded alone.
    @Test(arguments: [
        #"{"v":1,"type":"heartbeat","sessionId":"s1","atUnixMillis":1},{"v":1,"type":"heartbeat","sessionId":"s1","atUnixMillis":2}"#,
        "",
        " ",
    ])
    func aLineThatIsNotOneRecordIsACorruptLine(_ bad: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        let lines = [
            #"{"v":1,"type":"created","sessionId":"s1","durationMinutes":60,"atUnixMillis":0}"#, bad,
            #"{"v":1,"type":"heartbeat","sessionId":"s1","atUnixMillis":3}"#,
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try LedgerJournal.open(path: path, now: t0)
        } throws: { error in
            guard case .corruptLine(_, let lineNumber, _, _) = error as? LedgerJournal.JournalError else { return false }
            return lineNumber == 2
        }
    }

    @Test func wellFormedButImpossibleRecordIsAHardError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        let lines = [
            #"{"v":1,"type":"created","sessionId":"s1","durationMinutes":60,"atUnixMillis":0}"#,
            #"{"v":1,"type":"heartbeat","sessionId":"ghost","atUnixMillis":1}"#,
            #"{"v":1,"type":"heartbeat","sessionId":"s1","atUnixMillis":2}"#,
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try LedgerJournal.open(path: path, now: t0)
        } throws: { error in
            guard case .inconsistent(_, let lineNumber, _) = error as? LedgerJournal.JournalError else { return false }
            return lineNumber == 2
        }
    }

    @Test func journalLargerThanTheReplayBoundIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        _ = try writeHistory(to: path)
        let size = try dir.bytes("journal.jsonl").count
        #expect(throws: LedgerJournal.JournalError.tooLarge(path: path, bytes: size, limitBytes: size - 1)) {
            _ = try LedgerJournal.open(path: path, maxJournalBytes: size - 1, now: t0)
        }
        // And appends stop at the bound instead of producing a journal nobody will replay.
        let (journal, ledger, _) = try LedgerJournal.open(path: path, maxJournalBytes: size + 10, now: t0)
        var next = ledger
        #expect(throws: LedgerJournal.JournalError.appendWouldExceedLimit(path: path, limitBytes: size + 10)) {
            try journal.append(next.createSession(sessionId: "s2", durationMinutes: 1, now: t0).records)
        }
        #expect(try dir.bytes("journal.jsonl").count == size)
    }

    @Test func secondOpenOfTheSameJournalIsRefusedWhileTheFirstHoldsIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        let first = try LedgerJournal.open(path: path, now: t0)
        #expect(throws: LedgerJournal.JournalError.locked(path: path)) {
            _ = try LedgerJournal.open(path: path, now: t0)
        }
        withExtendedLifetime(first.journal) {}
    }

    /// A lock won on a journal a compaction replaced between the open and the lock is dropped,
    /// and the file now at the path is opened and locked instead: a server that kept the old
    /// (unlinked) file would append where no one ever reads.
    @Test func aLockWonOnAReplacedJournalMovesToTheNewFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        var replaced = false
        let fd = try LedgerJournal.openLocked(path: path) {
            guard !replaced else { return }
            replaced = true
            // What a compaction does: a new file renamed over the path.
            try? Data("new\n".utf8).write(to: URL(fileURLWithPath: path + ".compacting"))
            _ = rename(path + ".compacting", path)
        }
        defer { close(fd) }
        #expect(replaced)
        var mine = stat()
        var named = stat()
        #expect(fstat(fd, &mine) == 0 && stat(path, &named) == 0)
        #expect(mine.st_ino == named.st_ino, "the lock is on the file at the path")
        let bytes = "appended\n"
        #expect(bytes.withCString { write(fd, $0, strlen($0)) } == bytes.utf8.count)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\nappended\n")
    }

    /// The server fsyncs, then dies before answering: the client's retry with the same key must
    /// get the settlement that was made, not a second one.
    @Test func retryAfterCrashBetweenFsyncAndResponseGetsTheFirstOutcome() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        let clock = { @Sendable in Date(timeIntervalSince1970: 1_700_000_000) }
        let request = ResolveSessionRequest(
            sessionId: "s1", resolution: .failure, idempotencyKey: "flutter_s1_1700000000000", reason: "app_opened")
        let body = try JSONEncoder().encode(request)
        var first: SettlementService.Reply?
        do {
            let store = try SettlementStore(journalPath: path, tracePath: nil, now: clock, onFatal: { _ in })
            _ = await store.createSession(sessionId: "s1", durationMinutes: 60)
            first = await store.handle(method: "POST", path: "/resolveSession", body: body)
            // The "response" is lost with the store.
        }
        let firstJSON = try #require(first.flatMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] })
        #expect(first?.status == 200 && firstJSON["status"] as? String == "settled")

        let restarted = try SettlementStore(journalPath: path, tracePath: nil, now: clock, onFatal: { _ in })
        let retry = await restarted.handle(method: "POST", path: "/resolveSession", body: body)
        let retryJSON = try #require(try JSONSerialization.jsonObject(with: retry.body) as? [String: Any])
        #expect(retry.status == 200 && retryJSON["status"] as? String == "duplicate")
        #expect(retryJSON["ledgerSeq"] as? Int == firstJSON["ledgerSeq"] as? Int)
        #expect(await restarted.currentLedger().session("s1")?.resolutions.count == 1)
        #expect(await restarted.currentLedger().lastLedgerSeq == 1)
    }

    /// Writes two sessions' heartbeats, interleaved, `beats` each, and settles s1 between them.
    func writeHeartbeats(to path: String, beats: Int) throws -> SettlementLedger {
        let (journal, replayed, _) = try LedgerJournal.open(path: path, now: t0)
        var ledger = replayed
        try journal.append(ledger.createSession(sessionId: "s1", durationMinutes: 60, now: t0).records)
        try journal.append(ledger.createSession(sessionId: "s2", durationMinutes: 30, now: t0).records)
        for i in 1...beats {
            try journal.append(ledger.heartbeat(sessionId: "s1", now: t0.addingTimeInterval(Double(5 * i))).records)
            try journal.append(ledger.heartbeat(sessionId: "s2", now: t0.addingTimeInterval(Double(5 * i + 1))).records)
            if i == beats / 2 {
                try journal.append(ledger.resolve(
                    .init(sessionId: "s2", resolution: .failure, idempotencyKey: "k2", reason: "app_opened"),
                    now: t0.addingTimeInterval(Double(5 * i + 2))).records)
            }
        }
        return ledger
    }

    @Test func overriddenHeartbeatsAreCompactedAwayAndTheLedgerIsTheSame() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        let written = try writeHeartbeats(to: path, beats: 40)
        let before = try dir.bytes("journal.jsonl").split(separator: 0x0A)
        #expect(before.count == 2 + 80 + 1)

        let (journal, replayed, recovery) = try LedgerJournal.open(path: path, now: t0)
        #expect(replayed == written)
        #expect(recovery.recordsReplayed == 83)
        #expect(recovery.compactedRecords == 78)
        let after = try dir.bytes("journal.jsonl").split(separator: 0x0A)
        // The kept lines are the original bytes, in order: the creations, the settlement, and
        // each session's last heartbeat.
        let lastOf = { (s: String) in before.last { String(decoding: $0, as: UTF8.self).contains("\"sessionId\":\"\(s)\"") && String(decoding: $0, as: UTF8.self).contains("heartbeat") }! }
        try #require(after.count == 5)
        #expect(Array(after[0]) == Array(before[0]))
        #expect(Array(after[1]) == Array(before[1]))
        #expect(String(decoding: after[2], as: UTF8.self).contains("\"settled\""))
        #expect(Array(after[3]) == Array(lastOf("s1")))
        #expect(Array(after[4]) == Array(lastOf("s2")))
        #expect(!FileManager.default.fileExists(atPath: path + ".compacting"))
        // The open journal holds the lock on the file now named `path`.
        #expect(throws: LedgerJournal.JournalError.locked(path: path)) { _ = try LedgerJournal.open(path: path, now: t0) }
        withExtendedLifetime(journal) {}
    }

    @Test func aCompactedJournalAcceptsAppendsAndReopensWithoutCompacting() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        _ = try writeHeartbeats(to: path, beats: 40)
        var ledger: SettlementLedger
        do {
            let (journal, replayed, _) = try LedgerJournal.open(path: path, now: t0)
            ledger = replayed
            try journal.append(ledger.heartbeat(sessionId: "s1", now: t0.addingTimeInterval(900)).records)
        }
        let (_, reopened, recovery) = try LedgerJournal.open(path: path, now: t0)
        #expect(reopened == ledger)
        #expect(reopened.session("s1")?.lastCheckedAtUnixMillis == UnixMillis.from(t0.addingTimeInterval(900)))
        #expect(recovery.recordsReplayed == 6)
        #expect(recovery.compactedRecords == 0)
    }

    @Test func fewerOverriddenHeartbeatsThanTheThresholdLeaveTheFileAlone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("journal.jsonl")
        // 16 beats per session: 30 overridden, under the threshold of 32.
        #expect(LedgerJournal.compactAtSupersededHeartbeats == 32)
        let written = try writeHeartbeats(to: path, beats: 16)
        let before = try dir.bytes("journal.jsonl")
        let (_, replayed, recovery) = try LedgerJournal.open(path: path, now: t0)
        #expect(replayed == written)
        #expect(recovery.compactedRecords == 0)
        #expect(try dir.bytes("journal.jsonl") == before)
    }
}
