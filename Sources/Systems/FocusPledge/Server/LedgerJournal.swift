import AppGroup
import FocusPledge
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The settlement ledger's durable form: an append-only JSONL file, one `JournalRecord` per line.
///
/// Writing: the file is opened `O_APPEND|O_CLOEXEC`; each record is ONE `write()` of its JSON and
/// a newline, followed by `fsync`. The server answers a request only after its records are synced,
/// so a crash between "synced" and "answered" leaves a settlement the client never heard about;
/// the client retries with the same idempotency key and gets that first outcome back.
///
/// Opening replays the file into a fresh `SettlementLedger`:
/// - a torn LAST line (no newline: the writer was SIGKILLed mid-write; or a final line that does
///   not parse) is never acknowledged to anyone, so it is dropped: its bytes are copied to
///   `<journal>.corrupt-<unix ms>` and the file is truncated back to the last good newline;
/// - any other bad line is corruption nobody can explain; replay stops with `JournalError` and
///   the server refuses to start (it never guesses);
/// - files larger than `maxJournalBytes` are refused rather than read;
/// - heartbeats a later heartbeat of the same session overrides (`SettlementLedger.apply` keeps only
///   the last one) are compacted away once there are `compactAtSupersededHeartbeats` of them: the
///   kept lines, byte for byte and in order, go to `<journal>.compacting`, which is synced and
///   renamed over the journal. Replaying the result rebuilds the same ledger. Without it every
///   restart replays every heartbeat ever taken — a heartbeat every 5 device seconds, ~100 restarts
///   in a 24-hour virtual-time run: quadratic, and most of the server's start-up.
///
/// An exclusive `flock` on the file keeps a second server off the same journal (a server that
/// locked a journal compaction has since replaced opens the new file and locks again).
public final class LedgerJournal {
    public static let defaultMaxJournalBytes = 64 << 20
    /// A restarted server may race the kernel releasing its predecessor's lock (≈0.4 ms after a
    /// SIGKILL); waiting this long covers that and still fails fast on a real second server.
    static let lockAttempts = 50
    static let lockRetryMicroseconds: UInt32 = 10_000
    static let interruptedRetries = 100
    /// Compact once this many heartbeats are overridden (bounds each restart's replay).
    public static let compactAtSupersededHeartbeats = 32

    public let path: String
    public let maxJournalBytes: Int
    private let fd: Int32
    private var sizeBytes: Int
    private let encoder: JSONEncoder

    /// What opening found and did.
    public struct Recovery: Sendable, Equatable {
        public var recordsReplayed: Int
        /// Bytes of a torn last line that were dropped (0 when the file was clean).
        public var droppedTailBytes: Int
        /// Where the dropped bytes were saved, when there were any.
        public var corruptCopyPath: String?
        /// Overridden heartbeats compaction removed (0 when it did not run).
        public var compactedRecords: Int = 0
    }

    public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
        case io(operation: String, path: String, errno: Int32)
        case tooLarge(path: String, bytes: Int, limitBytes: Int)
        case locked(path: String)
        case corruptLine(path: String, lineNumber: Int, byteOffset: Int, detail: String)
        case inconsistent(path: String, lineNumber: Int, detail: String)
        case appendWouldExceedLimit(path: String, limitBytes: Int)
        case shortWrite(path: String, wrote: Int, expected: Int)

