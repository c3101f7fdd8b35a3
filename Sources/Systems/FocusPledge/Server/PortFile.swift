import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Publishes the port the server actually bound: the decimal port and a newline, written to a
/// temp file beside `path` and renamed over it. A reader that sees the file sees a whole port
/// number; only the rename means "complete" (PROTOCOL.md §1). Not fsynced: a port means nothing after
/// the machine restarts, and a sync cost ~0.5 ms (up to 9 ms) of every server start on ext4 — a
/// 24-hour virtual-time run restarts the server ~100 times while every other process waits.
public enum PortFile {
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func write(port: Int, to path: String) throws(WriteError) {
        let temp = "\(path).tmp.\(getpid())"
        // open/write/close, not `Data.write(to: URL)`: Foundation's URL and file-writing paths were
        // ~8 % of a server start's CPU (their first use in the process), for a dozen bytes.
        let bytes = Array("\(port)\n".utf8)
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            throw WriteError(description: "port file \(path): write failed: \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { raw in
            #if canImport(Glibc)
            Glibc.write(fd, raw.baseAddress, raw.count)
            #else
            Darwin.write(fd, raw.baseAddress, raw.count)
            #endif
        }
        let e = errno
        close(fd)
        guard written == bytes.count else {
            unlink(temp)
            throw WriteError(description: "port file \(path): write failed: \(written < 0 ? String(cString: strerror(e)) : "short write")")
        }
        guard rename(temp, path) == 0 else {
            let e = errno
            unlink(temp)
            throw WriteError(description: "port file \(path): rename failed: \(String(cString: strerror(e)))")
        }
    }
}
