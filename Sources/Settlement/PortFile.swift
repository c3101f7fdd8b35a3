import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Publishes the port the server actually bound: the decimal port and a newline, written to a
/// hidden temp file in the same directory, fsynced, then renamed over `path`. A reader that sees
/// the file sees a whole port number; only the rename means "complete" (DESIGN.md).
public enum PortFile {
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func write(port: Int, to path: String) throws(WriteError) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let tempPath = (directory.isEmpty ? "" : directory + "/") + ".\(name).tmp-\(getpid())"
        let bytes = Array("\(port)\n".utf8)
        let fd = posixOpen(tempPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open \(tempPath)") }
        let wrote = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = wrote == bytes.count && fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else {
            unlink(tempPath)
            throw WriteError(description: "port file \(path): write failed: \(String(cString: strerror(code)))")
        }
        guard rename(tempPath, path) == 0 else {
            let error = failure("rename \(tempPath) to \(path)")
            unlink(tempPath)
            throw error
        }
    }

    private static func failure(_ operation: String) -> WriteError {
        WriteError(description: "port file: \(operation) failed: \(String(cString: strerror(errno)))")
    }
}
