import AppGroup
import Foundation
import ScreenTimeModel

/// One directory under `system/` and the notification its changes post: the only way the
/// frameworks and the harness touch `system/` files. Reads are bounded and a bad file is an error
/// naming it; writes are temp + rename followed by the post (PROTOCOL.md §1, EMULATED-IOS.md §7).
public struct OSArea: @unchecked Sendable {
    public let relativePath: String
    public let directory: SafeDirectory
    let center: DarwinNotificationCenter

    init(relativePath: String, directory: SafeDirectory, center: DarwinNotificationCenter) {
        self.relativePath = relativePath
        self.directory = directory
        self.center = center
    }

    func path(_ name: String) -> String { "\(relativePath)/\(name)" }

    /// A record, nil when the file does not exist.
    public func read<T: Decodable>(_ type: T.Type, _ name: String, limitBytes: Int = OSPaths.maxRecordBytes) throws(OSFileError) -> T? {
        let bytes: [UInt8]?
        do {
            bytes = try directory.readFile(name, limitBytes: limitBytes)
        } catch let e as AppGroupError {
            if case .malformedFile(_, let reason) = e { throw .malformed(path: path(name), reason: reason) }
            throw .io(e)
        } catch {
            throw .malformed(path: path(name), reason: "\(error)")
        }
        guard let bytes else { return nil }
        do {
            return try OSJSON.decode(type, from: bytes)
        } catch {
            throw .malformed(path: path(name), reason: Self.describe(error))
        }
    }

    /// Replaces `name` with `value` (temp + rename, no fsync: a record is the OS's state, and a
    /// SIGKILL leaves the old or the new one), then posts `notification` if given.
    /// A record over `OSPaths.maxRecordBytes` is refused, not written: every reader (and the
    /// harness's tamper check) holds records to that bound.
    public func write<T: Encodable>(_ value: T, _ name: String, post notification: String?) throws(OSFileError) {
        let bytes: [UInt8]
        do { bytes = try OSJSON.encode(value) } catch { throw .malformed(path: path(name), reason: "cannot encode: \(error)") }
        guard bytes.count <= OSPaths.maxRecordBytes else {
            throw .malformed(path: path(name), reason: "not written: \(bytes.count) bytes, over the \(OSPaths.maxRecordBytes) a record may hold")
        }
        do {
            try directory.writeAtomically(name, bytes: bytes, fsync: false)
            if let notification { try center.post(notification) }
        } catch let e as AppGroupError {
            throw .io(e)
        } catch {
            throw .malformed(path: path(name), reason: "cannot encode: \(error)")
        }
    }

    /// Deletes `name` (absent is fine), then posts `notification` if given.
    public func remove(_ name: String, post notification: String?) throws(OSFileError) {
        directory.remove(name)
        if let notification { try post(notification) }
    }

    public func post(_ notification: String) throws(OSFileError) {
        do { try center.post(notification) } catch let e as AppGroupError { throw .io(e) } catch { throw .noDevice("\(error)") }
    }

    /// A holder that is SIGSTOPped must not hang an app: lock waits are bounded.
    public static let lockTimeout: Duration = .seconds(2)

    /// `body` under this area's flock (`<area>/.lock`, PROTOCOL.md §1): for read-modify-write of
    /// a record, and for rules that count records (at most 20 activities).
    public func withLock<T>(_ body: () throws(OSFileError) -> T) throws(OSFileError) -> T {
        let lock: FileLock
        do {
            lock = try FileLock(directory: directory, name: ".lock")
            try lock.lock(timeout: Self.lockTimeout)
        } catch let e as AppGroupError {
            throw .io(e)
        } catch {
            throw .noDevice("\(error)")
        }
        defer { lock.unlock() }
        return try body()
    }

    /// Record file names (`*.json`, no temp files), sorted; at most `OSPaths.maxRecordsPerDirectory`.
    public func recordNames() throws(OSFileError) -> [String] {
        do {
            return try directory.entries(limit: OSPaths.maxRecordsPerDirectory * 4).filter(OSPaths.isRecordName).sorted()
                .prefix(OSPaths.maxRecordsPerDirectory).map { $0 }
        } catch let e as AppGroupError {
            throw .io(e)
        } catch {
            throw .noDevice("\(error)")
        }
    }

    /// Every record that decodes, and the errors of those that do not (never dropped silently).
    public func readAll<T: Decodable>(_ type: T.Type) -> (records: [(name: String, record: T)], errors: [OSFileError]) {
        var records: [(String, T)] = []
        var errors: [OSFileError] = []
        let names: [String]
        do { names = try recordNames() } catch { return ([], [error]) }
        for n in names {
            do {
                if let r = try read(type, n) { records.append((n, r)) }
            } catch {
                errors.append(error)
            }
        }
        return (records, errors)
    }

    /// DecodingError's description, one line.
    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let c)?: return "not JSON or bad value at \(codingPath(c.codingPath)): \(c.debugDescription)"
        case .keyNotFound(let k, let c)?: return "missing \(codingPath(c.codingPath + [k]))"
        case .typeMismatch(let t, let c)?: return "\(codingPath(c.codingPath)) is not a \(t)"
        case .valueNotFound(let t, let c)?: return "\(codingPath(c.codingPath)) is null, expected \(t)"
        default: return "\(error)"
        }
    }

    static func codingPath(_ p: [any CodingKey]) -> String { p.isEmpty ? "top level" : p.map(\.stringValue).joined(separator: ".") }
}