        public var description: String {
            switch self {
            case .io(let operation, let path, let code):
                return "journal \(path): \(operation) failed: \(String(cString: strerror(code)))"
            case .tooLarge(let path, let bytes, let limit):
                return "journal \(path) is \(bytes) bytes, more than the \(limit) bytes this server replays"
            case .locked(let path):
                return "journal \(path) is locked by another settlement-server"
            case .corruptLine(let path, let line, let offset, let detail):
                return "journal \(path) line \(line) (byte \(offset)) is corrupt and is not the last line: \(detail)"
            case .inconsistent(let path, let line, let detail):
                return "journal \(path) line \(line) contradicts the lines before it: \(detail)"
            case .appendWouldExceedLimit(let path, let limit):
                return "journal \(path) would grow past its \(limit)-byte limit"
            case .shortWrite(let path, let wrote, let expected):
                return "journal \(path): write stored \(wrote) of \(expected) bytes"
            }
        }
    }

    private init(path: String, fd: Int32, sizeBytes: Int, maxJournalBytes: Int) {
        self.path = path
        self.fd = fd
        // Held for the journal's life; a server the harness runs in its own process and kills
        // gives it up as a killed process does (CrashPoints.flockTaken).
        CrashPoints.flockTaken(fd)
        self.sizeBytes = sizeBytes
        self.maxJournalBytes = maxJournalBytes
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.encoder = encoder
    }

    deinit {
        CrashPoints.flockReleased(fd)
        close(fd)
    }

    /// False = each record is written whole (one `write`) but not fsynced: it survives a SIGKILL of
    /// the server (the page cache keeps it), not a crash of the machine — all the harness ever
    /// does to it. The harness runs its servers so (`--no-journal-fsync`); the default is to sync.
    public var syncsEachRecord = true

    /// Opens (creating if absent) and replays the journal at `path`.
    /// `now` only names the `.corrupt-<unix ms>` copy of a dropped tail.
    public static func open(
        path: String, limits: SettlementLimits = .standard,
        maxJournalBytes: Int = defaultMaxJournalBytes, now: Date,
        syncs: Bool = true
    ) throws(JournalError) -> (journal: LedgerJournal, ledger: SettlementLedger, recovery: Recovery) {
        var fd = try openLocked(path: path)
        var handedOver = false
        defer { if !handedOver { close(fd) } }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(operation: "fstat", path: path, errno: errno) }
        let fileBytes = Int(info.st_size)
        guard fileBytes <= maxJournalBytes else {
            throw .tooLarge(path: path, bytes: fileBytes, limitBytes: maxJournalBytes)
        }
        if fileBytes == 0 { try syncParentDirectory(of: path) }
        let contents = try readAll(fd: fd, count: fileBytes, path: path)

        let (ledger, goodBytes, lines) = try replay(contents, path: path, limits: limits)
        var recovery = Recovery(recordsReplayed: lines.count, droppedTailBytes: 0, corruptCopyPath: nil)
        if goodBytes < fileBytes {
            let copyPath = "\(path).corrupt-\(UnixMillis.from(now))"
            do {
                try Data(contents[goodBytes...]).write(to: URL(fileURLWithPath: copyPath), options: .atomic)
            } catch {
                throw .io(operation: "saving the torn tail to \(copyPath) (\(error))", path: path, errno: EIO)
            }
            guard ftruncate(fd, off_t(goodBytes)) == 0 else { throw .io(operation: "ftruncate", path: path, errno: errno) }
            guard fsync(fd) == 0 else { throw .io(operation: "fsync", path: path, errno: errno) }
            recovery.droppedTailBytes = fileBytes - goodBytes
            recovery.corruptCopyPath = copyPath
        }
        var sizeBytes = goodBytes
        let kept = keptLines(lines)
        if lines.count - kept.count >= compactAtSupersededHeartbeats {
            let compacted = kept.reduce(into: [UInt8]()) { $0 += contents[$1] }
            let newFd = try replace(path: path, with: compacted, syncs: syncs)
            close(fd)  // releases the old file's lock; its waiters find it replaced (`openLocked`)
            fd = newFd
            sizeBytes = compacted.count
            recovery.compactedRecords = lines.count - kept.count
        }
        handedOver = true
        let journal = LedgerJournal(path: path, fd: fd, sizeBytes: sizeBytes, maxJournalBytes: maxJournalBytes)
        journal.syncsEachRecord = syncs
        return (journal, ledger, recovery)
    }

    /// One replayed line: its bytes (with the newline) and, for a heartbeat, its session.
    struct Line {
        var bytes: Range<Int>
        var heartbeatOf: String?
    }

    /// The lines compaction keeps, in order: all but the heartbeats a later one overrides.
    static func keptLines(_ lines: [Line]) -> [Range<Int>] {
        var last: [String: Int] = [:]
        for (i, line) in lines.enumerated() { if let s = line.heartbeatOf { last[s] = i } }
        return lines.enumerated().compactMap { i, line in
            if let s = line.heartbeatOf, last[s] != i { return nil }
            return line.bytes
        }
    }

    /// Writes `bytes` to `<path>.compacting` (locked, synced when `syncs`), renames it over `path`
    /// and returns its descriptor, still locked. A crash before the rename leaves the journal as it
    /// was (the next compaction truncates the leftover); after it, the compacted one.
    private static func replace(path: String, with bytes: [UInt8], syncs: Bool) throws(JournalError) -> Int32 {
        let temp = path + ".compacting"
        let fd = posixOpen(temp, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "open", path: temp, errno: errno) }
        var handedOver = false
        defer { if !handedOver { close(fd) } }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { throw .io(operation: "flock", path: temp, errno: errno) }
        var offset = 0
        var interruptions = 0
        while offset < bytes.count {
            let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if wrote < 0, errno == EINTR, interruptions < interruptedRetries { interruptions += 1; continue }
            if wrote <= 0 { throw .io(operation: "write", path: temp, errno: wrote < 0 ? errno : EIO) }
            offset += wrote
        }
        if syncs { guard fsync(fd) == 0 else { throw .io(operation: "fsync", path: temp, errno: errno) } }
        guard rename(temp, path) == 0 else { throw .io(operation: "rename \(temp) to", path: path, errno: errno) }
        if syncs { try syncParentDirectory(of: path) }
        handedOver = true
        return fd
    }

    /// Makes `records` durable, in order: one write() and one fsync per record. On any error the
    /// journal's tail is unknown; the caller must stop serving (a restart replays what made it).
    public func append(_ records: [JournalRecord]) throws(JournalError) {
        for record in records {
            var line: Data
            do { line = try encoder.encode(record) } catch {
                preconditionFailure("JournalRecord failed to encode: \(error)")
            }
            line.append(0x0A)
            guard sizeBytes + line.count <= maxJournalBytes else {
                throw .appendWouldExceedLimit(path: path, limitBytes: maxJournalBytes)
            }
            try writeOnce(line)
            if syncsEachRecord {
                guard fsync(fd) == 0 else { throw .io(operation: "fsync", path: path, errno: errno) }
            }
            sizeBytes += line.count
        }
    }

    private func writeOnce(_ line: Data) throws(JournalError) {
        for _ in 0..<Self.interruptedRetries {
            let wrote = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if wrote == line.count { return }
            if wrote < 0, errno == EINTR { continue }  // nothing was written; try again
            if wrote < 0 { throw .io(operation: "write", path: path, errno: errno) }
            throw .shortWrite(path: path, wrote: wrote, expected: line.count)
        }
        throw .io(operation: "write (interrupted \(Self.interruptedRetries) times)", path: path, errno: EINTR)
    }

    // MARK: - Replay

    /// Returns the ledger, the length of the good prefix, and the lines it holds.
    static func replay(
        _ contents: [UInt8], path: String, limits: SettlementLimits
    ) throws(JournalError) -> (SettlementLedger, Int, [Line]) {
        if let batch = replayBatch(contents, path: path, limits: limits) { return try batch.get() }
        var ledger = SettlementLedger(limits: limits)
        let decoder = JSONDecoder()
        var lineStart = 0
        var lineNumber = 0
        var records: [Line] = []
        while lineStart < contents.count {
            lineNumber += 1
            guard let newline = contents[lineStart...].firstIndex(of: 0x0A) else {
                // No newline: the last write was cut short. Never acknowledged; drop it.
                return (ledger, lineStart, records)
            }
            let isLastLine = newline == contents.count - 1
            let record: JournalRecord
            do {
                record = try decoder.decode(JournalRecord.self, from: Data(contents[lineStart..<newline]))
            } catch {
                if isLastLine { return (ledger, lineStart, records) }
                throw .corruptLine(path: path, lineNumber: lineNumber, byteOffset: lineStart, detail: oneLine(error))
            }
            do { try ledger.apply(record) } catch {
                throw .inconsistent(path: path, lineNumber: lineNumber, detail: error.description)
            }
            var line = Line(bytes: lineStart..<(newline + 1))
            if case .heartbeat(let sessionId, _) = record { line.heartbeatOf = sessionId }
            records.append(line)
            lineStart = newline + 1
        }
        return (ledger, lineStart, records)
    }

    /// `replay` in one `JSONDecoder` call for every complete line (one per record, each decoded
    /// alone was ~10 µs of fixed cost, ~1 ms of every server start): nil — and `replay` goes line by
    /// line, which says which line is bad — unless every line decodes, one record each.
    static func replayBatch(
        _ contents: [UInt8], path: String, limits: SettlementLimits
    ) -> Result<(SettlementLedger, Int, [Line]), JournalError>? {
        guard let lastNewline = contents.lastIndex(of: 0x0A) else { return nil }
        var lines: [Range<Int>] = []
        var array: [UInt8] = [UInt8(ascii: "[")]
        array.reserveCapacity(lastNewline + 2)
        var lineStart = 0
        while lineStart <= lastNewline, let newline = contents[lineStart...lastNewline].firstIndex(of: 0x0A) {
            if !lines.isEmpty { array.append(UInt8(ascii: ",")) }
            array += contents[lineStart..<newline]
            lines.append(lineStart..<(newline + 1))
            lineStart = newline + 1
        }
        array.append(UInt8(ascii: "]"))
        guard let decoded = try? JSONDecoder().decode([JournalRecord].self, from: Data(array)), decoded.count == lines.count
        else { return nil }
        var ledger = SettlementLedger(limits: limits)
        var records: [Line] = []
        records.reserveCapacity(lines.count)
        for (i, record) in decoded.enumerated() {
            do { try ledger.apply(record) } catch {
                return .failure(.inconsistent(path: path, lineNumber: i + 1, detail: error.description))
            }
            var line = Line(bytes: lines[i])
            if case .heartbeat(let sessionId, _) = record { line.heartbeatOf = sessionId }
            records.append(line)
        }
        return .success((ledger, lastNewline + 1, records))
    }

    // MARK: - Helpers

    /// Opens `path` (creating it) and locks it exclusively, bounded. A lock won on a file that is
    /// no longer `path` (a compaction renamed a new journal over it meanwhile) is dropped and the
    /// new file opened instead.
    /// `afterOpen` runs between the open and the lock (tests: a compaction that lands there).
    static func openLocked(path: String, afterOpen: () -> Void = {}) throws(JournalError) -> Int32 {
        for attempt in 0..<lockAttempts {
            let fd = posixOpen(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
            afterOpen()
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                var mine = stat()
                var named = stat()
                guard fstat(fd, &mine) == 0 else {
                    let code = errno
                    close(fd)
                    throw .io(operation: "fstat", path: path, errno: code)
                }
                if stat(path, &named) == 0, named.st_ino == mine.st_ino, named.st_dev == mine.st_dev { return fd }
                close(fd)  // replaced since we opened it: try the new file at once
                continue
            }
            let code = errno
            close(fd)
            guard code == EWOULDBLOCK || code == EINTR else { throw .io(operation: "flock", path: path, errno: code) }
            if attempt < lockAttempts - 1 { usleep(lockRetryMicroseconds) }
        }
        throw .locked(path: path)
    }

    private static func readAll(fd: Int32, count: Int, path: String) throws(JournalError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var offset = 0
        var interruptions = 0
        while offset < count {
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + offset, count - offset, off_t(offset)) }
            if got < 0, errno == EINTR, interruptions < interruptedRetries { interruptions += 1; continue }
            if got < 0 { throw .io(operation: "read", path: path, errno: errno) }
            if got == 0 { break }  // shrank under us; replay what there is
            offset += got
        }
        return offset == count ? buffer : Array(buffer[..<offset])
    }

    /// A new journal's directory entry must be durable too, or a crash could lose the whole file.
    private static func syncParentDirectory(of path: String) throws(JournalError) {
        let directory = PathText.directory(of: path)
        let dirFd = posixOpen(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirFd >= 0 else { throw .io(operation: "open directory", path: path, errno: errno) }
        defer { close(dirFd) }
        guard fsync(dirFd) == 0 else { throw .io(operation: "fsync directory", path: path, errno: errno) }
    }
}

// At file scope, so `LedgerJournal.open` does not shadow the system call.
func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}

/// Errors go on one line in this server's messages.
func oneLine(_ error: any Error) -> String {
    String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
}
