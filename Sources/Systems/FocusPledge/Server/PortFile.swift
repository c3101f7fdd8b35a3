import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Publishes the port the server actually bound: the decimal port and a newline, written with
/// Foundation's atomic write (temp + fsync + rename over `path`). A reader that sees the file sees a
/// whole port number; only the rename means "complete" (DESIGN.md).
public enum PortFile {
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func write(port: Int, to path: String) throws(WriteError) {
        do {
            try Data("\(port)\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WriteError(description: "port file \(path): write failed: \(error.localizedDescription)")
        }
    }
}
