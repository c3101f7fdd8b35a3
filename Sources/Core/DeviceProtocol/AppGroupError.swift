import Foundation

/// Every failure of the App Group layer, each with a one-line message a user can act on.
public enum AppGroupError: Error, CustomStringConvertible, Equatable, Sendable {
    case symlinkRefused(path: String)
    case notADirectory(path: String)
    case pathEscapesRoot(path: String)
    case invalidComponent(String)
    case io(operation: String, path: String, errno: Int32)
    case notEntitled(groupIdentifier: String)
    case invalidGroupIdentifier(String)
    case invalidProcessName(String)
    case invalidSuiteName(String)
    case invalidNotificationName(String, reason: String)
    case notAPropertyListValue(key: String, type: String)
    case valueTooLarge(key: String, bytes: Int, limitBytes: Int)
    case valueTooDeep(key: String, nesting: Int, limit: Int)
    case notXMLText(key: String, scalar: UInt32)
    case dateOutOfRange(key: String)
    case suiteTooLarge(suite: String, bytes: Int, limitBytes: Int)
    case lockTimeout(path: String, waitedMilliseconds: Int)
    case malformedFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .symlinkRefused(let p): return "refusing to follow a symlink inside the device root: \(p)"
        case .notADirectory(let p): return "expected a directory but found something else: \(p)"
        case .pathEscapesRoot(let p): return "path leaves the device root: \(p)"
        case .invalidComponent(let c): return "invalid path component \(String(reflecting: c)) (empty, '.', '..', '/' or NUL)"
        case .io(let op, let p, let e): return "\(op) \(p): \(String(cString: strerror(e))) (errno \(e))"
        case .notEntitled(let g): return "process is not entitled to app group \(g) (set APP_GROUPS=\(g))"
        case .invalidGroupIdentifier(let g): return "invalid app group identifier \(String(reflecting: g))"
        case .invalidProcessName(let p): return "invalid process name \(String(reflecting: String(p.prefix(80)))) for a sandbox (1...100 of A-Z a-z 0-9 . _ -)"
        case .invalidSuiteName(let s): return "invalid defaults suite name \(String(reflecting: s))"
        case .invalidNotificationName(let n, let r): return "invalid notification name \(String(reflecting: String(n.prefix(80)))): \(r)"
        case .notAPropertyListValue(let k, let t): return "value for key \(String(reflecting: k)) is a \(t), not a property-list type"
        case .valueTooLarge(let k, let b, let l): return "value for key \(String(reflecting: k)) is \(b) bytes encoded; the limit is \(l) bytes"
        case .valueTooDeep(let k, let n, let l):
            return "value for key \(String(reflecting: String(k.prefix(80)))) nests \(n) levels deep; the limit is \(l) (a deeper suite could not be read back)"
        case .notXMLText(let k, let c):
            return "key or value \(String(reflecting: String(k.prefix(80)))) holds U+\(String(c, radix: 16, uppercase: true)), which an XML 1.0 property list cannot hold "
                + "(of the control characters only tab, newline and carriage return); store such bytes as data (PROTOCOL.md §3)"
        case .dateOutOfRange(let k):
            return "value for key \(String(reflecting: String(k.prefix(80)))) holds a date outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z, which a property list cannot hold for every reader (PROTOCOL.md §3)"
        case .suiteTooLarge(let s, let b, let l): return "suite \(s) would be \(b) bytes; the limit is \(l) bytes"
        case .lockTimeout(let p, let ms): return "could not take the lock \(p) within \(ms) ms (is its holder stopped?)"
        case .malformedFile(let p, let r): return "malformed file \(p): \(r)"
        }
    }
}
