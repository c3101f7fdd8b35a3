import AppGroup
import Foundation

/// What can go wrong with a `system/` file, each with a message a user can act on. A bad file is
/// reported, never a crash, and never silently treated as something else.
public enum OSFileError: Error, CustomStringConvertible, Sendable {
    /// The record does not decode (wrong JSON, missing field), is over its size limit, or is not a regular file.
    case malformed(path: String, reason: String)
    /// The device root or a directory could not be opened or written.
    case io(AppGroupError)
    /// No `SCREENTIME_DEVICE_ROOT` device could be opened.
    case noDevice(String)
    /// An identifier that cannot name a file (empty, `/`, NUL, leading `.`, too long).
    case invalidName(kind: String, name: String)
    /// A bounded wait for the emulated OS ran out.
    case noAnswer(what: String, waitedDeviceSeconds: Double, waitedWallSeconds: Double)

    public var description: String {
        switch self {
        case .malformed(let p, let r): "malformed system file \(p): \(r)"
        case .io(let e): e.description
        case .noDevice(let r): "no emulated device: \(r) (set SCREENTIME_DEVICE_ROOT to the harness's device root)"
        case .invalidName(let k, let n): "invalid \(k) name \(String(reflecting: String(n.prefix(80)))): it must be 1–200 bytes without '/', NUL or a leading '.'"
        case .noAnswer(let w, let d, let r):
            "the emulated OS did not answer \(w) within \(Int(d)) device seconds (\(String(format: "%.1f", r)) s wall); is the harness running and scripting this answer?"
        }
    }
}
