import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file a verb reads at a path the user named (a history, a trace): a regular file only, opened
/// non-blocking so a FIFO in its place never waits for a writer (`harness check` on a FIFO hung),
/// and at most `limitBytes` read. The sibling of `OutputFile`.
public enum InputFile {
    public struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
        public var path: String
        public var reason: String
        public var errno: Int32?
        public init(path: String, reason: String, errno: Int32? = nil) {
            self.path = path
            self.reason = reason
            self.errno = errno
        }
        public var description: String { "\(path): \(reason)" }
        /// The file is simply not there.
        public var isMissing: Bool { errno == ENOENT }
    }

    public static func read(_ path: String, limitBytes: Int) throws(Failure) -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno)), errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(path: path, reason: String(cString: strerror(errno)), errno: errno) }
        if let kind = SafeDirectory.kind(ofMode: st.st_mode) { throw Failure(path: path, reason: "not a regular file (\(kind))") }
        guard Int(st.st_size) <= limitBytes else { throw Failure(path: path, reason: "larger than \(limitBytes) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var total = 0
        while true {
            if total == bytes.count {
                guard total <= limitBytes else { throw Failure(path: path, reason: "grew past \(limitBytes) bytes") }
                bytes.append(contentsOf: repeatElement(0, count: bytes.count))
            }
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: String(cString: strerror(errno)), errno: errno)
            }
            if n == 0 { break }
            total += n
        }
        return Data(bytes[..<total])
    }
}
